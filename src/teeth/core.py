"""The core types: a scenario (the baseline or a mutant, each with its deadline), its outcome, and the kill rate."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple


class Status(StrEnum):
    """A mutant's outcome under one profile; the value is what the database stores and every output shows."""

    KILLED = "killed"
    SURVIVED = "survived"
    NO_COVERAGE = "no_coverage"
    TIMEOUT = "timeout"
    ERROR = "error"
    SKIPPED = "skipped"

    @property
    def counts(self) -> bool:
        """Counts towards a kill rate: a test ran, or should have run, and either caught the mutant or did not."""
        return self in COUNTED

    @property
    def caught(self) -> bool:
        """A test caught the mutant: a failure, or a hang the deadline stopped."""
        return self in CAUGHT

    @property
    def surviving(self) -> bool:
        """No test caught the mutant, whether or not a test ran it."""
        return self.counts and not self.caught

    @property
    def tested(self) -> bool:
        """Decided by the target's tests (so its cache key names them); a skipped mutant needs no test."""
        return self is not Status.SKIPPED


CAUGHT = (Status.KILLED, Status.TIMEOUT)
COUNTED = (*CAUGHT, Status.SURVIVED, Status.NO_COVERAGE)
SURVIVING = tuple(s for s in Status if s.surviving)  # a survivor, wherever teeth says so: survived or no_coverage
STATUSES = tuple(s.value for s in Status)  # every status, as stored: the CLI's `--status` choices


class Tally(NamedTuple):
    """The two numbers of a kill rate: the outcomes caught, of those counted."""

    caught: int
    counted: int

    @classmethod
    def of(cls, counts: Mapping[str, int | None]) -> Tally:
        """`counts`: outcomes per status (a missing or None count is 0)."""
        return cls(sum(counts.get(s) or 0 for s in CAUGHT), sum(counts.get(s) or 0 for s in COUNTED))

    @property
    def rate(self) -> float | None:
        return self.caught / self.counted if self.counted else None


def kill_rate(counts: Mapping[str, int | None]) -> float | None:
    """(killed + timeout) / (killed + timeout + survived + no_coverage); None with nothing to count."""
    return Tally.of(counts).rate


def _in(statuses, column: str) -> str:
    return f"{column} in ({', '.join(repr(s.value) for s in statuses)})"


def counts_sql(column: str = "o.status") -> str:
    """SQL select terms: one count per status over the grouped outcomes, named by the status."""
    return ", ".join(f"sum({column} = '{s.value}') as {s.value}" for s in Status)


def surviving_sql(column: str = "o.status") -> str:
    """An SQL condition: the outcome is a survivor (`Status.surviving`)."""
    return _in(SURVIVING, column)


def kill_rate_sql(column: str = "o.status") -> str:
    """An SQL expression: the kill rate of the grouped outcomes, NULL when none counts (as `kill_rate`)."""
    return f"(sum({_in(CAUGHT, column)}) * 1.0 / nullif(sum({_in(COUNTED, column)}), 0))"


class Check(StrEnum):
    """The kind of test that killed a mutant: what an operator says must kill its mutants (`Operator.kills`), what an
    outcome records, and what the invariance harness runs and names in a failure (`InvarianceFailure.teeth_check`)."""

    ACCURACY = "accuracy"
    BATCH_INVARIANCE = "batch_invariance"
    CHUNK_INVARIANCE = "chunk_invariance"
    DETERMINISM = "determinism"
    BEHAVIOUR = "behaviour"  # a test without a `check` marker: the function's plain behaviour
    AUDIT = "audit"  # the harness's audit of its own cells (teeth.invariance.audit)
    BOUNDS = "bounds"  # an interpreter profile's bounds check on every load and store (teeth.workers.bounds)
    CRASH = "crash"  # the tests crashed the process: the supervisor's verdict, not a test's


HARNESS_CHECKS = (Check.ACCURACY, Check.BATCH_INVARIANCE, Check.CHUNK_INVARIANCE, Check.DETERMINISM, Check.AUDIT)


class Why(StrEnum):
    """Why a survivor survived (teeth.run.infection): the first of reach, infect, propagate, check that failed."""

    NOT_INFECTED = "not_infected"  # no covering test made the mutated expression take another value
    NOT_PROPAGATED = "not_propagated"  # it did, and the function's outputs were still equal: the difference was masked
    NOT_CHECKED = "not_checked"  # the outputs differed, and no test's assertion saw it
    UNMEASURED = "unmeasured"  # a test infected it; what reached the outputs was not measured (the detail says why)

    @property
    def title(self) -> str:
        return WHY_TITLES[self]

    @property
    def remedy(self) -> str:
        """The kind of test that would kill a survivor with this why."""
        return WHY_REMEDIES[self]


