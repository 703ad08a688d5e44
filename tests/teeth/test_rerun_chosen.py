"""`teeth run --mutant ID` and `--only survived`: just those mutants, against today's tests, recorded as a run."""

from __future__ import annotations

import json
import sqlite3

from tests.helpers.cli import results_of

from teeth.errors import EXIT_USAGE

KILLS_THE_SURVIVORS = '''

def test_rows_from_the_middle_of_the_batch():
    assert take_rows([10, 11, 12, 13, 14], 1, 3) == [11, 12, 13]
'''


def runs(db) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("select * from runs order by id")]


# A run of chosen mutants is no whole `teeth run`: `teeth results` shows it when named with --run.
def test_only_survived_reruns_the_survivors_against_todays_tests(project, teeth):
    root = project("weak_suite")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    survivors = {r["mutant"] for r in results_of(teeth, root) if r["status"] == "survived"}
    assert len(survivors) == 2
    done = teeth("run", "--target", "rows", "--only", "survived", cwd=root)
    assert done.returncode == 0, done.stderr
    assert {r["mutant"]: r["status"] for r in results_of(teeth, root, "--run", str(runs(teeth.db)[-1]["id"]))} == dict.fromkeys(survivors, "survived")
    said = " ".join(done.stderr.split())
    assert "chosen mutants (--only survived): 2 of the target's" in said and "not made" not in said, said
    with (root / "tests" / "test_rows.py").open("a") as tests:  # the person writes the killing test
        tests.write(KILLS_THE_SURVIVORS)
    done = teeth("run", "--target", "rows", "--only", "survived", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root, "--run", str(runs(teeth.db)[-1]["id"]))
    assert {r["mutant"]: r["status"] for r in rows} == dict.fromkeys(survivors, "killed")
    assert {r["killed_by"] for r in rows} == {"tests/test_rows.py::test_rows_from_the_middle_of_the_batch"}
    latest = runs(teeth.db)[-1]
    assert json.loads(latest["options"])["only"] == ["survived"] and latest["status"] == "completed"
    # --only reads the latest whole `teeth run` (a run of chosen mutants is none): a whole run, then nothing to run
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    done = teeth("run", "--target", "rows", "--only", "survived", cwd=root)
    assert done.returncode == 0 and "nothing to run" in done.stderr and len(runs(teeth.db)) == 4
    history = teeth("history", "--db", str(teeth.db), "--format", "json", cwd=root)
    assert {row["run"] for row in json.loads(history.stdout)} == {1, 4}  # runs of chosen mutants (2, 3) are no data points


def test_mutant_reruns_just_that_mutant_and_reuses_no_stored_outcome(project, teeth):
    root = project("weak_suite")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    killed = next(r for r in results_of(teeth, root) if r["status"] == "killed")
    survived = next(r for r in results_of(teeth, root) if r["status"] == "survived")
    done = teeth("run", "--target", "rows", "--mutant", killed["mutant"][:7], "--mutant", survived["mutant"],
                 cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root, "--run", str(runs(teeth.db)[-1]["id"]))
    assert {r["mutant"]: r["status"] for r in rows} == {killed["mutant"]: "killed", survived["mutant"]: "survived"}
    with sqlite3.connect(teeth.db) as conn:  # both measured again, although their cache keys still hold
        reused = conn.execute("select count(*) from outcomes where run_id = 2 and reused_from is not null").fetchone()
    assert reused == (0,)
    assert sorted(json.loads(runs(teeth.db)[-1]["options"])["mutants"]) == sorted([killed["mutant"],
                                                                                 survived["mutant"]])


def test_a_mutant_that_is_not_in_the_target_is_bad_input_and_records_nothing(project, teeth):
    root = project("weak_suite")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    done = teeth("run", "--target", "rows", "--mutant", "fffffffffff0", cwd=root)
    assert done.returncode == EXIT_USAGE and "no mutant 'fffffffffff0'" in done.stderr
    assert "Traceback" not in done.stderr and len(runs(teeth.db)) == 1


def test_only_without_an_earlier_run_is_bad_input(project, teeth):
    root = project("weak_suite")
    done = teeth("run", "--target", "rows", "--only", "survived", cwd=root)
    assert done.returncode == EXIT_USAGE and "no teeth database" in done.stderr
    assert not teeth.db.exists()


def test_show_lists_the_tests_that_executed_the_mutants_lines(weak_suite_run):
    rows = weak_suite_run.rows()
    in_take_rows = next(r for r in rows if r["function"] == "take_rows")
    in_total = next(r for r in rows if r["function"] == "total")
    shown = weak_suite_run.teeth("show", in_take_rows["mutant"])
    assert shown.returncode == 0, shown.stderr
    assert "tests/test_rows.py::test_first_rows_are_taken" in shown.stdout
    assert "test_total_of_a_batch" not in shown.stdout
    as_json = json.loads(weak_suite_run.teeth("show", in_total["mutant"], "--format", "json").stdout)
    assert as_json["tests"]["cpu"]["tests"] == ["tests/test_rows.py::test_total_of_a_batch"]


def test_the_targets_fail_under_gates_a_whole_run_but_not_a_rerun_of_survivors(project, teeth):
    root = project("weak_suite")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]', 'tests = ["tests"]\nfail_under = 0.9'))
    assert teeth("run", "--target", "rows", cwd=root).returncode == 1  # 8 of 10 killed
    done = teeth("run", "--target", "rows", "--only", "survived", cwd=root)
    assert done.returncode == 0, done.stderr  # 0 of 2 killed: a slice's kill rate is not the target's
    assert teeth("run", "--target", "rows", "--only", "survived", "--fail-under", "0.5", cwd=root).returncode == 1
