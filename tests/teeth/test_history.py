"""History as a library: kill rate per op x profile over runs, its filters, and the terminal sparkline."""

from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

import pytest
from rich.console import Console

from teeth.errors import TeethError
from teeth.report.history import ALL_OPS, history_csv, history_json, load_history, parse_since
from teeth.report.chart import history_table, sparkline
from teeth.store.db import Store
from tests.helpers.cli import teeth_in_process
from tests.helpers.mutants import record_outcome_rows


def mutant(ident: str, op: str, file: str = "rows.py", line: int = 1, target: str = "rows") -> SimpleNamespace:
    return SimpleNamespace(id=ident, target=target, file=file, line=line, end_line=line, function=op, op=op,
                           operator="generic.number", original="x", replacement="y", diff="", skip=None)


def add_run(store: Store, day: str, outcomes: dict[tuple[str, str, str], str], target: str = "rows",
            commit: str = "abc1234") -> int:
    """A completed run started on `day` with {(mutant id, op, profile): status}."""
    run_id = store.start_run(target, [], [], {"commit": commit, "dirty": 0})
    store.db["runs"].update(run_id, {"started_at": f"{day}T12:00:00+00:00"})
    store.record_mutants([mutant(m, op, target=target) for m, op, _ in outcomes])
    record_outcome_rows(store, run_id, [{"mutant_id": m, "profile": p, "status": s}
                                        for (m, _, p), s in outcomes.items()])
    store.finish_run(run_id, "completed", {}, {})
    return run_id


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "teeth.db")
    add_run(store, "2024-01-01", {("a1", "take", "cpu"): "survived", ("a2", "take", "cpu"): "killed",
                                  ("b1", "total", "cpu"): "error", ("b2", "total", "cpu"): "no_coverage"})
    add_run(store, "2024-02-01", {("a1", "take", "cpu"): "killed", ("a2", "take", "cpu"): "timeout",
                                  ("b1", "total", "cpu"): "skipped", ("b2", "total", "cpu"): "killed",
                                  ("a1", "take", "fp32"): "survived"})
    add_run(store, "2024-03-01", {("c1", "other", "cpu"): "killed"}, target="elsewhere")
    return store


def rates(history) -> dict[tuple[int, str, str], float | None]:
    return {(r.run.id, r.op, r.profile): r.kill_rate for r in history.rows}


def test_kill_rate_is_given_per_run_op_and_profile_with_timeouts_caught_and_errors_not_counted(store):
    found = rates(load_history(store, "rows"))
    assert found == {(1, "take", "cpu"): 0.5, (1, "total", "cpu"): 0.0,
                     (2, "take", "cpu"): 1.0, (2, "total", "cpu"): 1.0, (2, "take", "fp32"): 0.0}


def test_runs_of_other_targets_are_left_out_unless_no_target_is_given(store):
    assert [r.id for r in load_history(store, "rows").runs] == [1, 2]
    everything = load_history(store)
    assert [r.id for r in everything.runs] == [1, 2, 3] and everything.targets == ["elsewhere", "rows"]


def test_the_overall_series_sums_every_op_per_profile(store):
    overall = {(s.profile): s for s in load_history(store, "rows").overall()}
    assert overall["cpu"].op == ALL_OPS
    assert overall["cpu"].rate(1) == pytest.approx(1 / 3) and overall["cpu"].rate(2) == 1.0
    assert overall["fp32"].rate(1) is None and overall["fp32"].rate(2) == 0.0


def test_since_a_run_id_keeps_that_run_and_later(store):
    assert [r.id for r in load_history(store, "rows", since=parse_since("2")).runs] == [2]


def test_since_a_date_keeps_runs_started_on_or_after_that_day(store):
    assert [r.id for r in load_history(store, since=parse_since("2024-02-01")).runs] == [2, 3]
    assert load_history(store, since=parse_since("2025-01-01")).runs == []


@pytest.mark.parametrize("value", ["yesterday", "2024-02-30", "2024/01/01", "-3", "1.5", ""])
def test_since_refuses_anything_but_a_date_or_a_run_id(value):
    with pytest.raises(TeethError, match="--since takes a date"):
        parse_since(value)


def test_since_a_run_that_does_not_exist_is_an_error(store):
    with pytest.raises(TeethError, match="no run 99"):
        load_history(store, since=parse_since("99"))


