"""`teeth history` end to end: two runs of weak_suite, the second after a test that reads row 1 is added."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.helpers.cli import assert_one_line_error, teeth_cli, teeth_in_process, two_runs_of_weak_suite


@pytest.fixture(scope="module")
def weak_suite_history(tmp_path_factory):
    return two_runs_of_weak_suite(tmp_path_factory.mktemp("history"))


def history(weak_suite_history, *args: str) -> subprocess.CompletedProcess:
    root, db = weak_suite_history
    return teeth_cli("history", "--db", str(db), *args, cwd=root)


def test_history_json_shows_the_kill_rate_of_take_rows_rising_once_row_one_is_tested(weak_suite_history):
    done = history(weak_suite_history, "--format", "json", "--op", "take_rows")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(r["run"], r["op"], r["profile"]) for r in rows] == [(1, "take_rows", "cpu"), (2, "take_rows", "cpu")]
    assert rows[0]["survived"] > 0 and rows[0]["kill_rate"] < rows[1]["kill_rate"]


def test_history_table_lists_the_runs_and_a_sparkline_per_op_and_profile(weak_suite_history):
    done = history(weak_suite_history)
    assert done.returncode == 0, done.stderr
    assert "runs (oldest first)" in done.stdout
    for op in ("(all ops)", "take_rows", "total"):
        line = next(line for line in done.stdout.splitlines() if f" {op} " in line)
        assert "cpu" in line and "%" in line
    take = next(line for line in done.stdout.splitlines() if " take_rows " in line)
    assert re.search(r"[▁▂▃▄▅▆▇█]{2}", take) and re.search(r"\+\d+\.\d", take)  # two runs; rose


def test_history_csv_has_a_header_and_a_line_per_run_op_and_profile(weak_suite_history):
    done = history(weak_suite_history, "--format", "csv")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("run,target,started_at,commit") and len(lines) == 1 + 4


def test_history_since_a_run_id_leaves_out_earlier_runs(weak_suite_history):
    done = history(weak_suite_history, "--since", "2", "--format", "json")
    assert {r["run"] for r in json.loads(done.stdout)} == {2}


def test_history_since_a_later_date_is_empty_not_an_error(weak_suite_history):
    done = history(weak_suite_history, "--since", "2999-01-01")
    said = " ".join(done.stdout.split())
    assert done.returncode == 0 and "2 runs with outcomes left out (2 before --since)" in said, said


@pytest.mark.parametrize("args, fragment", [
    (("--since", "last-week"), "--since takes a date (YYYY-MM-DD) or a run id, not 'last-week'"),
    (("--since", "7"), "no run 7"),
    (("--target", "nope"), "no runs of target 'nope'"),
    (("--op", "nope"), "unknown op 'nope'"),
])
def test_history_bad_input_is_one_line_and_exit_2(weak_suite_history, args, fragment):
    root, db = weak_suite_history
    assert_one_line_error(teeth_in_process("history", "--db", db, *args, cwd=root), fragment)


def test_history_without_a_database_is_one_line_and_creates_none(tmp_path):
    missing = tmp_path / "db" / "teeth.db"
    assert_one_line_error(teeth_in_process("history", "--db", missing, cwd=tmp_path), "no teeth database")
    assert not missing.exists() and not missing.parent.exists()