WHY_TITLES = {
    Why.NOT_INFECTED: "no test builds a state where the mutant computes another value (not_infected)",
    Why.NOT_PROPAGATED: "the other value never reaches the function's outputs (not_propagated)",
    Why.NOT_CHECKED: "the outputs differ and no assertion notices (not_checked)",
    Why.UNMEASURED: "infected; whether the difference reached the outputs was not measured (unmeasured)",
}
WHY_REMEDIES = {
    Why.NOT_INFECTED: "a new input: a test whose state makes the original and the mutated expression differ "
                      "(another offset, a non-contiguous layout, a second group), asserted on its own rows",
    Why.NOT_PROPAGATED: "an input where the changed value reaches the output, or a check of the equivalence",
    Why.NOT_CHECKED: "a stronger assertion on the outputs the tests already compute (an exact or tighter comparison)",
    Why.UNMEASURED: "first run it by hand (teeth apply) and compare the outputs",
}


class WorkerFailure(StrEnum):
    """Why a worker gave no test verdict for a scenario: a fact about the worker, not about the tests.
    Recorded as status `error`, with the reason in the detail."""

    NOT_APPLIED = "not_applied"  # the mutant could not be put in place (its function not found, not compiled)
    RAISED = "raised"  # the child raised outside any test
    CRASHED = "crashed"  # the child died of a signal where a crash is no verdict (the baseline's child)
    NO_RESULT = "no_result"  # the child exited without writing a result
    LOST = "lost"  # the worker itself died running it, again and again (a Ray actor)


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """What a worker runs in one forked child, with its own deadline (seconds)."""

    timeout: float

    @property
    def ident(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Baseline(Scenario):
    """The target's tests, unmutated, with per-test coverage: every collected test, or those of `tests`; a failing
    test runs again up to `retries` times (one that then passes is flaky)."""

    tests: list[str] | None = None
    retries: int = 0

    @property
    def ident(self) -> str:
        return "baseline"


@dataclass(frozen=True, kw_only=True)
class Infection(Scenario):
    """The infection pass (teeth.run.infection): `tests` run once, unmutated, with every site of `files` (a path -> its
    sites, each [mutant, swap, start, end, replacement]) instrumented to evaluate the original and the mutants."""

    tests: list[str]
    files: dict[str, list[list]]
    covers: dict[str, list[str]] | None = None  # test -> the mutants it covers (a test that covers no mutant
    # still uninfected is skipped: teeth.workers.probe.Undecided)

    @property
    def ident(self) -> str:
        return "infection"


@dataclass(frozen=True, kw_only=True)
class MutantScenario(Scenario):
    """One mutant under one profile: `code` swapped in for `swap` of the module at `path`; its tests, fastest
    (or likeliest killer) first."""

    id: str
    path: str
    swap: str
    code: str
    tests: list[str]
    full_matrix: bool = False  # run every test, not only until the first failure (teeth.report.kill_matrix)
    compare: bool = False  # compare the mutated function's outputs with the original's (teeth.workers.propagation)
    # each test's own deadline (seconds from the moment the child says it runs it); a test not named here has only
    # the mutant's `timeout`
    test_timeouts: dict[str, float] | None = None
    # its code ran while pytest collected the tests: they are collected again in its child, with it in place
    recollect: bool = False

    @property
    def ident(self) -> str:
        return self.id


@dataclass(frozen=True)
class Outcome:
    """What became of one mutant under one profile: a test verdict, a status settled without a worker, or a
    worker failure (status `error`, with `failure` saying which). Stored as it is, reused or not (its row:
    teeth.store.records.outcome_row and outcome_of)."""

    mutant_id: str
    status: Status
    killed_by: str | None = None  # the test that killed it (or that was running when it crashed or timed out)
    check: Check | None = None
    detail: str | None = None
    duration: float = 0.0
    tests_run: int | None = None
    test_seconds: float | None = None  # the tests' own time, inside the duration
    signal: int | None = None  # the signal the child died of (a crash kill or a crashed child)
    failure: WorkerFailure | None = None
    cache_key: str | None = None
    reused_from: int | None = None  # the run that decided it, for an outcome reused from an earlier run
    # --full-matrix: every test it ran, as [test, check or None (passed), detail]; not an `outcomes` column
    matrix: list[list] | None = None
    why: Why | None = None  # why a survivor survived; its facts are in the detail

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))
        if self.check is not None:
            object.__setattr__(self, "check", Check(self.check))
        if self.why is not None:
            object.__setattr__(self, "why", Why(self.why))
        if self.failure is not None:
            object.__setattr__(self, "failure", WorkerFailure(self.failure))
            if self.status is not Status.ERROR:
                raise ValueError(f"a worker failure ({self.failure}) is an error, not {self.status}")

    @classmethod
    def failed(cls, mutant_id: str, failure: WorkerFailure, detail: str, **fields: Any) -> Outcome:
        """A worker failure: no test verdict; shown and stored as `error` with the reason."""
        return cls(mutant_id, Status.ERROR, detail=detail, failure=failure, **fields)

    def replace(self, **changes: Any) -> Outcome:
        return dataclasses.replace(self, **changes)

    @property
    def shown_detail(self) -> str | None:
        return shown_detail(self.detail, self.signal)


def shown_detail(detail: str | None, signal: int | None) -> str | None:
    """An outcome's detail as outputs show it: the signal its child died of first, when it died of one."""
    return f"signal {signal}: {detail}" if signal else detail
