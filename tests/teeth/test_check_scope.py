"""Which mutants a change puts in scope: merge-base diff hunks against whole function spans."""

from __future__ import annotations

from types import SimpleNamespace

from tests.helpers.git_projects import git

from teeth.gate.changes import changed_lines, in_scope
from teeth.syntax.functions import function_index

SOURCE = '''LIMIT = 3


@decorated
def first(x):
    return x + 1


class Rows:
    def take(self, x):
        def inner(y):
            return y * 2
        return inner(x)


def last(x):
    return x - 1
'''


def mutant(path, function, line, end_line=None):
    return SimpleNamespace(path=str(path), function=function, line=line, end_line=end_line or line, file="m.py")


def repo_with(tmp_path, source=SOURCE):
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "m.py").write_text(source)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path / "m.py"


def test_function_spans_use_discovers_qualified_names_and_include_decorators():
    index = function_index(SOURCE)
    assert index.spans("first") == [(4, 6)]
    assert index.spans("Rows.take") == [(10, 13)] and index.spans("Rows.take.<locals>.inner") == [(11, 12)]


def test_a_change_inside_a_nested_function_puts_the_whole_outer_function_in_scope(tmp_path):
    path = repo_with(tmp_path)
    path.write_text(SOURCE.replace("y * 2", "y * 3"))
    changes = changed_lines("main", [path], tmp_path)
    assert changes.lines == {str(path.resolve()): {12}}
    candidates = [mutant(path, "Rows.take", 13), mutant(path, "Rows.take.<locals>.inner", 12),
                  mutant(path, "first", 6), mutant(path, "last", 18), mutant(path, "", 1)]
    assert [m.function for m in in_scope(candidates, changes)] == ["Rows.take", "Rows.take.<locals>.inner"]


def test_a_deleted_line_marks_the_function_it_was_deleted_from(tmp_path):
    path = repo_with(tmp_path)
    path.write_text(SOURCE.replace("        return inner(x)\n", ""))
    changes = changed_lines("main", [path], tmp_path)
    assert [m.function for m in in_scope([mutant(path, "Rows.take", 11), mutant(path, "last", 16)], changes)] \
        == ["Rows.take"]


def test_module_level_mutants_are_in_scope_by_their_own_lines(tmp_path):
    path = repo_with(tmp_path)
    path.write_text(SOURCE.replace("LIMIT = 3", "LIMIT = 4"))
    changes = changed_lines("main", [path], tmp_path)
    assert [m.line for m in in_scope([mutant(path, "", 1), mutant(path, "first", 6)], changes)] == [1]


def test_an_untracked_target_file_is_changed_throughout(tmp_path):
    repo_with(tmp_path)
    new = tmp_path / "new.py"
    new.write_text("def f():\n    return 1\n")
    changes = changed_lines("main", [new], tmp_path)
    assert changes.lines == {str(new.resolve()): {1, 2}}


def test_an_unchanged_tree_has_no_changed_lines(tmp_path):
    path = repo_with(tmp_path)
    assert changed_lines("main", [path], tmp_path).lines == {}
