"""The full kill matrix (`--full-matrix`): sharded and merged it equals the unsharded one; Stryker's `killedBy` lists
every killing test and `coveredBy` every test that ran the mutant; `teeth tests` lists tests by what they kill, and kill
alone. On gradient_rows_test_only, whose zero_storage_offset mutant fails 5 of its 6 tests (the 5 batched cases)."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from tests.helpers.cli import FIXTURES, teeth_cli
from tests.helpers.git_projects import add_tests, git, git_repo

OFFSET = "8c91b9fe81f2"  # grads.py:8 zero_storage_offset: view.storage_offset() -> 0
BATCHED = "tests/test_batched_grads.py::test_an_invoke_past_row_0_reads_its_own_gradient_rows"
SINGLE = "tests/test_grads.py::test_a_single_invoke_reads_its_own_gradient"


def run(root, db, *args: str) -> None:
    done = teeth_cli("run", "--target", "grads", "--full-matrix", "--db", str(db), *args, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The project with the batched tests committed, run with the full matrix whole, as shards 1/2 and 2/2 (each
    its own database) merged, and (one.db) with only the batched test's first case."""
    base = tmp_path_factory.mktemp("matrix")
    root = base / "project"
    shutil.copytree(FIXTURES / "gradient_rows_test_only", root, ignore=shutil.ignore_patterns("__pycache__"))
    git_repo(root)
    add_tests(root, "test_batched_grads.py")
    run(root, base / "whole.db")
    for k in (1, 2):
        run(root, base / f"shard{k}.db", "--shard", f"{k}/2")
    done = teeth_cli("merge", str(base / "shard1.db"), str(base / "shard2.db"), "--into", str(base / "merged.db"),
                     cwd=root)
    assert done.returncode == 0, done.stderr
    suite = root / "tests" / "test_batched_grads.py"
    suite.write_text(suite.read_text().replace("[1, 2, 3, 4, 5]", "[1]"))
    git(root, "commit", "-q", "-am", "one case")
    run(root, base / "one.db")
    return root, base


def matrix_rows(db) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute('select mutant_id, profile, test, "check" is not null from matrix'))


def test_a_sharded_full_matrix_merged_equals_the_unsharded_matrix(runs):
    _, base = runs
    whole = matrix_rows(base / "whole.db")
    shards = [matrix_rows(base / f"shard{k}.db") for k in (1, 2)]
    assert all(shards) and not {r[0] for r in shards[0]} & {r[0] for r in shards[1]}  # each shard its own mutants
    assert matrix_rows(base / "merged.db") == whole
    assert (OFFSET, "cpu", SINGLE, 0) in whole and (OFFSET, "cpu", f"{BATCHED}[3]", 1) in whole


def stryker_mutants(root, db) -> dict[str, dict]:
    done = teeth_cli("results", "--target", "grads", "--format", "stryker", "--db", str(db), cwd=root)
    assert done.returncode == 0, done.stderr
    return {m["id"]: m for f in json.loads(done.stdout)["files"].values() for m in f["mutants"]}


@pytest.mark.parametrize("db", ["whole.db", "merged.db"])
def test_strykers_killed_by_lists_every_killing_test_and_covered_by_every_test_that_ran_it(runs, db):
    root, base = runs
    mutant = stryker_mutants(root, base / db)[OFFSET]
    assert sorted(mutant["killedBy"]) == [f"{BATCHED}[{n}]" for n in range(1, 6)]
    assert sorted(mutant["coveredBy"]) == sorted([SINGLE, *mutant["killedBy"]])
    assert mutant["status"] == "Killed" and mutant["testsCompleted"] == 6


def listed_by_test(root, db) -> dict[str, dict]:
    done = teeth_cli("tests", "--target", "grads", "--format", "json", "--db", str(db), cwd=root)
    assert done.returncode == 0, done.stderr
    return {row["test"]: row for row in json.loads(done.stdout)}


def killers_by_mutant(db) -> dict[str, set[str]]:
    """From the stored matrix: each mutant's failing tests."""
    found: dict[str, set[str]] = {}
    for mutant, _, test, failed in matrix_rows(db):
        found.setdefault(mutant, set())
        if failed:
            found[mutant].add(test)
    return found


def test_teeth_tests_lists_each_tests_kills_and_the_mutants_no_other_test_kills(runs):
    root, base = runs
    rows = listed_by_test(root, base / "one.db")
    killers = killers_by_mutant(base / "one.db")
    assert set(rows) == {f"{BATCHED}[1]", SINGLE}
    for test, row in rows.items():
        assert set(row["kills"]) == {m for m, tests in killers.items() if test in tests}
        assert set(row["kills_alone"]) == {m for m, tests in killers.items() if tests == {test}}
        assert row["executes"] == len(killers)
    # the batched case kills the 5 mutants of an invoke past row 0 alone; the single invoke's 6 kills it shares
    assert OFFSET in rows[f"{BATCHED}[1]"]["kills_alone"] and len(rows[f"{BATCHED}[1]"]["kills_alone"]) == 5
    assert len(rows[SINGLE]["kills"]) == 6 and rows[SINGLE]["kills_alone"] == []
    first = list(rows)[0]
    assert first == f"{BATCHED}[1]"  # most kills alone first


def test_teeth_tests_table_says_which_run_and_shares_every_kill_among_the_five_cases(runs):
    root, base = runs
    done = teeth_cli("tests", "--target", "grads", "--db", str(base / "whole.db"), cwd=root)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("run 1 (teeth run, grads") and lines[1].split() == ["test", "kills", "alone",
                                                                                   "executes"]
    table = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert table[f"{BATCHED}[3]"] == ["11", "0", "14"] and table[SINGLE] == ["6", "0", "14"]


def test_teeth_tests_on_a_run_without_a_matrix_is_one_line_exit_2(runs, tmp_path):
    root, _ = runs
    db = tmp_path / "plain.db"
    assert teeth_cli("run", "--target", "grads", "--db", str(db), cwd=root).returncode == 0
    done = teeth_cli("tests", "--target", "grads", "--db", str(db), cwd=root)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "has no kill matrix: record one with teeth run --full-matrix" in done.stderr
