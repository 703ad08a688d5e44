"""Bad input gets one line on stderr and exit 2, never a traceback, and changes nothing."""

from __future__ import annotations

def assert_one_line_error(done, *fragments):
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_unknown_target_lists_the_known_ones(project, teeth):
    root = project("weak_suite")
    assert_one_line_error(teeth("run", "--target", "nope", cwd=root), "unknown target 'nope'", "rows")


def test_unknown_operator(project, teeth):
    root = project("weak_suite")
    assert_one_line_error(teeth("run", "--target", "rows", "--operator", "nope", cwd=root),
                          "unknown operator 'nope'")


def test_unknown_op_lists_the_ops_with_mutants(project, teeth):
    root = project("weak_suite")
    assert_one_line_error(teeth("run", "--target", "rows", "--op", "nope", cwd=root),
                          "unknown op 'nope'", "take_rows")


def test_unknown_profile(project, teeth):
    root = project("weak_suite")
    assert_one_line_error(teeth("run", "--target", "rows", "--profile", "nope", cwd=root), "unknown profile 'nope'")


def test_unparsable_target_file_names_file_and_line(project, teeth):
    root = project("weak_suite")
    (root / "rows.py").write_text("def take_rows(batch, start, size):\n    return batch[start:\n")
    assert_one_line_error(teeth("run", "--target", "rows", cwd=root), "rows.py:", "cannot parse")


def test_missing_test_path(project, teeth):
    root = project("weak_suite")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]', 'tests = ["tests/missing"]'))
    assert_one_line_error(teeth("run", "--target", "rows", cwd=root), "test path not found: tests/missing")


def test_db_path_that_is_a_directory(project, teeth, tmp_path):
    root = project("weak_suite")
    assert_one_line_error(teeth("run", "--target", "rows", "--db", str(tmp_path), cwd=root, use_db=False),
                          "cannot use database")


def test_db_path_under_a_file(project, teeth, tmp_path):
    root = project("weak_suite")
    blocker = tmp_path / "plain-file"
    blocker.write_text("not a directory")
    assert_one_line_error(teeth("run", "--target", "rows", "--db", str(blocker / "t.db"), cwd=root, use_db=False),
                          "cannot use database")
    assert blocker.read_text() == "not a directory"


def test_no_config_anywhere(tmp_path, teeth):
    assert_one_line_error(teeth("run", "--target", "rows", cwd=tmp_path), "no [tool.teeth] table")


def test_results_without_a_database(tmp_path, teeth):
    done = teeth("results", "--db", str(tmp_path / "absent.db"), cwd=tmp_path, use_db=False)
    assert_one_line_error(done, "no teeth database")
    assert not (tmp_path / "absent.db").exists()


def test_newer_schema_is_refused_and_left_alone(tmp_path, teeth):
    import sqlite3

    path = tmp_path / "future.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    assert_one_line_error(teeth("results", "--db", str(path), cwd=tmp_path, use_db=False), "newer than this teeth")
    assert path.read_bytes() == before
