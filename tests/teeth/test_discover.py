"""Discovery: stable ids, no duplicate code, arid code skipped, annotations honoured and reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from teeth.config.targets import Target
from teeth.discovery.discover import discover_file
from teeth.errors import ConfigError
from teeth.operators import all_operators, select_operators

SOURCE = textwrap.dedent('''\
    """Module docstring."""
    import logging

    log = logging.getLogger(__name__)


    class Batch:
        """Class docstring."""

        def rows(self, t, start, size):
            """Method docstring."""
            if size < 0:
                raise ValueError(f"size {size + 1} must not be negative")
            log.debug("rows %s", start + 1)
            return t.narrow(0, start, size)
''')


def discovered(tmp_path: Path, source: str, operators=None, name="mod.py"):
    path = tmp_path / name
    path.write_text(source)
    target = Target("demo", tmp_path, [path], ["tests"])
    return discover_file(target, path, operators or all_operators())


def test_same_code_gives_the_same_mutant_ids(tmp_path):
    first = [m.id for m in discovered(tmp_path, SOURCE).mutants]
    second = [m.id for m in discovered(tmp_path, SOURCE).mutants]
    assert first == second and len(first) == len(set(first))


def test_ids_survive_an_unrelated_edit_above_the_function(tmp_path):
    before = {m.id for m in discovered(tmp_path, SOURCE).mutants if m.function == "Batch.rows"}
    shifted = SOURCE.replace("class Batch:", "def helper():\n    return 1\n\n\nclass Batch:")
    after = {m.id for m in discovered(tmp_path, shifted).mutants if m.function == "Batch.rows"}
    assert before == after


def test_no_two_mutants_produce_the_same_code(tmp_path):
    codes = [m.code for m in discovered(tmp_path, SOURCE).mutants]
    assert len(codes) == len(set(codes))


def test_messages_docstrings_and_logging_are_not_mutated(tmp_path):
    found = discovered(tmp_path, SOURCE)
    assert found.arid > 0
    for mutant in found.mutants:
        assert "docstring" not in mutant.original
        assert mutant.line not in (13, 14), mutant.one_line  # the raise message and the log call


def test_the_condition_guarding_a_raise_is_still_mutated(tmp_path):
    found = discovered(tmp_path, SOURCE)
    assert any(m.line == 12 and m.operator == "generic.swap_op" for m in found.mutants)


def test_domain_mutants_carry_function_and_op(tmp_path):
    found = discovered(tmp_path, SOURCE, select_operators(["domain"]))
    assert {m.operator for m in found.mutants} == {"wrong_slice_start", "view_to_copy", "whole_batch"}
    assert {m.function for m in found.mutants} == {"Batch.rows"}
    assert {m.swap for m in found.mutants} == {"Batch.rows"}


def test_pragma_no_mutate_is_honoured_and_reported(tmp_path):
    source = SOURCE.replace("return t.narrow(0, start, size)", "return t.narrow(0, start, size)  # pragma: no mutate")
    found = discovered(tmp_path, source, select_operators(["domain"]))
    assert found.mutants and all(m.skip == "pragma: no mutate" for m in found.mutants)


def test_equivalence_annotation_applies_to_the_named_operator_with_its_reason(tmp_path):
    source = SOURCE.replace(
        "return t.narrow(0, start, size)",
        "return t.narrow(0, start, size)  # teeth: equivalent(view_to_copy): callers never edit in place")
    found = discovered(tmp_path, source, select_operators(["domain"]))
    skipped = {m.operator: m.skip for m in found.mutants}
    assert skipped["view_to_copy"] == "equivalent: callers never edit in place"
    assert skipped["whole_batch"] is None


def test_a_default_argument_mutant_is_applied_at_module_level(tmp_path):
    found = discovered(tmp_path, "def f(x, k=1):\n    return x * k\n")
    default = next(m for m in found.mutants if m.line == 1)
    assert default.function == "f" and default.swap == ""
    body = next(m for m in found.mutants if m.line == 2)
    assert body.swap == "f"


def test_nested_function_mutants_swap_the_outer_function(tmp_path):
    found = discovered(tmp_path, "def outer(x):\n    def inner(y):\n        return y + 1\n    return inner(x)\n")
    inner = next(m for m in found.mutants if m.line == 3)
    assert inner.function == "outer.<locals>.inner" and inner.swap == "outer"


def test_unparsable_target_file_is_reported_with_file_and_line(tmp_path):
    with pytest.raises(ConfigError, match=r"mod.py:2: cannot parse"):
        discovered(tmp_path, "x = 1\ndef broken(:\n")


ARID_EXTRAS = textwrap.dedent('''\
    __all__ = ["rows", "Batch"]


    class RowsError(ValueError):
        def __repr__(self):
            return "RowsError(" + str(self.args) + ")"


    def rows(t, n):
        error = RowsError(f"need {n + 1} rows")
        return t[n:] if n > 0 else error
''')


def test_export_lists_repr_and_exception_messages_are_arid(tmp_path):
    found = discovered(tmp_path, ARID_EXTRAS)
    lines = {m.line for m in found.mutants}
    assert 1 not in lines, "the __all__ export list"
    assert 6 not in lines, "the body of __repr__"
    assert not any(m.line == 10 and m.operator != "generic.assignment" for m in found.mutants), \
        "the message given to an exception class"
    assert 11 in lines  # the code around them is still mutated
    assert found.arid >= 5


def test_a_splice_is_seen_through_the_names_its_function_binds(tmp_path):
    source = textwrap.dedent('''\
        import torch


        def widen(full, edited, start, size):
            pre = full.narrow(0, 0, start)
            post = full.narrow(0, start + size, full.shape[0] - start - size)
            return torch.cat([pre, edited, post], dim=0)


        def other(pre, edited, post):
            return torch.cat([pre, edited, post], dim=0)
    ''')
    found = discovered(tmp_path, source, select_operators(["dropped_replacement"])).mutants
    assert [(m.function, m.original, m.replacement) for m in found] == [
        ("widen", "torch.cat([pre, edited, post], dim=0)", "full")]


NESTED = '''
class Recipe:
    def plan(self, axes, lengths):
        if axes:
            # a multi-line node inside an indented block: libcst generates it at column 0
            added = {
                pos: lengths[pos]
                for pos in axes
                if pos >= 0
            }
            total = sum(
                added.values()
            ) + 1
            return added, total
        return {}, 0
'''


def test_nested_multiline_mutants_are_spliced_as_the_tree_would_print_them(tmp_path, monkeypatch):
    """Each mutant's code is the text of the tree with the node replaced (what deep_replace prints), found without
    rebuilding the tree: the rebuild cost 300 ms a mutant in a 900-line file."""
    import libcst as cst

    import teeth.discovery.discover

    path = tmp_path / "nested.py"
    path.write_text(NESTED)
    target = Target(name="t", root=tmp_path, files=[path], tests=["tests"])
    rebuilt = []
    deep_replace = cst.Module.deep_replace
    monkeypatch.setattr(cst.Module, "deep_replace", lambda *a: rebuilt.append(1) or deep_replace(*a))
    fast = discover_file(target, path, select_operators(["generic"])).mutants
    assert sum("\n" in m.original for m in fast) >= 2 and not rebuilt
    monkeypatch.setattr(teeth.discovery.discover, "_indent_shift", lambda span, text: None)  # the tree rebuild, every time
    slow = discover_file(target, path, select_operators(["generic"])).mutants
    assert rebuilt and [(m.id, m.code, m.diff) for m in fast] == [(m.id, m.code, m.diff) for m in slow]
