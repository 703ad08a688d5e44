"""A run's timings start when the command does: the interpreter's start and teeth's imports, discovery and the rest
of the preparation are stages of `runs.timings` like the worker's start and the baseline."""

from __future__ import annotations

import json
import sqlite3

STAGES = ("startup", "discover", "prepare", "worker.cpu", "baseline.cpu")


def _timings(db) -> dict:
    with sqlite3.connect(db) as conn:
        (timings,) = conn.execute("select timings from runs").fetchone()
    return json.loads(timings)


def test_the_stages_before_the_run_opened_are_in_its_timings(weak_suite_run):
    timings = _timings(weak_suite_run.db)
    assert set(STAGES) <= set(timings), timings
    assert all(timings[stage] > 0 for stage in STAGES), timings


def test_the_total_and_the_fixed_cost_count_from_the_command_start(weak_suite_run):
    timings = _timings(weak_suite_run.db)
    before = sum(timings[stage] for stage in STAGES)  # every stage before the first mutant, in the order they ran
    assert before <= timings["first_mutant"] + 0.01, timings
    assert timings["first_mutant"] < timings["total"], timings
    assert sum(v for k, v in timings.items() if k not in ("first_mutant", "total")) <= timings["total"] + 0.01
