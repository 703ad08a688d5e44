"""Tests in scope of `teeth check`: what the tests a change adds or edits kill that the base's tests did not, and the
gate that a change adding tests newly kills a required bug class."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from teeth.gate.base_tests import BaseVersions
from teeth.config.targets import Target
from teeth.core import Status
from teeth.errors import ConfigError
from teeth.report.kill_matrix import compact, failing, tally
from teeth.operators import select_operators
from teeth.store.records import MatrixEntry, Result
from teeth.store.db import Store


@dataclass
class TestPolicy:
    """The gate on added tests: which bug classes count, and how many new kills of them a change must bring (0: off)."""

    required: set[str]
    new_kills: int

    @classmethod
    def of(cls, target: Target) -> TestPolicy:
        names = target.test_required_operators
        if names is None:
            names = target.required_operators if target.required_operators is not None else ["domain"]
        count = target.new_kills
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ConfigError(f"target {target.name!r}: new_kills = {count!r} must be a whole number from 0 "
                              f"(0 turns the gate on added tests off)")
        return cls({op.name for op in select_operators(list(names))} if names else set(), count)


@dataclass
class MutantReview:
    """One mutant the changed tests execute: its status under the base's tests and under the change's."""

    result: Result  # of the check run
    base: str  # a status, or "new" (no outcome at the base)
    now: str
    killers: list[str]  # every test of the change that kills it (the full matrix)
    new_killers: list[str]  # those of them the change added or edited
    verdicts: Mapping[str, MatrixEntry] = field(default_factory=dict)  # test -> its verdict: the full matrix

    @property
    def newly_killed(self) -> bool:
        return self.base in (Status.SURVIVED, Status.NO_COVERAGE, "new") and Status(self.now).caught \
            and bool(self.new_killers)


@dataclass
class TestReview:
    """What a check found about the tests a change adds or edits."""

    added: list[str]
    edited: list[str]
    base_source: str
    mutants: list[MutantReview]
    policy: TestPolicy
    helpers: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        return [*self.added, *self.edited]

    @property
    def newly_killed(self) -> list[MutantReview]:
        return [m for m in self.mutants if m.newly_killed]

    def kills(self, test: str) -> list[MutantReview]:
        return [m for m in self.mutants if test in m.killers]

    def kills_alone(self, test: str) -> list[MutantReview]:
        """Mutants this test kills and no other test does (of every test that executes them)."""
        return [m for m in self.mutants if m.killers == [test]]

    @property
    def toothless(self) -> list[str]:
        """Changed tests that kill no mutant at all."""
        return [t for t in self.changed if not self.kills(t)]

    def required_new_kills(self, test: str | None = None) -> list[MutantReview]:
        return [m for m in self.newly_killed if m.result.mutant.operator in self.policy.required
                and (test is None or test in m.new_killers)]


def review(store: Store, run_id: int, scoped: set[str], added: list[str], edited: list[str], base_run: dict | None,
           policy: TestPolicy, helpers: list[str] | None = None, at_base: BaseVersions | None = None) -> TestReview:
    """Judge the changed tests on the check run's outcomes and full matrix of the mutants they execute (`scoped`).
    The base's status: the base run's outcome of the same mutant when one is recorded; otherwise measured here: the
    verdict of the tests the change did not add or edit (the matrix) and of the edited tests' base versions
    (`at_base`, teeth.gate.base_tests)."""
    changed = set(added) | set(edited)
    matrix = store.kill_matrix(run_id)
    base = {}
    at_base = at_base or BaseVersions()
    if base_run is not None:
        base = {r.key: r.status for r in store.results(base_run.id)}
        source = f"base: outcomes of run {base_run.id} (the `teeth run` at the base commit)"
    else:
        source = (f"base: measured here, as the {len(added)} added test(s) absent" +
                  (f" and the {len(edited)} edited at their base version" if edited else "") +
                  " (no `teeth run` recorded at the base commit)")
    mutants = []
    for row in store.results(run_id):
        if row.mutant.id not in scoped or row.status == Status.SKIPPED:
            continue
        verdicts = matrix.get(row.mutant.id, {}).get(row.profile, {})
        killed_by = row.outcome.killed_by
        killers = failing(verdicts) or ([killed_by] if killed_by and row.status.caught else [])
        if base_run is not None:
            then = base.get(row.key, "new")
        else:
            key = row.key
            kept = [t for t in verdicts if t not in changed]
            then = (Status.KILLED.value if any(t not in changed for t in killers) or key in at_base.kills
                    else Status.SURVIVED.value if kept or key in at_base.executes else Status.NO_COVERAGE.value)
        mutants.append(MutantReview(row, then, row.status, killers, [t for t in killers if t in changed], verdicts))
    found = TestReview(added, edited, source, mutants, policy, sorted(helpers or []))
    if policy.new_kills and found.changed and len(found.required_new_kills()) < policy.new_kills:
        named = [t for t in found.changed if not found.required_new_kills(t)]
        domain = {op.name for op in select_operators(["domain"])}
        classes = "the domain operators" if policy.required == domain else ", ".join(sorted(policy.required))
        found.failures.append(
            f"{len(found.required_new_kills())} new kill(s) of a required bug class (need {policy.new_kills}): the "
            f"added or edited test(s) {', '.join(named)} newly kill no mutant of {classes} that survived or had no "
            f"coverage under the base's tests")
    return found


def review_lines(found: TestReview) -> list[str]:
    """The plain-text lines of the review, under the target's check lines."""
    lines = [f"  tests: {len(found.added)} added, {len(found.edited)} edited; {found.base_source}",
             f"  mutants their lines execute: {len(found.mutants)}; newly killed: {len(found.newly_killed)}"]
    for m in found.newly_killed:
        r = m.result.mutant
        lines.append(f"  newly killed: {r.file}:{r.line} {r.id} {r.operator} [{m.result.profile}] "
                     f"({m.base} under the base): {r.change[:80]}")
        if m.verdicts:
            lines.append(f"    {tally(m.verdicts)}")
        lines.append(f"    killed by {compact(m.new_killers)}")
    for test in found.changed:
        new = [m for m in found.newly_killed if test in m.new_killers]
        lines.append(f"  {test}: kills {len(found.kills(test))} ({len(new)} newly), alone "
                     f"{len(found.kills_alone(test))}")
    if found.toothless:
        lines.append(f"  kill no mutant: {', '.join(found.toothless)}")
    lines += [f"  note: {h}: changed lines outside every test function (the tests using them are not counted as "
              f"edited)" for h in found.helpers]
    return lines  # its failures are the verdict's: text_report prints them
