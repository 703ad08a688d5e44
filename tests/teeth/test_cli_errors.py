"""Bad input gets one line on stderr and exit 2, never a traceback, and changes nothing (in process: nothing forks)."""

from __future__ import annotations

import pytest

from tests.helpers.cli import assert_one_line_error, teeth_in_process


@pytest.fixture
def weak_suite(project, tmp_path):
    """The weak_suite project, and `teeth ARGS --db STATE` run in it."""
    root = project("weak_suite")

    def teeth(*args: str):
        return teeth_in_process(*args, "--db", tmp_path / "state" / "teeth.db", cwd=root)

    teeth.root = root
    return teeth


def test_unknown_target_lists_the_known_ones(weak_suite):
    assert_one_line_error(weak_suite("run", "--target", "nope"), "unknown target 'nope'", "rows")


def test_unknown_operator(weak_suite):
    assert_one_line_error(weak_suite("run", "--target", "rows", "--operator", "nope"), "unknown operator 'nope'")


def test_unknown_op_lists_the_ops_with_mutants(weak_suite):
    assert_one_line_error(weak_suite("run", "--target", "rows", "--op", "nope"), "unknown op 'nope'", "take_rows")


def test_unknown_profile(weak_suite):
    assert_one_line_error(weak_suite("run", "--target", "rows", "--profile", "nope"), "unknown profile 'nope'")


def test_unparsable_target_file_names_file_and_line(weak_suite):
    (weak_suite.root / "rows.py").write_text("def take_rows(batch, start, size):\n    return batch[start:\n")
    assert_one_line_error(weak_suite("run", "--target", "rows"), "rows.py:", "cannot parse")


def test_missing_test_path(weak_suite):
    pyproject = weak_suite.root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]', 'tests = ["tests/missing"]'))
    assert_one_line_error(weak_suite("run", "--target", "rows"), "test path not found: tests/missing")


def test_db_path_that_is_a_directory(project, tmp_path):
    root = project("weak_suite")
    assert_one_line_error(teeth_in_process("run", "--target", "rows", "--db", tmp_path, cwd=root),
                          "cannot use database")


def test_db_path_under_a_file(project, tmp_path):
    root = project("weak_suite")
    blocker = tmp_path / "plain-file"
    blocker.write_text("not a directory")
    assert_one_line_error(teeth_in_process("run", "--target", "rows", "--db", blocker / "t.db", cwd=root),
                          "cannot use database")
    assert blocker.read_text() == "not a directory"


def test_no_config_anywhere(tmp_path):
    assert_one_line_error(teeth_in_process("run", "--target", "rows", cwd=tmp_path), "no [tool.teeth] table")


def test_results_without_a_database(tmp_path):
    assert_one_line_error(teeth_in_process("results", "--db", tmp_path / "absent.db", cwd=tmp_path),
                          "no teeth database")
    assert not (tmp_path / "absent.db").exists()


def test_newer_schema_is_refused_and_left_alone(tmp_path):
    import sqlite3

    path = tmp_path / "future.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    assert_one_line_error(teeth_in_process("results", "--db", path, cwd=tmp_path), "newer than this teeth")
    assert path.read_bytes() == before


def test_python_dash_m_teeth_is_the_teeth_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "teeth", "operators", "--format", "json"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "wrong_slice_start" in done.stdout


@pytest.mark.parametrize(("args", "fragment"), [
    (("run", "--target", "rows", "--jobs", "0"), "'--jobs'"),
    (("results", "--format", "bogus"), "'--format'"),
    (("run",), "'--target'"),
    (("serve", "--port", "70000"), "'--port'"),
    (("serve", "token", "create"), "'NAME'"),
    (("bogus",), "'bogus'"),
    (("--bogus",), "--bogus"),
])
def test_a_value_click_refuses_before_teeth_is_one_line_and_exit_2(tmp_path, args, fragment):
    result = teeth_in_process(*args, cwd=tmp_path)
    assert_one_line_error(result, fragment, "--help")
    assert "Usage:" not in result.output


def test_teeth_alone_still_prints_its_help(tmp_path):
    result = teeth_in_process(cwd=tmp_path)
    assert "Usage:" in result.output and "run" in result.output


def _files(root, *patterns: str, extra: str = "") -> None:
    """The target's `files` (and `extra` lines) in place of weak_suite's."""
    listed = ", ".join(f'"{p}"' for p in patterns)
    (root / "pyproject.toml").write_text(f'[tool.teeth.targets.rows]\nfiles = [{listed}]{extra}\ntests = ["tests"]\n'
                                         '\n[tool.pytest.ini_options]\npythonpath = ["."]\n')


def test_a_folder_named_like_a_target_file_is_one_line(weak_suite):
    (weak_suite.root / "adir.py").mkdir()
    _files(weak_suite.root, "adir.py")
    assert_one_line_error(weak_suite("run", "--target", "rows"), "adir.py", "is a folder, not a Python file")


@pytest.mark.parametrize("link", ["loop.py", "dangling.py"])
def test_a_symbolic_link_loop_or_a_dangling_link_as_a_target_file_is_one_line(weak_suite, link):
    (weak_suite.root / link).symlink_to(link if link == "loop.py" else "missing.py")
    _files(weak_suite.root, link)
    assert_one_line_error(weak_suite("run", "--target", "rows"), link)


def test_a_file_outside_the_targets_root_is_refused_unless_the_config_allows_it(weak_suite, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "calc.py").write_text("def double(x):\n    return x * 2\n")
    _files(weak_suite.root, "rows.py", "../other/calc.py")
    assert_one_line_error(weak_suite("run", "--target", "rows", "--op", "nope"), f"{other / 'calc.py'}",
                          "outside the target's root", "files_outside_root = true")
    _files(weak_suite.root, "rows.py", "../other/calc.py", extra="\nfiles_outside_root = true")
    # allowed: the config is read and the files discovered; only the unknown op is refused now
    assert_one_line_error(weak_suite("run", "--target", "rows", "--op", "nope"), "unknown op 'nope'")


def test_a_target_module_whose_package_fails_to_import_names_the_import_error(weak_suite, tmp_path, monkeypatch):
    """`modules = ["pkg.sub"]` imports `pkg` to find `sub`: when that import fails (a dependency missing), the one
    line says so, with the error, instead of calling the module not importable."""
    site = tmp_path / "site"
    (site / "teeth_broken_pkg").mkdir(parents=True)
    (site / "teeth_broken_pkg" / "__init__.py").write_text("import teeth_no_such_dependency\n")
    (site / "teeth_broken_pkg" / "sub.py").write_text("def double(x):\n    return x * 2\n")
    monkeypatch.syspath_prepend(str(site))
    (weak_suite.root / "pyproject.toml").write_text('[tool.teeth.targets.rows]\nmodules = ["teeth_broken_pkg.sub"]\n'
                                                    'tests = ["tests"]\n')
    assert_one_line_error(weak_suite("run", "--target", "rows"), "'teeth_broken_pkg.sub'",
                          "ModuleNotFoundError", "teeth_no_such_dependency")
