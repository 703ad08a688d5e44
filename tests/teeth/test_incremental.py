"""Incremental checks: outcomes are reused while their cache key holds, and no worker starts when all are."""

from __future__ import annotations

import json
import sqlite3

from tests.helpers.git_projects import TAKE_ROWS, TAKE_ROWS_CHANGED, check, check_runs, edit, git_repo, outcomes

from teeth.store.db import SCHEMA_VERSION, Store


def test_an_unchanged_tree_runs_no_mutant_and_starts_no_worker(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    first = check(teeth, root)
    second = check(teeth, root)
    assert first.returncode == second.returncode == 1, second.stdout + second.stderr
    one, two = check_runs(teeth.db)
    assert "baseline.cpu" in json.loads(one["timings"]) and "baseline.cpu" not in json.loads(two["timings"])
    assert "0 run, 7 reused; no worker started" in second.stdout
    before, after = outcomes(teeth.db, one["id"]), outcomes(teeth.db, two["id"])
    assert len(after) == len(before) == 7  # every run is complete
    assert {r["reused_from"] for r in after} == {one["id"]}
    assert all(r["detail"].startswith(f"reused from run {one['id']}") for r in after)
    assert sorted((r["mutant_id"], r["status"]) for r in after) == sorted((r["mutant_id"], r["status"]) for r in before)


def test_no_cache_runs_every_mutant_in_scope_again(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    check(teeth, root)
    done = check(teeth, root, "--no-cache")
    assert "7 in scope, 7 run, 0 reused" in done.stdout, done.stdout + done.stderr
    assert {r["reused_from"] for r in outcomes(teeth.db, check_runs(teeth.db)[-1]["id"])} == {None}


def test_a_full_run_records_keys_that_check_reuses(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    done = check(teeth, root)
    assert "0 run, 7 reused; no worker started" in done.stdout, done.stdout + done.stderr


def test_a_new_test_file_reruns_the_survivors_and_its_kill_is_reported(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    check(teeth, root)
    (root / "tests" / "test_more_rows.py").write_text(
        "from rows import take_rows\n\n\ndef test_later_rows_are_taken():\n"
        "    assert take_rows([10, 11, 12, 13], 1, 2) == [11, 12]\n")
    done = check(teeth, root)
    rows = outcomes(teeth.db, check_runs(teeth.db)[-1]["id"])
    rerun = [r for r in rows if not r["reused_from"]]  # an added test: the check runs the full matrix, no reuse
    assert rerun and "newly killed: " in done.stdout, done.stdout
    assert any(r["killed_by"] and "test_more_rows" in r["killed_by"] for r in rerun)  # the new test kills a survivor


def test_a_changed_profile_reruns_everything(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    check(teeth, root)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]\n', 'tests = ["tests"]\npytest_args = ["-x"]\n'))
    assert "7 run, 0 reused" in check(teeth, root).stdout


def test_a_schema_1_database_is_migrated_to_the_newest_with_its_rows_kept(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute("create table runs (id integer primary key, target text, started_at text, finished_at text, "
                     "status text, [commit] text, dirty integer, profiles text, operators text, versions text, "
                     "timings text, totals text, options text)")
        conn.execute("create table outcomes (run_id integer, mutant_id text, profile text, status text, "
                     "killed_by text, [check] text, duration float, tests_run integer, test_seconds float, "
                     "detail text, primary key (run_id, mutant_id, profile))")
        conn.execute("insert into runs (id, target, status) values (1, 'rows', 'completed')")
        conn.execute("insert into outcomes (run_id, mutant_id, profile, status) values (1, 'abc', 'cpu', 'killed')")
        conn.execute("PRAGMA user_version = 1")
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {"cache_key", "reused_from"} <= set(store.db["outcomes"].columns_dict)
    assert {"covers", "test_key", "profile_key", "lines"} <= set(store.db["tests"].columns_dict)
    assert [r["status"] for r in store.db["outcomes"].rows] == ["killed"]
