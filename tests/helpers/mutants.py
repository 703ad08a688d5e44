"""Mutants and outcomes as the store takes them, for tests that store outcomes without discovering anything."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from teeth.core import Outcome, Status
from teeth.store.records import Mutant, Result, outcome_of


def mutant_record(mutant_id: str, op: str = "f") -> Mutant:
    """A mutant of `f.py` line 1 in target `t`."""
    return Mutant(id=mutant_id, target="t", file="f.py", line=1, end_line=1, function="f", op=op, operator="o",
                  original="a", replacement="b", diff="", skip=None, path="/f.py")


def record_outcome_rows(store, run_id: int, rows: Iterable[Mapping[str, Any]]) -> None:
    """Store outcomes given as `outcomes` rows (mutant_id, profile, status, ...), each under its profile."""
    by_profile: dict[str, list] = {}
    for row in rows:
        by_profile.setdefault(row["profile"], []).append(outcome_of(row))
    for profile, outcomes in by_profile.items():
        store.record_outcomes(run_id, profile, outcomes)


def result(mutant_id: str, status: str = "survived", profile: str = "cpu", target: str = "rows", op: str = "f",
           **mutant: Any) -> Result:
    """A result as `Store.results` returns it: a mutant (file, line, operator, original, ... as given) and its
    outcome under `profile`."""
    fields = {"file": "rows.py", "line": 1, "operator": "o", **mutant}
    return Result(Mutant(id=mutant_id, target=target, op=op, **fields),
                  profile, Outcome(mutant_id, Status(status)))
