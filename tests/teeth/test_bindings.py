"""A function's bindings: the names it binds exactly once, by a plain assignment, in its own body."""

from __future__ import annotations

import textwrap

import libcst as cst

from teeth.syntax.bindings import bindings_of


def bound(source: str) -> dict[str, str]:
    function = cst.parse_module(textwrap.dedent(source)).body[0]
    return {name: cst.Module([]).code_for_node(value) for name, value in bindings_of(function).values.items()}


def test_a_name_assigned_once_is_bound_to_its_value():
    assert bound("""\
        def f(full, start):
            pre = full.narrow(0, 0, start)
            return pre
    """) == {"pre": "full.narrow(0, 0, start)"}


def test_names_bound_more_than_once_or_otherwise_are_not():
    assert bound("""\
        def f(full, n, rows):
            rows = full[:n]
            twice = full[:n]
            twice = full[n:]
            grown = full[:n]
            grown += 1
            a, b = full.split(n)
            for row in full:
                pass
            with ctx() as handle:
                pass
            if (size := len(full)):
                pass
            return rows
    """) == {}


def test_a_nested_function_keeps_its_names_to_itself():
    assert bound("""\
        def f(full, n):
            pre = full[:n]
            def g(x):
                pre = x
                post = x
            return g
    """) == {"pre": "full[:n]"}


def test_every_value_of_a_name_only_plain_assignments_bind_is_kept_and_others_are_not():
    function = cst.parse_module(textwrap.dedent("""\
        def f(full, n, rows):
            out = {}
            if n:
                out = dict(a=full)
            rows = {}
            grown = {}
            grown |= {"b": full}
            return out
    """)).body[0]
    every = {name: [cst.Module([]).code_for_node(v) for v in values]
             for name, values in bindings_of(function).every.items()}
    assert every == {"out": ["{}", "dict(a=full)"]}
