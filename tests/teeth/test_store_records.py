"""The store takes and returns frozen records (teeth.store.records), not rows: its public methods' return types say so, and
each record reads back from its row as it was written. A run: JSON columns parsed, kind and status typed, and back to
JSON."""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
import typing
from collections.abc import Mapping

import pytest

from teeth.core import Check, Outcome, Status, WorkerFailure, Why
from teeth.store.records import (KillRate, MatrixEntry, Mutant, OutcomeFilter, Result, Run, RunKind, RunStatus, TestRecord,
                           mutant_of, mutant_row, outcome_of, outcome_row, record_of_test, row_of_test, run_of, run_row)
from teeth.serve.payload import PushedRun, push_body, pushed_records
from teeth.store.db import Store


def test_a_stored_run_reads_back_typed_with_its_json_columns_parsed(tmp_path):
    store = Store(tmp_path / "teeth.db")
    options = {"command": "check", "ops": ["take"], "shard": "1/2", "jobs": 2}
    run_id = store.start_run("rows", ["cpu", "torch_cpu_fp32"], ["whole_batch"],
                             {"commit": "c0ffee", "dirty": 1, "versions": {"torch": "2.13"}, "options": options})
    store.record_protection(run_id, "cpu", "landlock")
    store.finish_run(run_id, RunStatus.COMPLETED, {"total": 1.5}, {"killed": 1}, ["a flaky test"])
    run = store.run(run_id)
    assert (run.id, run.target, run.status, run.kind) == (run_id, "rows", RunStatus.COMPLETED, RunKind.CHECK)
    assert run.profiles == ("cpu", "torch_cpu_fp32") and run.operators == ("whole_batch",)
    assert (run.commit, run.dirty, dict(run.versions)) == ("c0ffee", True, {"torch": "2.13"})
    assert (dict(run.timings), dict(run.totals), run.notes) == ({"total": 1.5}, {"killed": 1}, ("a flaky test",))
    assert (run.op_filter, run.operator_filter, run.profile_filter, run.shard) == (("take",), None, None, "1/2")
    assert dict(run.protection) == {"cpu": "landlock"} and run.completed and not run.whole
    assert store.latest_run("rows") == store.latest_run("rows", RunStatus.COMPLETED) == run
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.status = RunStatus.FAILED  # type: ignore[misc]


def test_a_run_as_json_is_what_the_database_holds_decoded(tmp_path):
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("rows", ["cpu"], [], {"options": {"mutants": ["abc"]}})
    shown = store.run(run_id).to_json()
    row = store.db["runs"].get(run_id)
    assert shown["status"] == "running" and shown["kind"] == "run" and shown["mutant_filter"] == ["abc"]
    assert shown["profiles"] == json.loads(row["profiles"]) and shown["options"] == json.loads(row["options"])
    assert json.loads(json.dumps(shown)) == shown  # plain JSON: no enum or tuple left in it


def test_a_run_with_a_status_teeth_does_not_know_is_refused(tmp_path):
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("rows", ["cpu"], [], {})
    store.db["runs"].update(run_id, {"status": "exploded"})
    with pytest.raises(ValueError, match="exploded"):
        store.run(run_id)
    assert Run(id=1, target="t", status=RunStatus.RUNNING).kind is RunKind.RUN


# The public methods of Store that may still return a dict row, and why.
ROWS_KEPT = {
    "outcome_counts": "a tally {status: count}, the shape Run.totals stores and Tally.of reads, not a row",
}


