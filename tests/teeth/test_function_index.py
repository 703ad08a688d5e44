"""The function index: one libcst reading of a file's functions, shared by discovery, check scoping and baseline
selection."""

from __future__ import annotations

from teeth.syntax.functions import function_index
from teeth.operators import select_operators
from teeth.discovery.testing import discovered

SOURCE = '''import functools

LIMIT = 3 + 1


@functools.cache
@other(
    2)
def first(x, scale=2 + 1):
    return x + 1


class Rows:
    size = 4 + 1

    async def take(self, x):
        def inner(y):
            class Local:
                def deep(self):
                    return y * 2
            return Local().deep()
        return inner(x)


def first(x):
    return x - 1
'''


def test_each_function_has_its_qualified_name_and_a_span_from_its_first_decorator():
    index = function_index(SOURCE)
    assert index.spans("first") == [(6, 10), (25, 26)]  # defined twice: two spans
    assert index.spans("Rows.take") == [(16, 22)]
    assert index.spans("Rows.take.<locals>.inner") == [(17, 21)]
    assert index.spans("Rows.take.<locals>.inner.<locals>.Local.deep") == [(19, 20)]
    assert index.spans("Rows") == []  # a class is not a function


def test_outer_functions_are_the_module_level_functions_and_methods():
    index = function_index(SOURCE)
    assert [(f.name, f.first, f.last) for f in index.outer_functions()] == [
        ("first", 6, 10), ("Rows.take", 16, 22), ("first", 25, 26)]
    deep = next(f for f in index.functions if f.name.endswith("deep"))
    assert deep.outer == "Rows.take"


def test_discovery_names_functions_as_the_index_does():
    found = discovered(select_operators(["generic.swap_op"]), SOURCE).mutants
    where = {m.line: (m.function, m.swap) for m in found}
    index = function_index(SOURCE)
    assert where[3] == ("", "")  # module level
    assert where[9] == ("first", "")  # a default: it runs when the def runs, at module level
    assert where[10] == ("first", "first")
    assert where[14] == ("Rows", "")  # a class body runs at module level
    assert where[20] == ("Rows.take.<locals>.inner.<locals>.Local.deep", "Rows.take")
    assert where[26] == ("first", "first")
    for line, (function, swap) in where.items():
        if swap:
            assert any(first <= line <= last for first, last in index.spans(swap)), line
