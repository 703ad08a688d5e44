"""`teeth diff A B`: two runs side by side, mutant by mutant: status changes, new kills with their tests, and the
mutants only one of them holds."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from teeth.core import Status
from teeth.errors import TeethError
from teeth.report.kill_matrix import compact, failing
from teeth.store.records import Result, Run
from teeth.store.db import Store


@dataclass
class RunSide:
    """One side of a diff: a run of a database, with its outcomes by (mutant, profile) and their killing tests."""

    label: str
    run: Run
    rows: dict[tuple[str, str], Result]
    killers: dict[tuple[str, str], list[str]]


def parse_side(text: str, default_db: Path) -> tuple[Path, str]:
    """`RUN` (of the default database) or `DB:RUN`; RUN is an id or `latest`."""
    db, colon, run = text.rpartition(":")
    if not colon:
        return default_db, text
    if not run:
        raise TeethError(f"teeth diff takes RUN or DB:RUN, not {text!r}")
    return Path(db), run


def load_side(store: Store, run: Run, label: str) -> RunSide:
    rows = {r.key: r for r in store.results(run.id)}
    matrix = store.kill_matrix(run.id)
    killers = {}
    for key, row in rows.items():
        full = failing(matrix.get(key[0], {}).get(key[1], {}))
        killed_by = row.outcome.killed_by
        killers[key] = full or ([killed_by] if killed_by and row.status.caught else [])
    return RunSide(label, run, rows, killers)


@dataclass
class RunDiff:
    a: RunSide
    b: RunSide
    changed: list[dict] = field(default_factory=list)  # every mutant whose status differs
    newly_killed: list[dict] = field(default_factory=list)
    newly_surviving: list[dict] = field(default_factory=list)
    only_a: list[dict] = field(default_factory=list)
    only_b: list[dict] = field(default_factory=list)

    def as_json(self) -> str:
        def side(s: RunSide) -> dict:
            return {"label": s.label, "run": s.run.id, "target": s.run.target, "kind": s.run.kind.value}

        return json.dumps({"a": side(self.a), "b": side(self.b), "changed": self.changed,
                           "newly_killed": self.newly_killed, "newly_surviving": self.newly_surviving,
                           "only_in_a": self.only_a, "only_in_b": self.only_b}, indent=2)


def _entry(row: Result, **more) -> dict:
    """A mutant of the diff as its JSON and its lines show it."""
    m = row.mutant
    return {"mutant_id": m.id, "mutant": m.id,  # `mutant`: the old key, until teeth 0.2.0
            "profile": row.profile, "file": m.file, "line": m.line, "operator": m.operator, **more}


def diff_runs(a: RunSide, b: RunSide) -> RunDiff:
    found = RunDiff(a, b)
    for key in sorted(a.rows.keys() | b.rows.keys(), key=lambda k: ((a.rows.get(k) or b.rows[k]).mutant.file,
                                                                    (a.rows.get(k) or b.rows[k]).mutant.line, k)):
        before, after = a.rows.get(key), b.rows.get(key)
        if before is None:
            found.only_b.append(_entry(after, status=after.status.value))
            continue
        if after is None:
            found.only_a.append(_entry(before, status=before.status.value))
            continue
        if before.status == after.status:
            continue
        was, now = before.status, after.status
        entry = _entry(after, a=was.value, b=now.value, killed_by_a=a.killers[key], killed_by_b=b.killers[key])
        found.changed.append(entry)
        if was.surviving and now.caught:
            found.newly_killed.append(entry)
        elif was.caught and now.surviving:
            found.newly_surviving.append(entry)
    return found


def diff_lines(found: RunDiff, describe) -> list[str]:
    """The text of a diff; `describe` names a run in one line (cli.options.describe_run)."""
    lines = [f"A: {found.a.label}: {describe(found.a.run)}", f"B: {found.b.label}: {describe(found.b.run)}",
             f"{len(found.changed)} changed status, {len(found.newly_killed)} newly killed, "
             f"{len(found.newly_surviving)} newly surviving, {len(found.only_a)} only in A, "
             f"{len(found.only_b)} only in B"]
    for e in found.changed:
        tests = e["killed_by_b"] if Status(e["b"]).caught else e["killed_by_a"]
        by = f" (killed by {compact(tests)})" if tests else ""
        lines.append(f"  {e['mutant_id']} {e['file']}:{e['line']} {e['operator']} [{e['profile']}]: "
                     f"{e['a']} -> {e['b']}{by}")
    for name, entries in (("only in A", found.only_a), ("only in B", found.only_b)):
        lines += [f"  {name}: {e['mutant_id']} {e['file']}:{e['line']} {e['operator']} [{e['profile']}] {e['status']}"
                  for e in entries]
    return lines
