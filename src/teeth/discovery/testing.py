"""Test helpers for operator authors: run an operator over a snippet through teeth's own discovery."""

from __future__ import annotations

from pathlib import Path

from teeth.config.targets import Target
from teeth.discovery.discover import Discovery, discover_source
from teeth.operators.base import Operator

EXAMPLE = Path("example.py")


def discovered(operators: Operator | list[Operator], source: str, **settings) -> Discovery:
    """Discovery of `source` as one file of a target (Target fields in `settings`, e.g. contiguous_decorators):
    the mutants a run would make, with arid code, duplicates and code that does not compile left out."""
    chosen = [operators] if isinstance(operators, Operator) else list(operators)
    target = Target(name="example", root=Path("."), files=[EXAMPLE], tests=[], **settings)
    return discover_source(target, EXAMPLE, source, chosen)


def mutants_of(operator: Operator, source: str) -> list[str]:
    """Every mutated module `operator` makes of `source`, in the order a run finds them.

    >>> from teeth.operators import select_operators
    >>> mutants_of(*select_operators(["whole_batch"]), "rows = t[a:b]\\n")
    ['rows = t\\n']
    """
    return [mutant.code for mutant in discovered(operator, source).mutants]
