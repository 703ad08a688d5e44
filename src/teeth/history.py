"""History: kill rate per op x profile over runs and commits, filtered, as series, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from datetime import date

from teeth.core import COUNTED, Status, kill_rate
from teeth.errors import TeethError
from teeth.records import RunKind
from teeth.store import Store

COUNTS = tuple(s.value for s in (*COUNTED, *(s for s in Status if not s.counts)))  # the counted ones first
FIELDS = ("run", "target", "started_at", "commit", "dirty", "run_status", "op", "profile", *COUNTS, "kill_rate")
ALL_OPS = "(all ops)"


@dataclass(frozen=True)
class Since:
    """The start of the window: runs with id >= `run`, or runs started on or after `day` (UTC)."""

    run: int | None = None
    day: str | None = None

    def admits(self, row: dict) -> bool:
        if self.run is not None:
            return row["run"] >= self.run
        return (row["started_at"] or "")[:10] >= self.day


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


@dataclass(frozen=True)
class Run:
    id: int
    target: str
    started_at: str
    commit: str | None
    dirty: int | None
    status: str

    @property
    def label(self) -> str:
        commit = (self.commit or "no-git")[:8] + ("+" if self.dirty else "")
        return f"run {self.id} {(self.started_at or '')[:10]} {commit}"


@dataclass
class Series:
    """One op x profile of one target: its counts per run id."""

    target: str
    op: str
    profile: str
    points: dict[int, dict] = field(default_factory=dict)

    def rate(self, run_id: int) -> float | None:
        point = self.points.get(run_id)
        return point["kill_rate"] if point else None

    def rates(self, runs: list[Run]) -> list[float | None]:
        return [self.rate(run.id) for run in runs]

    def measured(self) -> list[float]:
        return [p["kill_rate"] for _, p in sorted(self.points.items()) if p["kill_rate"] is not None]


@dataclass
class History:
    runs: list[Run]
    rows: list[dict]

    def series(self) -> list[Series]:
        """Every op x profile (per target), sorted, with its points."""
        found: dict[tuple[str, str, str], Series] = {}
        for row in self.rows:
            key = (row["target"], row["op"], row["profile"])
            found.setdefault(key, Series(*key)).points[row["run"]] = row
        return [found[k] for k in sorted(found)]

    def overall(self) -> list[Series]:
        """Per target x profile, the counts of every op summed: the line a chart draws first."""
        found: dict[tuple[str, str], Series] = {}
        for row in self.rows:
            series = found.setdefault((row["target"], row["profile"]),
                                      Series(row["target"], ALL_OPS, row["profile"]))
            point = series.points.setdefault(row["run"], {c: 0 for c in COUNTS})
            for count in COUNTS:
                point[count] += row[count] or 0
        for series in found.values():
            for point in series.points.values():
                point["kill_rate"] = kill_rate(point)
        return [found[k] for k in sorted(found)]

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
    _check_names("op", ops, {r["op"] for r in rows})
    _check_names("profile", profiles, {r["profile"] for r in rows})
    # Only completed runs are data points: an interrupted or killed run measured part of its mutants.
    rows = [r for r in rows if r["run_status"] == "completed"
            and (not ops or r["op"] in ops) and (not profiles or r["profile"] in profiles)
            and (since is None or since.admits(r)) and (until_run is None or r["run"] <= until_run)]
    runs: dict[int, Run] = {}
    for r in rows:
        runs.setdefault(r["run"], Run(r["run"], r["target"], r["started_at"], r["commit"], r["dirty"],
                                      r["run_status"]))
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
        if reason is None and since is not None and not since.admits({"run": run.id, "started_at": run.started_at}):
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


def history_json(history: History) -> str:
    """One object per (run, op, profile), oldest run first: the rows `--format json` prints."""
    return json.dumps([{k: row.get(k) for k in FIELDS} for row in history.rows], indent=2)


def history_csv(history: History) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(history.rows)
    return out.getvalue()
