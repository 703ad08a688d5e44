"""The mutant id is `mutant_id` in every query and JSON output; the old JSON key `mutant` is still written for one
release (until teeth 0.2.0), equal to it."""

from __future__ import annotations

import json

from teeth.core import Outcome, Status
from teeth.report.json import results_json
from teeth.serve.store import ServeStore
from tests.helpers.mutants import mutant_record


def stored_run(tmp_path):
    store = ServeStore(tmp_path / "teeth.db")
    run_id = store.start_run("t", ["cpu"], [], {})
    store.record_mutants([mutant_record(m) for m in ("m1", "m2")])
    store.record_outcomes(run_id, "cpu", [Outcome("m1", Status.SURVIVED), Outcome("m2", Status.KILLED)])
    return store, run_id


def test_every_json_listing_of_a_runs_mutants_names_the_id_mutant_id(tmp_path):
    """The store's results are `Result`s whose mutant has its `id`; every JSON listing of them says `mutant_id`
    (and the old key, for one release)."""
    from teeth.serve.api import survivor_json

    store, run_id = stored_run(tmp_path)
    assert {r.mutant.id for r in store.results(run_id)} == {"m1", "m2"}
    for shown in ([survivor_json(r) for r in store.survivors(run_id)], json.loads(results_json(store.results(run_id)))):
        assert shown and all(row["mutant_id"] == row["mutant"] for row in shown)


def test_results_as_json_carry_mutant_id_and_the_old_key_for_one_release(tmp_path):
    store, run_id = stored_run(tmp_path)
    shown = json.loads(results_json(store.results(run_id)))
    assert [(r["mutant_id"], r["mutant"]) for r in shown] == [("m1", "m1"), ("m2", "m2")]
