"""JSON listings: results as a list of objects, for scripts."""

from __future__ import annotations

import json
from typing import Any

from teeth.store.records import (ExecutingTests, Matrix, Mutant, MutantOutcome, Result, Run, mutant_row,
                           outcome_row)

RESULT_FIELDS = ("mutant_id", "target", "file", "line", "function", "op", "operator", "profile", "status",
                 "killed_by", "check", "duration", "detail", "why", "signal", "failure")


# `mutant`: the key `mutant_id` had up to teeth 0.1.0; still written for one release (until 0.2.0), for scripts.
OLD_KEYS = {"mutant": "mutant_id"}


def result_json(result: Result) -> dict[str, Any]:
    """One result as `--format json` shows it: the keys of RESULT_FIELDS, then the old ones."""
    m, o = result.mutant, result.outcome
    shown = {"mutant_id": m.id, "target": m.target, "file": m.file, "line": m.line, "function": m.function,
             "op": m.op, "operator": m.operator, "profile": result.profile, "status": o.status,
             "killed_by": o.killed_by,
             "check": o.check, "duration": o.duration, "detail": o.detail, "why": o.why, "signal": o.signal,
             "failure": o.failure}
    return {**{k: shown[k] for k in RESULT_FIELDS}, **{old: shown[new] for old, new in OLD_KEYS.items()}}


def results_json(results: list[Result]) -> str:
    return json.dumps([result_json(r) for r in results], indent=2)


def mutant_json(mutant: Mutant, run: Run | None, outcomes: list[MutantOutcome], executing: list[ExecutingTests],
                matrix: Matrix, bug_class: dict | None) -> str:
    """`teeth show --format json`: the mutant's columns (not its absolute path: outputs show the file as `file`
    does), the run shown, each outcome with its run's time, commit, kind and filters, the tests that executed its
    lines per profile, its full matrix and its bug class."""
    shown = {k: v for k, v in mutant_row(mutant).items() if k != "path"}
    listed = [{"run_id": o.run.id, **outcome_row(o.outcome, o.profile), "started_at": o.run.started_at,
               "commit": o.run.commit, "kind": o.run.kind.value, "shard": o.run.shard,
               "mutant_filter": json.dumps(list(o.run.mutant_filter)) if o.run.mutant_filter is not None else None}
              for o in outcomes]
    tests = {e.profile: {"run_id": e.run_id, "tests": list(e.tests)} for e in executing}
    verdicts = {m: {p: {t: {"check": v.check, "detail": v.detail} for t, v in per_test.items()}
                    for p, per_test in per_profile.items()} for m, per_profile in matrix.items()}
    return json.dumps({**shown, "run": run.id if run else None, "outcomes": listed, "tests": tests,
                       "matrix": verdicts, "bug_class": bug_class}, indent=2)
