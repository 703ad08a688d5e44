"""The generic operators are mutmut's own operator library, adapted, not rewritten."""

from __future__ import annotations

import importlib.metadata

from mutmut.mutation import mutators
from packaging.version import Version

from teeth.operators.generic import generic_operators


def test_every_mutmut_node_operator_is_exposed_once():
    exposed = {op.name for op in generic_operators()}
    expected = {f"generic.{fn.__name__.removeprefix('operator_')}" for _, fn in mutators.mutation_operators}
    assert exposed == expected


def test_generic_operator_calls_mutmuts_function():
    swap = next(op for op in generic_operators() if op.name == "generic.swap_op")
    assert swap._function is mutators.operator_swap_op


def test_installed_mutmut_is_in_the_pinned_range():
    version = Version(importlib.metadata.version("mutmut"))
    assert Version("3.8.1") <= version < Version("3.9")
