"""Discovery at scale: each mutant is an edit of its file's text, compiled within the unit it changes and diffed
around the change, the same mutants as compiling and diffing every mutant's whole file; operators are matched to a
node by its type once; and a run's timings start when the command does, discovery included."""

from __future__ import annotations

import difflib
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teeth.config.targets import Target, load_config
from teeth.discovery.discover import discover, discover_source
from teeth.discovery.edits import SourceText, edit_between
from teeth.operators import Operator, select_operators
from teeth.discovery.testing import mutants_of
from tests.helpers.whole_file import fingerprint, whole_file_discovery

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["batcher", "kernels"])
def test_every_mutant_of_the_targets_is_the_one_whole_file_compiling_and_diffing_makes(name):
    target = load_config(ROOT / "pyproject.toml").target(name)
    operators = select_operators(None)
    fast = discover(target, operators)
    with whole_file_discovery():
        whole = discover(target, operators)
    assert fast.mutants and fingerprint(fast) == fingerprint(whole)


def text_of(source: str) -> SourceText:
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(cst.parse_module(source))
    positions = wrapper.resolve(PositionProvider)
    return SourceText(source, [(positions[s].start.line, positions[s].end.line) for s in wrapper.module.body], "m.py")


def edit(source: str, old: str, new: str, occurrence: int = 0):
    at = -1
    for _ in range(occurrence + 1):
        at = source.index(old, at + 1)
    return at, at + len(old), new


METHOD = textwrap.dedent('''\
    class Rows:
        """Docstring
    at column 0."""

        @staticmethod
        def first(rows):
            for row in rows:
                return row
    ''')


def test_a_change_in_a_method_is_compiled_as_its_file_would_be():
    text = text_of(METHOD)
    method = (5, 8)  # decorator to last line
    assert text.compiles(edit(METHOD, "return row", "return rows"), method)
    assert not text.compiles(edit(METHOD, "for row in rows:\n            return row", "break"), method)
    assert not text.compiles(edit(METHOD, "return row", "return row = 1"), method)


def test_a_form_feed_which_splitlines_counts_as_a_line_break_and_python_does_not_shifts_no_unit():
    source = "x = 1\n\x0c\ndef f(a):\n    y = a + 1\n    return (y +\n            2)\n"
    target = Target(name="t", root=Path("."), files=[Path("m.py")], tests=[])
    fast = discover_source(target, Path("m.py"), source, select_operators(["generic"]))
    with whole_file_discovery():
        whole = discover_source(target, Path("m.py"), source, select_operators(["generic"]))
    assert fast.mutants and fast.unviable == 0 and fingerprint(fast) == fingerprint(whole)


def test_a_change_at_module_level_is_compiled_within_its_statement():
    source = "def f():\n    return 1\n\n\nx = [1, 2]\n"
    text = text_of(source)
    assert text.compiles(edit(source, "[1, 2]", "[1]"), None)
    assert not text.compiles(edit(source, "x = [1, 2]", "return [1, 2]"), None)  # return outside a function


def test_the_files_future_imports_hold_when_one_function_is_compiled_alone():
    source = "from __future__ import barry_as_FLUFL\n\n\ndef same(a, b):\n    return a == b\n"
    text = text_of(source)
    assert text.compiles(edit(source, "==", "<>"), (4, 5))  # only valid under barry_as_FLUFL
    assert not text.compiles(edit(source, "==", "!="), (4, 5))


def test_a_module_level_global_makes_module_level_changes_compile_the_whole_file():
    source = "y = 0\nglobal x\n"
    text = text_of(source)
    assert not text.compiles(edit(source, "y = 0", "x = 0"), None)  # assigned before its global declaration


def test_a_file_that_does_not_compile_marks_every_change_unviable():
    source = "def f():\n    return 1\n\n\nreturn 2\n"
    text = text_of(source)
    assert not text.compiles(edit(source, "return 1", "return 3"), (1, 2))


def test_the_diff_of_a_change_is_difflibs_diff_of_the_whole_file():
    source = "".join(f"line_{i} = {i}\n" for i in range(400))
    text = text_of(source)
    for change in [edit(source, "line_0 = 0", "line_0 = 1"), edit(source, "line_399 = 399\n", ""),
                   edit(source, "line_200 = 200\n", "a = 1\nb = 2\n"), edit(source, "= 7\nline_8", "= 8\nline_7")]:
        after = change and source[:change[0]] + change[2] + source[change[1]:]
        whole = "".join(difflib.unified_diff(source.splitlines(True), after.splitlines(True), "a/m.py", "b/m.py",
                                             n=2))
        assert text.diff(change, "m.py") == whole