def test_op_and_profile_filters_keep_only_those_rows(store):
    found = load_history(store, "rows", ops=("take",), profiles=("cpu",))
    assert set(rates(found)) == {(1, "take", "cpu"), (2, "take", "cpu")}


def test_an_unknown_op_or_profile_is_an_error_naming_the_known_ones(store):
    with pytest.raises(TeethError, match=r"unknown op 'nope'; ops with history: take, total"):
        load_history(store, "rows", ops=("nope",))
    with pytest.raises(TeethError, match=r"unknown profile 'gpu'; profiles with history: cpu, fp32"):
        load_history(store, "rows", profiles=("gpu",))


def test_an_unknown_target_is_an_error_naming_the_targets_with_runs(store):
    with pytest.raises(TeethError, match=r"no runs of target 'nope' .*targets with runs: elsewhere, rows"):
        load_history(store, "nope")


def test_json_and_csv_have_one_record_per_run_op_and_profile(store):
    found = load_history(store, "rows")
    records = json.loads(history_json(found))
    assert len(records) == 5 and records[0]["commit"] == "abc1234" and records[0]["kill_rate"] == 0.5
    table = list(csv.DictReader(io.StringIO(history_csv(found))))
    assert [(r["run"], r["op"], r["profile"], r["kill_rate"]) for r in table][:2] == [
        ("1", "take", "cpu", "0.5"), ("1", "total", "cpu", "0.0")]


def test_the_sparkline_uses_a_fixed_scale_and_marks_unmeasured_runs():
    assert sparkline([0.0, 0.5, 1.0, None]).plain == "▁▅█·"


def test_the_terminal_table_draws_one_sparkline_per_op_and_profile(store):
    console = Console(width=120, record=True, color_system=None)
    console.print(history_table(load_history(store, "rows")))
    text = console.export_text()
    assert "(all ops)" in text
    take = next(line for line in text.splitlines() if " take " in line and " cpu " in line)
    assert "▅█" in take and "100.0%" in take and "+50.0" in take
    fp32 = next(line for line in text.splitlines() if " take " in line and " fp32 " in line)
    assert "·▁" in fp32


def test_a_run_filtered_by_operator_or_a_check_run_is_no_point_of_the_history(store):
    partial = store.start_run("rows", [], [], {"commit": "abc1234", "dirty": 0, "options": {"operators": ["whole_batch"]}})
    check = store.start_run("rows", [], [], {"commit": "abc1234", "dirty": 0, "options": {"command": "check"}})
    by_op = store.start_run("rows", [], [], {"commit": "abc1234", "dirty": 0, "options": {"ops": ["take"]}})
    for run_id in (partial, check, by_op):
        record_outcome_rows(store, run_id, [{"mutant_id": "a1", "profile": "cpu", "status": "survived"}])
        store.finish_run(run_id, "completed", {}, {})
    found = rates(load_history(store, "rows"))
    assert (by_op, "take", "cpu") in found  # an op filter measures that op whole
    assert not {run for run, _, _ in found} & {partial, check}


def test_a_history_of_filtered_runs_only_says_how_many_were_left_out_and_why(tmp_path):
    store = Store(tmp_path / "teeth.db")
    options = [{"operators": ["whole_batch"]}, {"operators": ["number"]}, {"shard": "1/2"}, {"command": "check"},
               {"mutants": ["a1"]}]
    for option in options:
        run_id = store.start_run("rows", [], [], {"commit": "abc1234", "dirty": 0, "options": option})
        store.record_mutants([mutant("a1", "take")])
        record_outcome_rows(store, run_id, [{"mutant_id": "a1", "profile": "cpu", "status": "survived"}])
        store.finish_run(run_id, "completed", {}, {})
    assert not load_history(store, "rows").runs
    done = teeth_in_process("history", "--db", tmp_path / "teeth.db", cwd=tmp_path)
    assert done.exit_code == 0, done.output
    said = " ".join(done.stdout.split())
    for fragment in ("5 runs with outcomes left out", "2 an --operator filter", "1 one shard", "1 a `teeth check`",
                     "1 chosen mutants", "run without --operator, --shard or --only", "teeth merge"):
        assert fragment in said, said


def test_an_empty_database_says_how_to_get_the_first_point(tmp_path):
    Store(tmp_path / "teeth.db").close()
    done = teeth_in_process("history", "--db", tmp_path / "teeth.db", cwd=tmp_path)
    assert done.exit_code == 0 and "`teeth run` records the first point" in done.stdout, done.output
