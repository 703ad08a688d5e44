"""Flakiness is detected, not counted: a failing baseline test runs again; one that then passes is named as flaky
and never kill evidence (or the run refuses, as the target says); a kill by a known-flaky test is never reused."""

from __future__ import annotations

import json
import sqlite3

from tests.helpers.cli import results_of

FLAKY = "tests/test_flaky.py::test_fails_on_its_first_call"


def test_a_test_that_passes_on_a_retry_is_named_flaky_and_kills_nothing(project, teeth):
    root = project("flaky_baseline")
    done = teeth("run", "--target", "flaky", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "flaky" in done.stdout and FLAKY in done.stdout
    rows = results_of(teeth, root)
    label = [r for r in rows if r["function"] == "label"]
    assert label and {r["status"] for r in label} == {"no_coverage"}  # only the flaky test runs it
    assert FLAKY not in {r["killed_by"] for r in rows}
    assert {r["status"] for r in rows if r["function"] == "double"} == {"killed"}


def test_a_target_that_refuses_flaky_tests_stops_with_one_line_naming_the_test(project, teeth):
    root = project("flaky_baseline")
    done = teeth("run", "--target", "flaky_refused", cwd=root)
    assert done.returncode == 3
    line = done.stderr.strip().splitlines()[-1]
    assert FLAKY in line and "flaky" in line and "AssertionError: flaky" in line


def test_a_failing_test_without_retries_fails_the_baseline(project, teeth):
    root = project("flaky_baseline")
    config = root / "pyproject.toml"
    config.write_text(config.read_text().replace('[tool.teeth.targets.flaky]\n',
                                                 '[tool.teeth.targets.flaky]\nbaseline_retries = 0\n'))
    done = teeth("run", "--target", "flaky", cwd=root)
    assert done.returncode == 3 and FLAKY in done.stderr and "AssertionError: flaky" in done.stderr


def test_a_kill_by_a_test_found_flaky_later_is_never_reused(project, teeth):
    root = project("weak_suite")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    killed = [r for r in results_of(teeth, root) if r["status"] == "killed"]
    killer = killed[0]["killed_by"]
    with sqlite3.connect(teeth.db) as conn:  # what a later baseline that found the killer flaky records
        conn.execute("update tests set failure = ? where test = ?",
                     [json.dumps({"test": killer, "detail": "AssertionError: flaky", "flaky": True}), killer])
    done = teeth("run", "--target", "rows", cwd=root)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(teeth.db) as conn:
        conn.row_factory = sqlite3.Row
        latest = conn.execute("select max(id) from runs").fetchone()[0]
        rows = {r["mutant_id"]: dict(r) for r in conn.execute("select * from outcomes where run_id = ?", [latest])}
    by_killer = [m["mutant"] for m in killed if m["killed_by"] == killer]
    assert all(rows[m]["reused_from"] is None for m in by_killer)
    others = [m["mutant"] for m in killed if m["killed_by"] != killer]
    assert all(rows[m]["reused_from"] is not None for m in others)
