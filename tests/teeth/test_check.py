"""`teeth check` end to end in real git repos: scope, gate, exit codes, and bad input."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.helpers.cli import assert_one_line_error, teeth_in_process
from tests.helpers.git_projects import (TAKE_ROWS, TAKE_ROWS_CHANGED, TOTAL, TOTAL_CHANGED, check, check_runs, edit,
                                        git, git_repo, outcomes)


def check_bad_input(teeth, root: Path, *args: str):
    """`teeth check ARGS` in process: bad input is refused before any worker starts."""
    return teeth_in_process("check", *args, "--db", teeth.db, cwd=root)


def test_check_runs_only_the_mutants_of_the_changed_function_and_passes(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TOTAL, TOTAL_CHANGED)
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = check_runs(teeth.db)
    rows = outcomes(teeth.db, run["id"])
    assert rows and {r["function"] for r in rows} == {"total"}
    assert "changed functions: rows.py: total" in done.stdout
    assert "no completed `teeth run` recorded at the base commit" in done.stdout  # no drop check, and it says so
    assert json.loads(run["options"])["merge_base"] == git(root, "rev-parse", "main")


def test_uncommitted_changes_are_checked_and_a_surviving_required_mutant_fails_with_exit_1(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED, commit=False)
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "required: rows.py:" in done.stdout and "wrong_slice_start" in done.stdout
    assert "mutant(s) of a required bug class survived" in done.stdout
    (run,) = check_runs(teeth.db)
    assert {r["function"] for r in outcomes(teeth.db, run["id"])} == {"take_rows"}


def test_kill_rate_under_fail_under_fails_the_gate(project, teeth):
    root = git_repo(project("weak_suite"), required_operators="[]", fail_under="0.9")
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    done = check(teeth, root)  # --base defaults to main
    assert done.returncode == 1, done.stdout + done.stderr
    assert "is under fail_under 90.0%" in done.stdout
    assert "required bug class" not in done.stdout.split("FAILED:", 1)[1]


def check_against_a_filtered_base(project, teeth, *filters: str):
    """`teeth check` of a change whose base commit has only a `teeth run` with these filters (run 1)."""
    root = git_repo(project("weak_suite"), required_operators="[]")
    git(root, "checkout", "-q", "main")
    assert teeth("run", "--target", "rows", *filters, cwd=root).returncode == 0  # a slice of the base's mutants
    git(root, "checkout", "-q", "feature")
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    done = check(teeth, root)
    assert "no completed `teeth run` recorded at the base commit" in done.stdout, done.stdout
    assert "(run 1)" not in done.stdout and "dropped below" not in done.stdout


def test_a_run_filtered_by_operator_is_not_the_base_commits_rate(project, teeth):
    check_against_a_filtered_base(project, teeth, "--operator", "whole_batch")


def test_a_run_filtered_by_profile_is_not_the_base_commits_rate(project, teeth):
    check_against_a_filtered_base(project, teeth, "--profile", "cpu")


def test_fail_under_given_as_a_percentage_is_a_config_error(project, teeth):
    root = git_repo(project("weak_suite"), fail_under="80")
    edit(root, TOTAL, TOTAL_CHANGED)
    assert_one_line_error(check_bad_input(teeth, root), "fail_under = 80 (int): expected a fraction from 0 to 1")
    assert not teeth.db.exists()


def test_a_base_ref_that_does_not_exist_is_one_line_exit_2_and_writes_nothing(project, teeth):
    root = git_repo(project("weak_suite"))
    assert_one_line_error(check_bad_input(teeth, root, "--base", "no-such-branch"),
                          "base ref 'no-such-branch' does not exist")
    assert not teeth.db.exists()


def test_outside_a_git_repository_is_one_line_exit_2(project, teeth):
    root = project("weak_suite")
    assert_one_line_error(check_bad_input(teeth, root), "is not in a git repository")


def test_a_shallow_clone_without_the_base_is_one_line_exit_2(project, teeth, tmp_path):
    origin = git_repo(project("weak_suite"))
    edit(origin, TOTAL, TOTAL_CHANGED)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", "--branch", "feature",
        f"file://{origin}", str(clone))
    assert_one_line_error(check_bad_input(teeth, clone, "--base", "origin/main"), "no merge-base", "shallow clone",
                          "fetch-depth: 0")
    assert_one_line_error(check_bad_input(teeth, clone, "--base", "main"), "does not exist", "shallow clone")
    assert not teeth.db.exists()


def test_a_change_that_touches_no_target_file_nor_test_is_one_line_exit_2_and_writes_nothing(project, teeth):
    root = git_repo(project("weak_suite"))
    (root / "NOTES.md").write_text("docs only\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs only")
    assert_one_line_error(check_bad_input(teeth, root, "--base", "main"), "touches no file nor test of rows",
                          "nothing to check", "paths filter")
    assert not teeth.db.exists()


def test_a_change_that_only_edits_a_conftest_of_the_tests_is_checked_not_refused(project, teeth):
    root = git_repo(project("weak_suite"))
    (root / "tests" / "conftest.py").write_text("import pytest\n\n\n@pytest.fixture\ndef rows():\n    return 3\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a fixture for the tests")
    result = check(teeth, root, "--base", "main")
    assert result.returncode == 0, result.stderr
    assert "touches no file nor test" not in result.stderr


def test_a_database_from_a_newer_schema_is_refused_and_left_byte_identical(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TOTAL, TOTAL_CHANGED)
    teeth.db.parent.mkdir(parents=True)
    with sqlite3.connect(teeth.db) as conn:
        conn.execute("create table runs (id integer primary key)")
        conn.execute("PRAGMA user_version = 99")
    before = teeth.db.read_bytes()
    assert_one_line_error(check_bad_input(teeth, root), "has schema 99, newer than this teeth")
    assert teeth.db.read_bytes() == before
