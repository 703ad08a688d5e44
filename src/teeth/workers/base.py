"""The backend interface the lab drives: open a backend per profile, run the baseline, execute mutant scenarios."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from teeth.config.targets import Target
from teeth.core import MutantScenario, Outcome
from teeth.config.profiles import Profile


class Backend:
    """Executes scenarios for one target under one profile on warm workers. Use as a context manager."""

    tests: list[str]
    protection: str | None = None  # what isolates the tests from the user's files, for the run's record

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def baseline(self, timeout: float, tests: list[str] | None = None) -> dict[str, dict]:
        """The collected tests (or those of `tests`) run once unmutated: {nodeid: {failure, duration, lines}}."""
        raise NotImplementedError

    def infection(self, scenario):
        """The infection pass (teeth.core.Infection): its `InfectionDone`, or None where it did not finish (a test
        hung or crashed instrumented) or this backend has no pass: every mutant then runs as without it."""
        return None

    def execute(self, scenarios: Iterable[MutantScenario]) -> Iterator[Outcome]:
        """Outcomes in completion order; stopping the iteration early abandons the rest."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Backends(Protocol):
    """Where a run's workers come from: opens one backend per profile, and says why a profile cannot run there."""

    def open(self, target: Target, profile: Profile, jobs: int) -> Backend: ...

    def unavailable_reason(self, profile: Profile) -> str | None:
        """Why no worker can run this profile here (every mutant is then skipped with this reason), or None."""

    def close(self) -> None:
        """Release what the run's backends shared (a Ray session); after the run."""
