"""History: kill rate per op x profile over runs and commits, filtered, as series, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from datetime import date

from typing import Any

from teeth.core import COUNTED, Status
from teeth.errors import TeethError
from teeth.store.records import KillRate, Run, RunKind, RunStatus
from teeth.store.db import Store

COUNTS = tuple(s.value for s in (*COUNTED, *(s for s in Status if not s.counts)))  # the counted ones first
FIELDS = ("run", "target", "started_at", "commit", "dirty", "run_status", "op", "profile", *COUNTS, "kill_rate")
ALL_OPS = "(all ops)"


@dataclass(frozen=True)
class Since:
    """The start of the window: runs with id >= `run`, or runs started on or after `day` (UTC)."""

    run: int | None = None
    day: str | None = None

    def admits(self, run: Run) -> bool:
        if self.run is not None:
            return run.id >= self.run
        return (run.started_at or "")[:10] >= self.day


def parse_since(value: str | None) -> Since | None:
    """`--since`: digits are a run id, YYYY-MM-DD is a date; anything else is a one-line error."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return Since(run=int(text))
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return Since(day=date.fromisoformat(text).isoformat())
        except ValueError:
            pass
    raise TeethError(f"--since takes a date (YYYY-MM-DD) or a run id, not {value!r}")


def run_label(run: Run) -> str:
    """A run in one line of a chart: `run ID DATE COMMIT` (`+`: dirty)."""
    commit = (run.commit or "no-git")[:8] + ("+" if run.dirty else "")
    return f"run {run.id} {(run.started_at or '')[:10]} {commit}"


@dataclass
class Series:
    """One op x profile of one target: its counts per run id."""

    target: str
    op: str
    profile: str
    points: dict[int, KillRate] = field(default_factory=dict)

    def rate(self, run_id: int) -> float | None:
        point = self.points.get(run_id)
        return point.kill_rate if point else None

    def rates(self, runs: list[Run]) -> list[float | None]:
        return [self.rate(run.id) for run in runs]

    def measured(self) -> list[float]:
        return [p.kill_rate for _, p in sorted(self.points.items()) if p.kill_rate is not None]


@dataclass
class History:
    runs: list[Run]
    rows: list[KillRate]  # per (run, op, profile), each with its run

    def series(self) -> list[Series]:
        """Every op x profile (per target), sorted, with its points."""
        found: dict[tuple[str, str, str], Series] = {}
        for row in self.rows:
            key = (row.run.target, row.op, row.profile)
            found.setdefault(key, Series(*key)).points[row.run.id] = row
        return [found[k] for k in sorted(found)]

    def overall(self) -> list[Series]:
        """Per target x profile, the counts of every op summed: the line a chart draws first."""
        summed: dict[tuple[str, str], dict[int, dict[str, int]]] = {}
        runs: dict[int, Run] = {}
        for row in self.rows:
            runs[row.run.id] = row.run
            point = summed.setdefault((row.run.target, row.profile), {}).setdefault(row.run.id,
                                                                                    {c: 0 for c in COUNTS})
            for count in COUNTS:
                point[count] += row.counts[count]
        return [Series(target, ALL_OPS, profile, {
            run_id: KillRate(counts=counts, by=("profile",), profile=profile, run=runs[run_id])
            for run_id, counts in summed[(target, profile)].items()}) for target, profile in sorted(summed)]

    @property
    def targets(self) -> list[str]:
        return sorted({run.target for run in self.runs})


def load_history(store: Store, target: str | None = None, ops: tuple[str, ...] = (),
                 profiles: tuple[str, ...] = (), since: Since | None = None,
                 until_run: int | None = None) -> History:
    """The runs and per-(run, op, profile) counts that match; unknown names are one-line errors."""
    if target and target not in store.run_targets():
        known = ", ".join(store.run_targets()) or "none"
        raise TeethError(f"no runs of target {target!r} in {store.path}; targets with runs: {known}")
    if since and since.run is not None:
        store.run(since.run)
    rows = store.kill_rate_history(target)
    _check_names("op", ops, {r.op for r in rows})
    _check_names("profile", profiles, {r.profile for r in rows})
    # Only completed runs are data points: an interrupted or killed run measured part of its mutants.
    rows = [r for r in rows if r.run.status is RunStatus.COMPLETED
            and (not ops or r.op in ops) and (not profiles or r.profile in profiles)
            and (since is None or since.admits(r.run)) and (until_run is None or r.run.id <= until_run)]
    runs = {r.run.id: r.run for r in rows}
    return History(runs=[runs[k] for k in sorted(runs)], rows=rows)


# Why a run with outcomes is no point of the history, in the order they are asked.
LEFT_OUT = (
    ("not completed", lambda run: not run.completed),
    ("a `teeth check`", lambda run: run.kind is not RunKind.RUN),
    ("one shard", lambda run: run.shard is not None),
    ("chosen mutants (--only)", lambda run: run.mutant_filter is not None),
    ("an --operator filter", lambda run: run.operator_filter is not None),
)


def left_out(store: Store, target: str | None, ops: tuple[str, ...] = (), profiles: tuple[str, ...] = (),
             since: Since | None = None) -> dict[str, int]:
    """{why: how many} of the runs with outcomes, for a history that has no point."""
    why: dict[str, int] = {}
    for run in store.runs_with_outcomes(target):
        reason = next((name for name, applies in LEFT_OUT if applies(run)), None)
        if reason is None and since is not None and not since.admits(run):
            reason = "before --since"
        if reason is None and (ops or profiles):
            reason = "other ops or profiles than asked"
        reason = reason or "no whole op measured"
        why[reason] = why.get(reason, 0) + 1
    return why


def nothing_to_show(why: dict[str, int]) -> str:
    """The line `teeth history` prints when no run is a point: how many runs were left out, why, and what makes a
    point."""
    if not why:
        return "no runs with outcomes: `teeth run` records the first point of the history"
    total = sum(why.values())
    reasons = ", ".join(f"{count} {reason}" for reason, count in why.items())
    return (f"no history points: {total} run{'s' * (total != 1)} with outcomes left out ({reasons}); a point is a "
            "completed `teeth run` that measured whole ops: run without --operator, --shard or --only (or join "
            "the shards with `teeth merge`)")


def _check_names(kind: str, given: tuple[str, ...], known: set[str]) -> None:
    for name in given:
        if name not in known:
            listed = sorted(known)
            shown = ", ".join(listed[:12]) + (f" (+{len(listed) - 12} more)" if len(listed) > 12 else "")
            raise TeethError(f"unknown {kind} {name!r}; {kind}s with history: {shown or 'none'}")


def history_row(point: KillRate) -> dict[str, Any]:
    """One point as `--format json` and `--format csv` show it: the keys of FIELDS (`dirty` 0 or 1, as stored)."""
    run = point.run
    return {"run": run.id, "target": run.target, "started_at": run.started_at, "commit": run.commit,
            "dirty": None if run.dirty is None else int(run.dirty), "run_status": run.status.value, "op": point.op,
            "profile": point.profile, **{c: point.counts[c] for c in COUNTS}, "kill_rate": point.kill_rate}


def history_json(history: History) -> str:
    """One object per (run, op, profile), oldest run first: the rows `--format json` prints."""
    return json.dumps([history_row(row) for row in history.rows], indent=2)


def history_csv(history: History) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(history_row(row) for row in history.rows)
    return out.getvalue()