@pytest.mark.parametrize("source, change", [
    ("a\n" + "\n" * 6 + "c\n", (2, 3, "")),  # a line deleted from a run of equal lines: difflib deletes its last
    ("b\nd\nf\ne\na\nd\na\nd\ne\nf\nd\n", (8, 10, "x\ny")),  # text joined to the line after the change
])
def test_a_change_next_to_repeated_lines_is_aligned_as_in_the_whole_files_diff(source, change):
    after = source[:change[0]] + change[2] + source[change[1]:]
    whole = "".join(difflib.unified_diff(source.splitlines(True), after.splitlines(True), "a/m.py", "b/m.py", n=2))
    assert SourceText(source, [], "m.py").diff(change, "m.py") == whole


def patched(source: str, diff: str) -> str:
    """`source` with a unified diff applied."""
    lines, out, at = source.splitlines(True), [], 0
    for line in diff.splitlines(True)[2:]:
        if line.startswith("@@"):
            start = int(line.split()[1].split(",")[0][1:])
            start = start if "," not in line.split()[1] or not line.split()[1].endswith(",0") else start + 1
            out.extend(lines[at:start - 1])
            at = start - 1
        elif line[0] in " -":
            at += 1
            if line[0] == " ":
                out.append(line[1:])
        else:
            out.append(line[1:])
    return "".join(out + lines[at:])


LINES = st.lists(st.sampled_from(["a\n", "b\n", "\n", "    c\n", "d = 1\n"]), min_size=1, max_size=300)


@settings(max_examples=200, deadline=None)
@given(LINES, st.data())
def test_the_diff_of_any_change_turns_the_file_into_the_mutated_one(lines, data):
    source = "".join(lines)
    start = data.draw(st.integers(0, len(source)))
    end = data.draw(st.integers(start, min(len(source), start + 20)))
    change = (start, end, data.draw(st.sampled_from(["", "x", "a\n", "\n", "b\nz", "q\nq\n"])))
    after = source[:start] + change[2] + source[end:]
    diff = SourceText(source, [], "m.py").diff(change, "m.py")
    assert (diff == "") == (after == source) and patched(source, diff) == after


def test_the_edit_between_two_texts_is_what_lies_between_their_common_ends():
    assert edit_between("abcdef", "abXYef") == (2, 4, "XY")
    assert edit_between("aaa", "aaaa") == (3, 3, "a")
    assert edit_between("same", "same") == (4, 4, "")


SLOW_DISCOVERY = """
import sys, time
import teeth.discovery.cache
discover = teeth.discovery.cache.DiscoveryCache.discover
def slow(self, *args):
    time.sleep(1.5)
    return discover(self, *args)
teeth.discovery.cache.DiscoveryCache.discover = slow
from teeth.cli import main
main(["run", "--target", "rows", "--db", sys.argv[1]])
"""


def test_a_runs_discovery_timing_starts_when_the_command_does(project, tmp_path):
    root, db = project("weak_suite"), tmp_path / "teeth.db"
    done = subprocess.run([sys.executable, "-c", SLOW_DISCOVERY, str(db)], cwd=root, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TEETH_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    timings = json.loads(sqlite3.connect(db).execute("select timings from runs").fetchone()[0])
    assert timings["discover"] >= 1.5 and timings["total"] >= timings["discover"]


class RenameB(Operator):
    """Only `b` is renamed: an operator whose applies_to looks at more than the node's type."""

    name = "rename_b"
    node_types = (cst.Name,)

    def applies_to(self, node):
        return isinstance(node, cst.Name) and node.value == "b"

    def mutate(self, node, ctx):
        yield node.with_changes(value="c")


def test_an_operator_that_overrides_applies_to_is_asked_for_every_node():
    assert mutants_of(RenameB(), "x = a + b\n") == ["x = a + c\n"]
    assert mutants_of(select_operators(["whole_batch"])[0], "a = t[i:j]\nb = u[k:l]\n") == [
        "a = t\nb = u[k:l]\n", "a = t[i:j]\nb = u\n"]
