"""Statuses know what counts and what is caught; the kill rate in Python and in SQL are the README's formula."""

from __future__ import annotations

import sqlite3

import pytest

from teeth.core import Outcome, Status, Tally, WorkerFailure, counts_sql, kill_rate, kill_rate_sql
from teeth.store.db import Store
from tests.helpers.mutants import mutant_record

# Per op: outcomes per status. The README: kill rate = (killed + timeout) / (killed + timeout + survived + no_coverage).
GROUPS = {
    "mixed": {"killed": 2, "timeout": 1, "survived": 1, "no_coverage": 1, "error": 3, "skipped": 2},
    "only_uncounted": {"error": 2, "skipped": 1},
    "all_caught": {"killed": 1, "timeout": 2},
    "none_caught": {"survived": 2, "no_coverage": 1, "error": 1},
}


def readme_rate(counts: dict) -> float | None:
    caught = counts.get("killed", 0) + counts.get("timeout", 0)
    counted = caught + counts.get("survived", 0) + counts.get("no_coverage", 0)
    return caught / counted if counted else None


def test_only_killed_and_timeout_are_caught_and_error_and_skipped_do_not_count():
    assert {s for s in Status if s.caught} == {Status.KILLED, Status.TIMEOUT}
    assert {s for s in Status if s.counts} == {Status.KILLED, Status.TIMEOUT, Status.SURVIVED, Status.NO_COVERAGE}
    assert {s for s in Status if s.surviving} == {Status.SURVIVED, Status.NO_COVERAGE}
    assert [s for s in Status if not s.tested] == [Status.SKIPPED]


@pytest.mark.parametrize("op", sorted(GROUPS))
def test_the_kill_rate_of_a_status_count_is_the_readme_formula(op):
    counts = GROUPS[op]
    assert kill_rate(counts) == readme_rate(counts)
    assert Tally.of(counts).rate == readme_rate(counts)


def test_the_sql_kill_rate_matches_the_python_one_on_a_real_database(tmp_path):
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("t", ["cpu"], [], {})
    mutants, outcomes = [], []
    for op, counts in GROUPS.items():
        for status, n in counts.items():
            for i in range(n):
                mutant_id = f"{op}-{status}-{i}"
                mutants.append(mutant_record(mutant_id, op))
                outcomes.append(Outcome(mutant_id, Status(status)))
    store.record_mutants(mutants)
    store.record_outcomes(run_id, "cpu", outcomes)
    rows = store.db.query(f"""select m.op, {counts_sql()}, {kill_rate_sql()} as sql_rate from outcomes o
                              join mutants m on m.id = o.mutant_id group by m.op""")
    seen = {}
    for row in rows:
        counts = {s.value: row[s.value] for s in Status}
        assert counts == {s.value: GROUPS[row["op"]].get(s.value, 0) for s in Status}
        assert row["sql_rate"] == kill_rate(counts) == readme_rate(GROUPS[row["op"]])
        seen[row["op"]] = row["sql_rate"]
    assert seen.keys() == GROUPS.keys() and seen["only_uncounted"] is None
    assert {r.op: r.kill_rate for r in store.kill_rates(run_id, by=("op",))} == seen  # the store's own query


def test_a_worker_failure_is_stored_as_an_error_with_its_reason(tmp_path):
    crashed = Outcome.failed("m1", WorkerFailure.CRASHED, "crashed with SIGSEGV", signal=11)
    assert crashed.failure is WorkerFailure.CRASHED
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("t", ["cpu"], [], {})
    store.record_mutants([mutant_record("m1")])
    store.record_outcomes(run_id, "cpu", [crashed])
    store.close()
    with sqlite3.connect(tmp_path / "teeth.db") as conn:  # what is in the file, read by another connection
        stored = conn.execute("select status, failure, signal, detail from outcomes where run_id = ? and "
                              "mutant_id = 'm1'", [run_id]).fetchall()
    conn.close()
    assert stored == [("error", "crashed", 11, "crashed with SIGSEGV")]  # the worker's fact apart from the words
    with pytest.raises(ValueError, match="is an error"):
        Outcome("m1", Status.KILLED, failure=WorkerFailure.LOST)


def test_a_stored_outcome_reads_back_with_its_failure_and_signal(tmp_path):
    """What an incremental run reuses is the outcome that was stored: the worker's failure and the signal included."""
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("t", ["cpu"], [], {})
    store.record_mutants([mutant_record(m) for m in ("m1", "m2")])
    crashed = Outcome.failed("m1", WorkerFailure.CRASHED, "crashed with SIGABRT", signal=6, duration=1.5)
    crash_kill = Outcome("m2", Status.KILLED, check="crash", signal=11, detail="crashed with SIGSEGV", duration=2.0)
    store.record_outcomes(run_id, "cpu", [crashed, crash_kill])
    read = {r.mutant.id: r.outcome for r in store.results(run_id)}
    assert read == {"m1": crashed, "m2": crash_kill}
    assert read["m2"].shown_detail == "signal 11: crashed with SIGSEGV"  # what outputs show


def test_every_survivor_list_holds_the_survived_and_the_no_coverage_mutants(tmp_path):
    """One definition of a survivor (`Status.surviving`): the run report's table, the service's survivors, `--format
    lines` and the SQL condition all list survived and no_coverage, and nothing caught or uncounted."""
    from rich.console import Console

    from teeth.core import SURVIVING, surviving_sql
    from teeth.report.terminal import print_run_report
    from teeth.serve.store import ServeStore

    assert set(SURVIVING) == {Status.SURVIVED, Status.NO_COVERAGE}
    store = ServeStore(tmp_path / "teeth.db")
    run_id = store.start_run("t", ["cpu"], [], {})
    store.record_mutants([mutant_record(f"m-{s}") for s in Status])
    store.record_outcomes(run_id, "cpu", [Outcome(f"m-{s}", s) for s in Status])
    survivors = {f"m-{s.value}" for s in SURVIVING}
    assert {r.mutant.id for r in store.survivors(run_id)} == survivors
    assert {r["mutant_id"] for r in store.db.query(f"select mutant_id from outcomes o where {surviving_sql()}")} \
        == survivors
    console = Console(record=True, width=200)
    print_run_report(console, store, run_id)
    table = console.export_text().split("survivors: ")[1].split(f"run {run_id}:")[0]
    assert {m for m in (f"m-{s.value}" for s in Status) if m in table} == survivors
