"""Baseline test selection for `teeth check`: recorded coverage decides which tests must run again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.helpers.git_projects import (TAKE_ROWS, TAKE_ROWS_CHANGED, check, check_runs, edit, git, git_repo,
                                        outcomes)

from teeth.config.targets import Target
from teeth.store.records import TestRecord
from teeth.run.selection import Fingerprints, choose, mutated_keys

SOURCE = '''"""A module."""
SCALE = 2


def first(x):
    return x * SCALE


class Rows:
    size = 3

    def take(self, batch):
        def inner(row):
            return row
        return [inner(r) for r in batch[: self.size]]


def last(x):
    return x - 1
'''


def fingerprints(tmp_path: Path, text: str) -> Fingerprints:
    path = tmp_path / "ops.py"
    path.write_text(text)
    return Fingerprints(Target(name="t", root=tmp_path, files=[path], tests=["tests"]))


def test_lines_map_to_outer_functions_methods_and_module_level(tmp_path):
    prints = fingerprints(tmp_path, SOURCE)
    path = str(tmp_path / "ops.py")
    assert prints.key_of(path, 6) == "ops.py::first"
    assert prints.key_of(path, 14) == "ops.py::Rows.take"  # a nested function counts towards its outer one
    assert prints.key_of(path, 10) == "ops.py::<module>"  # class body outside methods
    assert set(prints.covers({path: [6, 15, 19]})) == {"ops.py::first", "ops.py::Rows.take", "ops.py::last"}


def test_a_function_change_changes_its_fingerprint_only_and_module_text_changes_all(tmp_path):
    before = fingerprints(tmp_path, SOURCE).by_key
    body = fingerprints(tmp_path, SOURCE.replace("return x - 1", "return x - 2")).by_key
    assert [k for k in before if before[k] != body[k]] == ["ops.py::last"]
    module = fingerprints(tmp_path, SOURCE.replace("SCALE = 2", "SCALE = 3")).by_key
    assert all(before[k] != module[k] for k in before)  # a constant may change what any function does
    shifted = fingerprints(tmp_path, SOURCE.replace("SCALE = 2\n", "SCALE = 2  \n\n# about SCALE\n\n")).by_key
    assert shifted == before  # moved lines, blank lines and comments at module level change nothing


def test_choose_takes_covering_stale_and_new_tests_and_nothing_else(tmp_path):
    now = fingerprints(tmp_path, SOURCE.replace("return x - 1", "return x - 2"))
    old = fingerprints(tmp_path, SOURCE).by_key
    def record(test, *keys, test_key="same"):
        return TestRecord(profile="cpu", test=test, covers={k: old[k] for k in keys}, test_key=test_key)

    recorded = {
        "t::mutated": record("t::mutated", "ops.py::first"),
        # `last` changed since this record, though it has no mutants to run
        "t::stale": record("t::stale", "ops.py::last"),
        "t::untouched": record("t::untouched", "ops.py::Rows.take"),
        "t::edited_test": record("t::edited_test", "ops.py::Rows.take", test_key="before the edit"),
    }
    collected = [*recorded, "t::new"]
    chosen, why = choose(collected, recorded, now, {"ops.py::first"}, lambda test: "same")
    assert chosen == ["t::mutated", "t::stale", "t::edited_test", "t::new"]
    assert why == {"covers a mutated function": 1, "covers changed code": 1, "new or changed test": 2}


def test_a_module_level_mutant_needs_every_test():
    class M:
        def __init__(self, swap):
            self.file, self.swap, self.skip = "ops.py", swap, None

    assert mutated_keys([M("first"), M("Rows.take")]) == {"ops.py::first", "ops.py::Rows.take"}
    assert mutated_keys([M("first"), M("")]) is None


def baseline_tests(db: Path, run_id: int) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("select test from tests where run_id = ? order by test", [run_id])]


def statuses(db: Path, run_id: int) -> dict:
    return {r["mutant_id"]: (r["status"], r["killed_by"]) for r in outcomes(db, run_id)}


def test_check_baselines_only_the_tests_of_the_changed_function_with_the_same_outcomes(project, teeth):
    root = git_repo(project("weak_suite"))
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0  # records what each test executed
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    selected = check(teeth, root)
    assert "baseline [cpu]: 1 of 2 tests (1 covers a mutated function)" in selected.stdout, selected.stdout
    full = check(teeth, root, "--no-cache")
    assert "baseline [cpu]" not in full.stdout
    one, two = check_runs(teeth.db)
    assert baseline_tests(teeth.db, one["id"]) == ["tests/test_rows.py::test_first_rows_are_taken"]
    assert len(baseline_tests(teeth.db, two["id"])) == 2
    assert statuses(teeth.db, one["id"]) == statuses(teeth.db, two["id"])
    assert any(status == "killed" for status, _ in statuses(teeth.db, one["id"]).values())


def test_a_new_test_is_baselined_and_can_kill(project, teeth):
    root = git_repo(project("weak_suite"))
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    (root / "tests" / "test_more_rows.py").write_text(
        "from rows import take_rows\n\n\ndef test_later_rows_are_taken():\n"
        "    assert take_rows([10, 11, 12, 13], 1, 2) == [11, 12]\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a test")
    done = check(teeth, root)
    assert "baseline [cpu]: 2 of 3 tests (1 covers a mutated function, 1 new or changed test)" in done.stdout, \
        done.stdout + done.stderr
    killers = {killer for _, killer in statuses(teeth.db, check_runs(teeth.db)[-1]["id"]).values()}
    assert "tests/test_more_rows.py::test_later_rows_are_taken" in killers


def test_without_a_recorded_run_the_whole_baseline_runs(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    done = check(teeth, root)
    assert "baseline [cpu]" not in done.stdout and "7 run" in done.stdout, done.stdout + done.stderr
    assert len(baseline_tests(teeth.db, check_runs(teeth.db)[-1]["id"])) == 2


def test_tests_of_a_mutated_function_run_even_when_nothing_they_executed_changed(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0  # recorded on the changed tree
    (root / "tests" / "test_more_totals.py").write_text(
        "from rows import total\n\n\ndef test_total_of_nothing():\n    assert total([]) == 0\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a test of another function")
    done = check(teeth, root)  # survivors rerun, with take_rows' test; the added test's mutants join the scope
    assert "baseline [cpu]: 3 of 3 tests (2 covers a mutated function, 1 new or changed test)" in done.stdout, \
        done.stdout + done.stderr
    rows = outcomes(teeth.db, check_runs(teeth.db)[-1]["id"])
    assert "no_coverage" not in {r["status"] for r in rows}


def test_each_test_keeps_its_newest_passing_record_under_the_same_keys(tmp_path):
    from teeth.store.db import Store

    store = Store(tmp_path / "t.db")
    runs = [store.start_run("rows", ["cpu"], [], {}) for _ in range(3)]
    ok = {"failure": None, "duration": 0.1}

    def record(run, tests, profile_key="p", failure=None):
        results = {t: {**ok, "failure": failure} for t in tests}
        store.record_tests(run, "cpu", results, covers={t: {f"rows.py::f{run}": "x"} for t in tests},
                           test_keys={t: "k" for t in tests}, profile_key=profile_key)

    record(runs[0], ["a", "b", "c"])
    record(runs[1], ["a"])  # a selected baseline: only some tests
    record(runs[2], ["b"], failure={"test": "b"})  # failing: not a record to select from
    record(runs[2], ["c"], profile_key="other")  # another profile key: not comparable
    found = store.test_records("rows", "cpu", "p")
    assert {t: list(r.covers) for t, r in found.items()} == {
        "a": [f"rows.py::f{runs[1]}"], "b": [f"rows.py::f{runs[0]}"], "c": [f"rows.py::f{runs[0]}"]}
    assert store.test_records("other", "cpu", "p") == {}
