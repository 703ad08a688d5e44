"""The store hands out runs as frozen `Run`s: JSON columns parsed, kind and status typed, and back to JSON."""

from __future__ import annotations

import dataclasses
import json

import pytest

from teeth.records import Run, RunKind, RunStatus
from teeth.store import Store


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
