"""`teeth badge`: the SVG and shields.io endpoint JSON of a target's latest kill rate; bad input is one line."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from types import SimpleNamespace

from tests.helpers.cli import assert_one_line_error, teeth_in_process
from tests.helpers.git_projects import TAKE_ROWS, TAKE_ROWS_CHANGED, check, edit, git, git_repo

from teeth.report import badge
from teeth.store.db import Store
from tests.helpers.mutants import record_outcome_rows

SVG = "{http://www.w3.org/2000/svg}"


def test_badge_writes_the_svg_and_the_endpoint_json_of_the_latest_run(weak_suite_run, tmp_path):
    out, endpoint = tmp_path / "kill-rate.svg", tmp_path / "kill-rate.json"
    done = weak_suite_run.teeth("badge", "--target", "rows", "--out", str(out), "--endpoint", str(endpoint))
    assert done.returncode == 0, done.stderr
    assert "kill rate 80.0% (run 1 of rows)" in done.stdout
    texts = [t.text for t in ElementTree.fromstring(out.read_text()).iter(f"{SVG}text")]
    assert texts == ["kill rate", "80.0%"]
    assert json.loads(endpoint.read_text()) == {"schemaVersion": 1, "label": "kill rate", "message": "80.0%",
                                                "color": "#b08800"}


def test_badge_defaults_to_badge_svg_beside_the_database_and_ignores_check_runs(project, teeth):
    root = git_repo(project("weak_suite"))
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    assert check(teeth, root, "--no-cache").returncode == 1  # a later run of the changed code only
    done = teeth("badge", "--target", "rows", "--db", str(teeth.db), cwd=root, use_db=False)
    assert done.returncode == 0, done.stderr
    assert "(run 1 of rows)" in done.stdout and ">80.0%<" in (teeth.db.parent / "badge.svg").read_text()
    assert not (root / "badge.svg").exists()


def test_a_run_and_a_badge_with_the_default_paths_leave_a_users_checkout_clean(project, teeth):
    root = git_repo(project("weak_suite"))
    assert teeth("run", "--target", "rows", cwd=root, use_db=False).returncode == 0
    done = teeth("badge", "--target", "rows", cwd=root, use_db=False)
    assert done.returncode == 0, done.stderr
    assert (root / "db" / "teeth.db").is_file() and (root / "db" / "badge.svg").is_file()
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""  # db/ ignores itself


def test_the_badge_shows_the_run_teeth_results_lists_or_says_it_has_no_outcome(tmp_path):
    store = Store(tmp_path / "teeth.db")
    measured = store.start_run("rows", ["cpu"], [], {})
    store.record_mutants([SimpleNamespace(id="m1", target="rows", file="rows.py", line=1, end_line=1, function="f",
                                          op="f", operator="x", original="a", replacement="b", diff="", skip=None)])
    record_outcome_rows(store, measured, [{"mutant_id": "m1", "profile": "cpu", "status": "killed"}])
    store.finish_run(measured, "completed", {}, {})
    store.finish_run(store.start_run("rows", ["cpu"], [], {}), "failed", {}, {})  # its baseline failed, say
    store.close()
    listed = teeth_in_process("results", "--target", "rows", "--db", tmp_path / "teeth.db", cwd=tmp_path)
    assert listed.exit_code == 0 and "run 2 (teeth run, rows" in listed.output, listed.output
    done = teeth_in_process("badge", "--target", "rows", "--db", tmp_path / "teeth.db", cwd=tmp_path)
    assert_one_line_error(done, "run 2 (teeth run, rows", "recorded no outcome", "teeth results --target rows")
    assert not (tmp_path / "badge.svg").exists()


def test_badge_of_a_target_without_runs_is_one_line_and_exit_2(weak_suite_run, tmp_path):
    root, db = weak_suite_run.root, weak_suite_run.db
    done = teeth_in_process("badge", "--target", "nope", "--db", db, cwd=root)
    assert_one_line_error(done, "no whole `teeth run` of target 'nope'")
    assert not (db.parent / "badge.svg").exists()
    done = teeth_in_process("badge", "--target", "rows", "--out", tmp_path / "missing" / "b.svg", "--db", db,
                            cwd=root)
    assert_one_line_error(done, "cannot write", "b.svg")


def test_badge_without_a_database_is_one_line_and_creates_none(tmp_path):
    done = teeth_in_process("badge", "--target", "rows", "--db", tmp_path / "absent.db", cwd=tmp_path)
    assert_one_line_error(done, "no teeth database")
    assert not (tmp_path / "absent.db").exists() and not (tmp_path / "badge.svg").exists()


def test_badge_colours_follow_the_reports_and_the_text_is_escaped():
    assert [badge.colour(r) for r in (0.95, 0.7, 0.2, None)] == ["#2e7d32", "#b08800", "#c62828", "#9e9e9e"]
    assert json.loads(badge.endpoint(None))["message"] == "no mutants"  # shields.io refuses an empty message
    svg = badge.svg("<a&b>", 0.5)
    assert "<a&b>" not in svg and "&lt;a&amp;b&gt;" in svg
    assert ElementTree.fromstring(svg).find(f"{SVG}title").text == "<a&b>: kill rate 50.0%"
