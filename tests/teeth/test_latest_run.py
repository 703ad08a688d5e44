"""One rule for "the latest run": reading commands read the latest whole `teeth run` of a target unless `--run ID`
names another; a `teeth check` run (or a shard, or chosen mutants) is read only when named; each listing says which
run it shows."""

from __future__ import annotations

import json

import pytest

from tests.helpers.cli import assert_one_line_error, teeth_in_process
from teeth.cli.options import describe_run, resolve_run
from teeth.run.preflight import choose_mutants
from teeth.core import Outcome, Status
from teeth.store.records import Mutant, Result, Run, RunKind, RunStatus
from teeth.store.db import Store

MUTANTS = ["a" * 12, "b" * 12, "c" * 12]


def mutant(ident: str, line: int) -> Mutant:
    return Mutant(id=ident, target="rows", file="rows.py", line=line, end_line=line, function="take", op="take",
                  operator="wrong_slice_start", original="start", replacement="0",
                  diff="--- a/rows.py\n+++ b/rows.py\n")


def result(ident: str, status: str) -> Result:
    line = MUTANTS.index(ident) + 1
    return Result(mutant(ident, line), "cpu", Outcome(
        ident, Status(status), duration=0.1, killed_by="tests/test_rows.py::test_take" if status == "killed" else None))


def add(store: Store, statuses: dict[str, str], **options) -> int:
    run = Run(id=0, target="rows", started_at="2026-12-02T08:10:00+00:00", status=RunStatus.COMPLETED,
              profiles=("cpu",), options=options)
    run_id = store.add_run(run, [result(i, s) for i, s in statuses.items()], [])
    store.record_mutants(mutant(i, n) for n, i in enumerate(MUTANTS, 1))
    return run_id


@pytest.fixture
def store(tmp_path):
    """Run 1: a whole `teeth run` (2 survivors of 3); run 2: a `teeth check` (its one mutant killed); run 3: a shard
    of a `teeth run`; run 4: a `teeth run --only survived`."""
    store = Store(tmp_path / "teeth.db")
    add(store, {MUTANTS[0]: "survived", MUTANTS[1]: "survived", MUTANTS[2]: "killed"})
    add(store, {MUTANTS[0]: "killed"}, command="check")
    add(store, {MUTANTS[1]: "killed"}, shard="1/2")
    add(store, {MUTANTS[0]: "killed"}, mutants=[MUTANTS[0]], only=["survived"])
    return store


def test_latest_is_the_latest_whole_teeth_run_and_a_check_run_is_read_when_named(store):
    assert resolve_run(store, "latest").id == 1
    assert resolve_run(store, "latest", "rows").id == 1
    assert resolve_run(store, "2").kind is RunKind.CHECK


def test_the_run_is_described_in_one_line_with_its_kind_target_and_start():
    assert describe_run(Run(id=12, kind=RunKind.RUN, target="batcher", started_at="2026-12-02T08:10:33+00:00",
                            status=RunStatus.COMPLETED)) == "run 12 (teeth run, batcher, 2026-12-02 08:10)"
    assert describe_run(Run(id=3, kind=RunKind.CHECK, target="rows", started_at="2026-12-02T09:00:00",
                            status=RunStatus.INTERRUPTED)) == "run 3 (teeth check, rows, 2026-12-02 09:00, interrupted)"


def test_results_after_a_check_still_show_the_whole_runs_survivors_and_say_which_run(store, tmp_path):
    done = teeth_in_process("results", "--status", "survived", "--format", "json", "--db", store.path, cwd=tmp_path)
    assert done.exit_code == 0, done.output
    assert sorted(r["mutant"] for r in json.loads(done.stdout)) == MUTANTS[:2]
    assert done.stderr.strip() == "run 1 (teeth run, rows, 2026-12-02 08:10)"
    table = teeth_in_process("results", "--db", store.path, cwd=tmp_path)
    assert table.stdout.splitlines()[0] == "run 1 (teeth run, rows, 2026-12-02 08:10)"
    named = teeth_in_process("results", "--run", "2", "--format", "json", "--db", store.path, cwd=tmp_path)
    assert [r["status"] for r in json.loads(named.stdout)] == ["killed"]
    assert named.stderr.startswith("run 2 (teeth check, rows")


def test_only_survived_reruns_the_survivors_of_the_latest_whole_run(store):
    class Found:
        def __init__(self, ident):
            self.id = ident

    chosen = choose_mutants([Found(i) for i in MUTANTS], store.path, "rows", [], ["survived"])
    assert chosen == set(MUTANTS[:2])


def test_the_badge_reads_the_latest_whole_run(store, tmp_path):
    done = teeth_in_process("badge", "--target", "rows", "--out", tmp_path / "b.svg", "--db", store.path, cwd=tmp_path)
    assert done.exit_code == 0, done.output
    assert "kill rate 33.3% (run 1 of rows)" in done.stdout


def test_the_badge_without_a_whole_run_says_so_in_one_line(tmp_path):
    store = Store(tmp_path / "teeth.db")
    add(store, {MUTANTS[0]: "killed"}, command="check")
    done = teeth_in_process("badge", "--target", "rows", "--out", tmp_path / "b.svg", "--db", store.path, cwd=tmp_path)
    assert_one_line_error(done, "no whole `teeth run` of target 'rows'", "--run ID")  # the words of `teeth results`
    assert_one_line_error(teeth_in_process("results", "--target", "rows", "--db", store.path, cwd=tmp_path),
                          "no whole `teeth run` of target 'rows'", "--run ID")


def test_show_lists_the_outcomes_of_teeth_runs_and_a_check_runs_only_when_named(store, tmp_path):
    done = teeth_in_process("show", MUTANTS[0], "--db", store.path, cwd=tmp_path)
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == "run 1 (teeth run, rows, 2026-12-02 08:10)"  # not the chosen-mutants run 4, not check run 2
    assert "run 1 cpu: survived" in done.stdout and "run 4 cpu: killed" in done.stdout
    assert "run 2 " not in done.stdout
    named = teeth_in_process("show", MUTANTS[0], "--run", "2", "--db", store.path, cwd=tmp_path)
    assert named.stdout.splitlines()[0].startswith("run 2 (teeth check, rows")
    assert "run 2 cpu: killed" in named.stdout and "run 1 cpu" not in named.stdout


def test_the_html_report_says_which_run_it_shows(store, tmp_path):
    done = teeth_in_process("report", "--html", tmp_path / "out", "--root", tmp_path, "--db", store.path,
                            cwd=tmp_path)
    assert done.exit_code == 0, done.output
    assert done.stdout.strip().endswith("run 1 (teeth run, rows, 2026-12-02 08:10)")
