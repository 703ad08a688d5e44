"""The store's domain types and their conversion from and to rows: the one module that knows the tables' columns
and their encodings (cosmic-ray's `work_db.py` pattern). `Store` takes and returns these types; every output
serialises from them.

- `Run` (its `RunKind`, `RunStatus`): one `teeth run` or `teeth check`.
- `Mutant`: a mutant as stored. `teeth.discovery.discover.Mutant` is the same mutant as discovery holds it (with its source and
  edit); `mutant_row` reads either.
- `teeth.core.Outcome`: what became of a mutant under one profile. The stored outcome is the same type, not an
  `OutcomeRecord` beside it: a worker's outcome is stored as it is and read back whole (an outcome reused from an
  earlier run is the stored one, handed on), so a second type would be a second name for one concept. The profile is
  part of the outcome's key in the store, not of the outcome: `Result` pairs them with the mutant.
- `Result`: a mutant, a profile and the mutant's outcome under it (`Store.results`).
- `TestRecord`: one baseline test of a run under a profile. `MatrixEntry`: one test's verdict on one mutant
  (`--full-matrix`). `KillRate`: a group's outcomes counted per status. `ExecutingTests`, `MutantOutcome`: what
  `teeth show` reads.
- `OutcomeFilter`: the statuses a reading asks for (typed, where the store took a string).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from teeth.core import Outcome, Status, Tally


class RunKind(StrEnum):
    """Which command recorded a run."""

    RUN = "run"  # `teeth run`
    CHECK = "check"  # `teeth check`: scoped to the changed functions


class RunStatus(StrEnum):
    """Where a run stands; the value is what the database stores and every output shows."""

    RUNNING = "running"
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    BASELINE_FAILED = "baseline_failed"
    FAILED = "failed"


# The runs columns that hold JSON text, and what an empty one reads as.
_JSON_COLUMNS = {"profiles": (), "operators": (), "versions": {}, "timings": None, "totals": None, "options": {},
                 "protection": {}, "notes": (), "op_filter": None, "operator_filter": None, "profile_filter": None,
                 "mutant_filter": None}


@dataclass(frozen=True, kw_only=True)
class Run:
    """One invocation of `teeth run` or `teeth check`, as stored: its JSON columns parsed, its kind and status typed.
    A filter is None when the run was not filtered by it, else the names it was given."""

    id: int
    target: str
    status: RunStatus
    kind: RunKind = RunKind.RUN
    started_at: str | None = None
    finished_at: str | None = None
    commit: str | None = None
    dirty: bool | None = None  # the target's files differed from the commit (None: not known)
    profiles: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    versions: Mapping[str, Any] = field(default_factory=dict)
    timings: Mapping[str, float] | None = None  # seconds per stage (None: the run did not finish)
    totals: Mapping[str, int] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)  # the command's options, as it recorded them
    pid: int | None = None
    host: str | None = None
    protection: Mapping[str, str] = field(default_factory=dict)  # per profile, what isolated its tests
    notes: tuple[str, ...] = ()
    op_filter: tuple[str, ...] | None = None
    operator_filter: tuple[str, ...] | None = None
    profile_filter: tuple[str, ...] | None = None
    shard: str | None = None  # K/N
    mutant_filter: tuple[str, ...] | None = None

    @property
    def completed(self) -> bool:
        return self.status is RunStatus.COMPLETED

    @property
    def whole(self) -> bool:
        """It measured every mutant it discovered: not one shard, not chosen mutants (store.WHOLE_OPS)."""
        return self.shard is None and self.mutant_filter is None

    def to_json(self) -> dict[str, Any]:
        """The run as JSON outputs show it (`teeth push`'s metadata and the service's API take their keys from it)."""
        found = {}
        for f in fields(self):
            value = getattr(self, f.name)
            found[f.name] = list(value) if isinstance(value, tuple) else dict(value) if isinstance(value, Mapping) \
                else value.value if isinstance(value, StrEnum) else value
        return found


def run_of(row: Mapping[str, Any]) -> Run:
    """A `runs` row as a `Run`: the one place that knows the runs table's columns and their encodings."""
    values: dict[str, Any] = {}
    for f in fields(Run):
        if f.name not in row.keys():
            continue
        value = row[f.name]
        if f.name in _JSON_COLUMNS:
            empty = _JSON_COLUMNS[f.name]
            value = json.loads(value) if value else empty
            if isinstance(value, list):
                value = tuple(value)
        values[f.name] = value
    values["status"] = RunStatus(values["status"])
    values["kind"] = RunKind(values.get("kind") or RunKind.RUN)
    if values.get("dirty") is not None:
        values["dirty"] = bool(values["dirty"])
    return Run(**values)


