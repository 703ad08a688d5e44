"""Mutant records as the store takes them, for tests that store outcomes without discovering anything."""

from __future__ import annotations

from types import SimpleNamespace


def mutant_record(mutant_id: str, op: str = "f") -> SimpleNamespace:
    """A mutant of `f.py` line 1 in target `t`, with the fields `Store.record_mutants` reads."""
    return SimpleNamespace(id=mutant_id, target="t", file="f.py", line=1, end_line=1, function="f", op=op,
                           operator="o", original="a", replacement="b", diff="", skip=None, path="/f.py")
