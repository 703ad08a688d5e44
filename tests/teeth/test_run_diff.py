"""`teeth diff A B`: two runs side by side (one database, or `DB:RUN` from two), as a table and as JSON: status
changes, newly killed and newly surviving mutants with their killing tests, and the mutants only one run holds. On
gradient_rows_test_only: the base's suite (one invoke) against the suite with the batched tests added."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from tests.helpers.cli import FIXTURES, teeth_cli
from tests.helpers.git_projects import add_tests, git, git_repo

OFFSET = "8c91b9fe81f2"  # grads.py:8 zero_storage_offset: killed by the 5 batched cases only
BATCHED = "tests/test_batched_grads.py::test_an_invoke_past_row_0_reads_its_own_gradient_rows"


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    """base.db: run 1 of every mutant on main, run 2 of its zero_storage_offset mutants only; feature.db: run 1 with
    the batched tests added, with the full matrix."""
    base = tmp_path_factory.mktemp("diff")
    root = base / "project"
    shutil.copytree(FIXTURES / "gradient_rows_test_only", root, ignore=shutil.ignore_patterns("__pycache__"))
    git_repo(root)
    git(root, "checkout", "-q", "main")
    for args in ([], ["--operator", "zero_storage_offset"]):
        done = teeth_cli("run", "--target", "grads", "--db", str(base / "base.db"), *args, cwd=root)
        assert done.returncode == 0, done.stderr
    git(root, "checkout", "-q", "feature")
    add_tests(root, "test_batched_grads.py")
    done = teeth_cli("run", "--target", "grads", "--full-matrix", "--db", str(base / "feature.db"), cwd=root)
    assert done.returncode == 0, done.stderr
    return root, base


def statuses(db, run: int) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("select mutant_id, status from outcomes where run_id = ?", [run]))


def diff(root, *args: str) -> dict:
    done = teeth_cli("diff", *args, "--format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_across_two_databases_the_newly_killed_mutants_come_with_every_killing_test(dbs):
    root, base = dbs
    found = diff(root, f"{base / 'base.db'}:1", f"{base / 'feature.db'}:1")
    before, after = statuses(base / "base.db", 1), statuses(base / "feature.db", 1)
    expected = {m for m in before if before[m] == "survived" and after[m] == "killed"}
    assert {e["mutant"] for e in found["newly_killed"]} == expected and OFFSET in expected and len(expected) == 5
    offset = next(e for e in found["newly_killed"] if e["mutant"] == OFFSET)
    assert (offset["a"], offset["b"]) == ("survived", "killed")
    assert sorted(offset["killed_by_b"]) == [f"{BATCHED}[{n}]" for n in range(1, 6)] and offset["killed_by_a"] == []
    assert {e["mutant"] for e in found["changed"]} == {m for m in before if before[m] != after[m]}
    assert found["newly_surviving"] == found["only_in_a"] == found["only_in_b"] == []
    assert found["a"]["label"].endswith("base.db:1") and found["b"]["run"] == 1


def test_the_other_way_round_they_are_newly_surviving_with_the_tests_that_killed_them(dbs):
    root, base = dbs
    found = diff(root, f"{base / 'feature.db'}:1", f"{base / 'base.db'}:1")
    assert found["newly_killed"] == [] and len(found["newly_surviving"]) == 5
    offset = next(e for e in found["newly_surviving"] if e["mutant"] == OFFSET)
    assert sorted(offset["killed_by_a"]) == [f"{BATCHED}[{n}]" for n in range(1, 6)] and offset["killed_by_b"] == []


def test_the_table_names_both_runs_counts_and_lists_each_change_with_its_killing_tests(dbs):
    root, base = dbs
    done = teeth_cli("diff", f"{base / 'base.db'}:1", f"{base / 'feature.db'}:1", cwd=root)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("A: ") and "run 1 (teeth run, grads" in lines[0] and lines[1].startswith("B: ")
    assert lines[2] == "5 changed status, 5 newly killed, 0 newly surviving, 0 only in A, 0 only in B"
    assert f"  {OFFSET} grads.py:8 zero_storage_offset [cpu]: survived -> killed (killed by {BATCHED}" \
        "[1, 2, 3, 4, 5])" in lines


def test_in_one_database_the_mutants_only_one_run_holds_are_listed(dbs):
    root, base = dbs
    found = diff(root, "2", "1", "--db", str(base / "base.db"))
    one, all_ = statuses(base / "base.db", 2), statuses(base / "base.db", 1)
    assert one and set(one) < set(all_)
    assert {e["mutant"] for e in found["only_in_b"]} == set(all_) - set(one)
    assert all(e["status"] == all_[e["mutant"]] for e in found["only_in_b"])
    assert found["only_in_a"] == found["changed"] == []
    table = teeth_cli("diff", "1", "2", "--db", str(base / "base.db"), cwd=root).stdout
    assert f"0 changed status, 0 newly killed, 0 newly surviving, {len(all_) - len(one)} only in A, 0 only in B" \
        in table and sum(line.startswith("  only in A: ") for line in table.splitlines()) == len(all_) - len(one)


def test_a_run_that_does_not_exist_in_the_named_database_is_one_line_exit_2(dbs):
    root, base = dbs
    done = teeth_cli("diff", f"{base / 'base.db'}:1", f"{base / 'feature.db'}:7", cwd=root)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "7" in done.stderr and "Traceback" not in done.stderr