_NULL_WHEN_EMPTY = ("notes", "protection")  # written only when there is one; NULL until then


def run_row(run: Run) -> dict[str, Any]:
    """A `Run` as a `runs` row without its id (a new row's id is SQLite's): JSON columns as text."""
    row: dict[str, Any] = {}
    for f in fields(Run):
        if f.name == "id":
            continue
        value = getattr(run, f.name)
        if f.name in _JSON_COLUMNS:
            value = None if value is None or (f.name in _NULL_WHEN_EMPTY and not value) else \
                json.dumps(list(value) if isinstance(value, tuple) else dict(value))
        elif isinstance(value, StrEnum):
            value = value.value
        elif f.name == "dirty" and value is not None:
            value = int(value)
        row[f.name] = value
    return row


@dataclass(frozen=True, kw_only=True)
class Mutant:
    """A mutant as the store keeps it: where it is, which operator made it, its change and why it was not run."""

    id: str
    target: str
    file: str  # as shown: relative to the target's root (an installed module's from its import root)
    line: int
    end_line: int | None = None
    function: str | None = None  # qualified name of the enclosing function, "" at module level
    op: str
    operator: str
    original: str | None = None
    replacement: str | None = None
    diff: str | None = None
    skip: str | None = None  # why it is not run (a pragma, an equivalence, ...); None: it runs
    path: str | None = None  # the file's absolute path

    @property
    def change(self) -> str:
        """`original -> replacement`, each on one line."""
        return " ".join(f"{self.original} -> {self.replacement}".split())


MUTANT_COLUMNS = tuple(f.name for f in fields(Mutant))


def mutant_row(mutant: Any) -> dict[str, Any]:
    """The `mutants` row of a `Mutant` or of a discovered mutant (`teeth.discovery.discover.Mutant`, which has these fields)."""
    return {name: getattr(mutant, name, None) for name in MUTANT_COLUMNS}


def mutant_of(row: Mapping[str, Any]) -> Mutant:
    return Mutant(**{name: row[name] for name in MUTANT_COLUMNS if name in row.keys()})


# In the table's order (after run_id and profile's place, second).
OUTCOME_COLUMNS = ("mutant_id", "status", "killed_by", "check", "duration", "tests_run", "test_seconds", "detail",
                   "cache_key", "reused_from", "why", "failure", "signal")


def outcome_row(outcome: Outcome, profile: str) -> dict[str, Any]:
    """The `outcomes` row of an outcome under `profile` (without its run id; `matrix` is a table of its own)."""
    row: dict[str, Any] = {"mutant_id": outcome.mutant_id, "profile": profile}
    for name in OUTCOME_COLUMNS[1:]:
        value = getattr(outcome, name)
        row[name] = value.value if isinstance(value, StrEnum) else value
    return row


def outcome_of(row: Mapping[str, Any]) -> Outcome:
    """A stored outcome (a column an older row lacks reads as None)."""
    keys = row.keys()
    values = {name: row[name] for name in OUTCOME_COLUMNS[2:] if name in keys}  # a duration may be NULL (pushed)
    return Outcome(row["mutant_id"], Status(row["status"]), **values)


@dataclass(frozen=True)
class Result:
    """One mutant's outcome under one profile in a run: what `Store.results` returns, and what every listing (table,
    JSON, lines, Stryker, HTML, a push) shows."""

    mutant: Mutant
    profile: str
    outcome: Outcome

    @property
    def key(self) -> tuple[str, str]:
        """(mutant id, profile): a result's key within its run."""
        return self.mutant.id, self.profile

    @property
    def status(self) -> Status:
        return self.outcome.status


def result_of(row: Mapping[str, Any]) -> Result:
    """A row of mutant columns, `profile` and outcome columns (`Store.results`' query)."""
    return Result(mutant_of(row), row["profile"], outcome_of(row))


@dataclass(frozen=True)
class OutcomeFilter:
    """Which outcomes a reading asks for: those of these statuses (empty: every one)."""

    statuses: tuple[Status, ...] = ()

    @classmethod
    def of(cls, *statuses: str) -> OutcomeFilter:
        return cls(tuple(Status(s) for s in statuses if s))

    def admits(self, status: str) -> bool:
        return not self.statuses or status in self.statuses


@dataclass(frozen=True, kw_only=True)
class TestRecord:
    """One test of a run's baseline under a profile: its time, its failure (None: it passed; `flaky`: it passed on a
    retry), what it covered (`{"FILE::FUNCTION": ...}`) and the lines it executed per file, its keys."""

    __test__ = False  # not a pytest class, despite its name
    profile: str
    test: str
    duration: float | None = None
    failure: Mapping[str, Any] | None = None
    covers: Mapping[str, Any] | None = None
    lines: Mapping[str, str] | None = None
    test_key: str | None = None
    profile_key: str | None = None
    run_id: int | None = None


_TEST_JSON = ("failure", "covers", "lines")
TEST_COLUMNS = tuple(f.name for f in fields(TestRecord))


def row_of_test(test: TestRecord) -> dict[str, Any]:
    """A `tests` row (JSON columns as text); without its run id when it has none."""
    row = {name: getattr(test, name) for name in TEST_COLUMNS if name != "run_id" or test.run_id is not None}
    for name in _TEST_JSON:
        row[name] = json.dumps(row[name]) if row[name] is not None else None
    return row


def record_of_test(row: Mapping[str, Any]) -> TestRecord:
    values = {name: row[name] for name in TEST_COLUMNS if name in row.keys()}
    for name in _TEST_JSON:
        if values.get(name):
            values[name] = json.loads(values[name])
        else:
            values[name] = None
    return TestRecord(**values)


@dataclass(frozen=True)
class MatrixEntry:
    """`--full-matrix`: one test's verdict on one mutant: the check it failed, None when it passed, and its detail."""

    check: str | None
    detail: str | None = None

    @property
    def failed(self) -> bool:
        return self.check is not None


# A run's full matrix: mutant id -> profile -> test -> its verdict.
Matrix = Mapping[str, Mapping[str, Mapping[str, MatrixEntry]]]


def matrix_rows(matrix: Matrix) -> Iterable[dict[str, Any]]:
    """The `matrix` rows of a full matrix (without their run id)."""
    return ({"mutant_id": mutant, "profile": profile, "test": test, "check": entry.check, "detail": entry.detail}
            for mutant, per_profile in matrix.items() for profile, tests in per_profile.items()
            for test, entry in tests.items())


@dataclass(frozen=True, kw_only=True)
class KillRate:
    """One group of a run's outcomes (an op, a profile, ... as `by` names them) counted per status (every status, 0
    included), with its kill rate; `run` is set where the group is one point of a history."""

    counts: Mapping[str, int]
    by: tuple[str, ...] = ("op", "profile")
    op: str | None = None
    profile: str | None = None
    operator: str | None = None
    check: str | None = None
    run: Run | None = None

    @property
    def tally(self) -> Tally:
        return Tally.of(self.counts)

    @property
    def kill_rate(self) -> float | None:
        return self.tally.rate

    def to_json(self) -> dict[str, Any]:
        """The group, its count per status and its kill rate, as the service's API shows them."""
        return {**{b: getattr(self, b) for b in self.by}, **{s.value: self.counts[s] for s in Status},
                "kill_rate": self.kill_rate}


GROUPS = ("op", "profile", "operator", "check")


def kill_rate_of(row: Mapping[str, Any], by: tuple[str, ...], run: Run | None = None) -> KillRate:
    """A grouped row: the `by` columns and one count per status (`teeth.core.counts_sql`; None reads as 0)."""
    return KillRate(counts={s.value: row[s.value] or 0 for s in Status}, by=by, run=run,
                    **{b: row[b] for b in by})


@dataclass(frozen=True)
class ExecutingTests:
    """`teeth show`: under `profile`, the newest run of the target that recorded line coverage and its passing
    baseline tests that executed the mutant's lines."""

    profile: str
    run_id: int
    tests: tuple[str, ...]


@dataclass(frozen=True)
class MutantOutcome:
    """A mutant's outcome under a profile in one run (`teeth show`: every run that measured it)."""

    run: Run
    profile: str
    outcome: Outcome
