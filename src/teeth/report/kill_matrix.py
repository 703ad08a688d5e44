"""The full kill matrix (`--full-matrix`): every test a mutant ran and whether it failed, per mutant and per test."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from teeth.store.records import Matrix, MatrixEntry
from teeth.store.db import Store


def failing(verdicts: Mapping[str, MatrixEntry]) -> list[str]:
    """The tests of one mutant's matrix (test -> its verdict) that failed under it: each one kills it."""
    return [test for test, verdict in verdicts.items() if verdict.failed]


def compact(tests: list[str]) -> str:
    """Tests as one short list: the parametrised cases of one test function as `file::name[a, b]`."""
    groups: dict[str, list[str]] = {}
    for test in tests:
        head, bracket, case = test.partition("[")
        groups.setdefault(head, []).append(case[:-1] if bracket else "")
    return ", ".join(head if cases == [""] else f"{head}[{', '.join(c for c in cases if c)}]"
                     for head, cases in groups.items())


def tally(verdicts: Mapping[str, MatrixEntry]) -> str:
    """`5 failed, 1 passed of 6 that execute it`."""
    failed = len(failing(verdicts))
    return f"{failed} failed, {len(verdicts) - failed} passed of {len(verdicts)} that execute it"


def matrix_lines(matrix: Matrix) -> list[str]:
    """`teeth show`: per profile of one mutant's matrix (Store.kill_matrix for one mutant), the tally, then the
    failing tests (with their check and reason) and the passing ones."""
    lines = []
    for profiles in matrix.values():
        for profile, verdicts in profiles.items():
            lines.append(f"kill matrix [{profile}]: {tally(verdicts)}")
            for test, verdict in verdicts.items():
                if verdict.failed:
                    lines.append(f"  failed: {test} ({verdict.check}): {verdict.detail or ''}".rstrip(": "))
            lines += [f"  passed: {test}" for test, verdict in verdicts.items() if not verdict.failed]
    return lines


@dataclass
class TestKills:
    """One test's row of the matrix: the mutants it executed, killed, and killed where no other test did."""

    test: str
    executes: set[str] = field(default_factory=set)
    kills: set[str] = field(default_factory=set)
    alone: set[str] = field(default_factory=set)

    def as_json(self) -> dict:
        return {"test": self.test, "executes": len(self.executes), "kills": sorted(self.kills),
                "kills_alone": sorted(self.alone)}


def by_test(matrix: Matrix) -> list[TestKills]:
    """The matrix turned around: per test (and profile, when there are several), the mutants it kills and those it
    alone kills; most kills alone first, then most kills, then by name."""
    profiles = {p for per_profile in matrix.values() for p in per_profile}
    found: dict[str, TestKills] = {}
    for mutant, per_profile in matrix.items():
        for profile, verdicts in per_profile.items():
            killers = failing(verdicts)
            for test, verdict in verdicts.items():
                name = f"{test} [{profile}]" if len(profiles) > 1 else test
                row = found.setdefault(name, TestKills(name))
                row.executes.add(mutant)
                if verdict.failed:
                    row.kills.add(mutant)
                    if killers == [test]:
                        row.alone.add(mutant)
    return sorted(found.values(), key=lambda t: (-len(t.alone), -len(t.kills), t.test))


def tests_table(store: Store, run_id: int) -> list[TestKills]:
    """`teeth tests`: the run's tests by the mutants they kill; empty for a run without `--full-matrix`."""
    return by_test(store.kill_matrix(run_id))
