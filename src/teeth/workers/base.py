"""The backend interface the lab drives: start warm workers, run the baseline, execute mutants."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass
class Task:
    """One mutant to run under one profile, with the tests to run, fastest first."""

    id: str
    path: str
    swap: str
    code: str
    tests: list[str]
    timeout: float


@dataclass
class Result:
    id: str
    status: str  # killed, survived, timeout, error
    duration: float = 0.0
    test: str | None = None
    check: str | None = None
    detail: str | None = None
    signal: int | None = None
    tests_run: int | None = None
    test_seconds: float | None = None  # the tests' own time, inside the duration


class Backend:
    """Executes tasks for one target under one profile. Use as a context manager."""

    tests: list[str]

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def baseline(self, timeout: float, tests: list[str] | None = None) -> dict[str, dict]:
        """The collected tests (or those of `tests`) run once unmutated: {nodeid: {failure, duration, lines}}."""
        raise NotImplementedError

    def execute(self, tasks: Iterable[Task]) -> Iterator[Result]:
        """Results in completion order; stopping the iteration early abandons the rest."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError
