"""The store's domain types (a `Run`, its `RunKind` and `RunStatus`) and their conversion from and to rows and JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any


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