def returns_a_row(kind) -> bool:
    """A dict or Mapping whose values are plain (not records), at any depth of lists, tuples, Optionals and mappings
    keyed by a name."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind in (dict, Mapping) or origin in (dict, Mapping):
        value = args[1] if len(args) == 2 else typing.Any
        if typing.get_origin(value) in (dict, Mapping) or value in (dict, Mapping):
            return returns_a_row(value)
        return not (inspect.isclass(value) and dataclasses.is_dataclass(value))
    if origin in (list, tuple, set, typing.Union, types.UnionType):
        return any(returns_a_row(a) for a in args if a is not Ellipsis)
    return False


def row_returning_methods(cls) -> set[str]:
    found = set()
    for name, method in inspect.getmembers(cls, inspect.isfunction):
        if name.startswith("_"):
            continue
        if returns_a_row(typing.get_type_hints(method).get("return")):
            found.add(name)
    return found


def test_the_stores_public_methods_return_records_not_rows():
    assert row_returning_methods(Store) == set(ROWS_KEPT)
    assert len(ROWS_KEPT) <= 2


def test_the_row_check_sees_a_dict_row_at_any_depth():
    """The check itself: a dict row, a list of them, an index of them, or an Optional one is a row; a mapping of
    records is not."""
    assert returns_a_row(dict) and returns_a_row(list[dict]) and returns_a_row(dict[str, dict])
    assert returns_a_row(typing.Optional[dict]) and returns_a_row(dict[str, int])
    assert not returns_a_row(list[Result]) and not returns_a_row(dict[str, TestRecord]) and not returns_a_row(int)
    assert not returns_a_row(Mapping[str, Mapping[str, Mapping[str, MatrixEntry]]])


def a_mutant(**changes) -> Mutant:
    return dataclasses.replace(Mutant(id="m1", target="rows", file="rows.py", line=3, end_line=4, function="take",
                                      op="take", operator="wrong_slice_start", original="start", replacement="0",
                                      diff="--- a/rows.py\n", skip=None, path="/x/rows.py"), **changes)


OUTCOMES = [
    Outcome("m1", Status.KILLED, killed_by="t::a", check=Check.ACCURACY, detail="off by one", duration=0.5,
            tests_run=2, test_seconds=0.25, cache_key="k", reused_from=3),
    Outcome.failed("m1", WorkerFailure.CRASHED, "crashed with SIGSEGV", signal=11, duration=1.0),
    Outcome("m1", Status.SURVIVED, why=Why.NOT_CHECKED, detail="outputs differ"),
]


@pytest.mark.parametrize("outcome", OUTCOMES, ids=["killed", "crashed", "survived"])
def test_an_outcome_reads_back_from_its_row_as_it_was_written(tmp_path, outcome):
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("rows", ["cpu"], [], {})
    store.record_mutants([a_mutant()])
    store.record_outcomes(run_id, "cpu", [outcome])
    (found,) = store.results(run_id)
    assert found == Result(a_mutant(), "cpu", outcome)
    assert outcome_of(outcome_row(outcome, "cpu")) == outcome


def test_a_mutant_a_test_and_a_run_read_back_from_their_rows():
    assert mutant_of(mutant_row(a_mutant())) == a_mutant()
    test = TestRecord(profile="cpu", test="t::a", duration=0.1, failure={"flaky": True}, covers={"rows.py::take": "f"},
                      lines={"rows.py": "1-3"}, test_key="k", profile_key="p", run_id=2)
    assert record_of_test(row_of_test(test)) == test
    run = Run(id=7, target="rows", status=RunStatus.COMPLETED, kind=RunKind.CHECK, dirty=True, profiles=("cpu",),
              versions={"teeth": "0.1"}, timings={"total": 1.5}, totals={"killed": 1}, options={"command": "check"},
              notes=("a note",), op_filter=("take",), shard="1/2")
    assert run_of({"id": 7, **run_row(run)}) == run


def test_results_are_filtered_by_status_and_a_kill_rate_counts_every_status(tmp_path):
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("rows", ["cpu"], [], {})
    store.record_mutants([a_mutant(id=f"m{n}", line=n) for n in range(3)])
    store.record_outcomes(run_id, "cpu", [Outcome("m0", Status.KILLED), Outcome("m1", Status.SURVIVED),
                                          Outcome("m2", Status.ERROR)])
    assert [r.mutant.id for r in store.results(run_id, OutcomeFilter.of("survived", "error"))] == ["m1", "m2"]
    (rate,) = store.kill_rates(run_id)
    assert rate == KillRate(counts={s.value: int(s in (Status.KILLED, Status.SURVIVED, Status.ERROR))
                                    for s in Status}, op="take", profile="cpu")
    assert rate.kill_rate == 0.5 and rate.to_json() == {"op": "take", "profile": "cpu", **rate.counts, "kill_rate": 0.5}


def test_a_pushed_run_is_the_run_that_was_exported(tmp_path):
    """`teeth push`'s body, parsed as the service parses it, gives back the run's records (the id is the server's)."""
    run = Run(id=1, target="rows", status=RunStatus.COMPLETED, started_at="2026-12-03T07:00:00+00:00", dirty=False,
              profiles=("cpu",), operators=("wrong_slice_start",), notes=("a note",))
    results = [Result(a_mutant(path=None), "cpu", dataclasses.replace(o, reused_from=None)) for o in OUTCOMES[:1]]
    tests = [TestRecord(profile="cpu", test="t::a", duration=0.1, covers={"rows.py::take": "f"}, test_key="k")]
    back, mutants, got, got_tests = pushed_records(PushedRun.model_validate(push_body(run, results, tests)))
    assert dataclasses.replace(back, id=1) == run
    assert mutants == [a_mutant(path=None)] and got == results and got_tests == tests
