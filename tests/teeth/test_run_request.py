"""A run's request is built once from the command's options over the config's defaults, and everything that reads a
run's options (the lab's scope and cache, the gate, the recorded options and the columns read back from them) reads
it from there."""

from __future__ import annotations

import os

import pytest

from teeth.config.targets import load_config
from teeth.core import Status
from teeth.errors import TeethError
from teeth.run.lab import Lab, RunSummary, stale_equivalents
from teeth.operators import select_operators
from teeth.store.records import RunKind
from teeth.run.request import RunRequest
from teeth.run.shards import Shard
from teeth.store.db import Store
from teeth.store.schema import run_columns
from tests.helpers.mutants import mutant_record


@pytest.fixture
def config(tmp_path):
    (tmp_path / "rows.py").write_text("def total(xs):\n    return sum(xs)\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.teeth.targets.rows]\nfiles = ["rows.py"]\ntests = ["tests"]\nfail_under = 0.9\n'
        'operators = ["domain"]\nprofiles = ["cpu", "slow"]\n'
        '[tool.teeth.targets.rows.equivalent]\n"0123456789ab" = "gone since"\n'
        '[tool.teeth.profiles.slow]\nexecution = "warm"\n')
    return load_config(None, tmp_path)


def names(operators) -> list[str]:
    return [o.name for o in operators]


def test_the_configs_defaults_hold_where_no_option_is_given(config):
    request = RunRequest.of_run(config, "rows")
    assert request.gate == 0.9  # the target's fail_under gates a whole run
    assert names(request.operators) == names(select_operators(["domain"]))
    assert [(p.name, p.execution) for p in request.profiles] == [("cpu", "warm"), ("slow", "warm")]
    assert request.jobs == (os.cpu_count() or 1) and request.reuses and request.infection and request.audit is None


def test_an_option_overrides_the_configs_default(config):
    request = RunRequest.of_run(config, "rows", fail_under=0.5, operator_names=("generic",), profile_names=("slow",),
                                execution="cold", jobs=3, cache=False, audit="all", infection=False)
    assert request.gate == 0.5
    assert names(request.operators) == names(select_operators(["generic"]))
    assert [(p.name, p.execution) for p in request.profiles] == [("slow", "cold")]
    assert (request.jobs, request.reuses, request.audit, request.infection) == (3, False, "all", False)
    assert RunRequest.of_run(config, "rows", backend="ray").jobs == 0  # one actor per slot of the cluster
    assert RunRequest.of_run(config, "rows", audit="7").audit == 7


def test_a_part_of_the_target_is_gated_only_by_an_explicit_fail_under(config):
    assert RunRequest.of_run(config, "rows", shard="2/3").gate is None
    assert RunRequest.of_run(config, "rows").choosing({"a"}).gate is None
    assert RunRequest.of_run(config, "rows", shard="2/3", fail_under=0.25).gate == 0.25
    chosen = RunRequest.of_run(config, "rows").choosing({"a"}, ("survived",))
    assert not chosen.reuses and not chosen.whole  # chosen mutants run against today's tests


@pytest.mark.parametrize("options, message", [
    ({"profile_names": ("gpu",)}, "unknown profile 'gpu' for target rows"),
    ({"address": "auto"}, "--address needs --backend ray"),
    ({"audit": "0"}, "--audit '0': expected a number of mutants"),
    ({"shard": "4/3"}, "--shard 4/3: k must be from 1 to n"),
])
def test_an_option_the_config_or_the_command_cannot_take_is_one_error(config, options, message):
    with pytest.raises(TeethError, match=message):
        RunRequest.of_run(config, "rows", **options)


def test_the_run_holds_only_its_shard_and_its_chosen_mutants(config):
    ids = [f"{n:012x}" for n in range(40)]
    shard = RunRequest.of_run(config, "rows", shard="2/3")
    assert [i for i in ids if shard.holds(i)] == [i for i in ids if Shard(2, 3).holds(i)] != ids
    both = shard.choosing(set(ids[:10]))
    assert [i for i in ids if both.holds(i)] == [i for i in ids[:10] if Shard(2, 3).holds(i)]
    assert all(RunRequest.of_run(config, "rows").holds(i) for i in ids)


def test_the_recorded_options_are_those_runs_have_always_recorded_and_read_back_as_the_runs_columns(config):
    whole = RunRequest.of_run(config, "rows", jobs=2)
    assert whole.recorded_options() == {"ops": [], "jobs": 2, "operators": [], "profiles": [], "backend": "local",
                                        "address": None, "no_cache": False, "execution": None}
    assert run_columns(whole.recorded_options()) == {"kind": "run", "op_filter": None, "operator_filter": None,
                                                     "profile_filter": None, "shard": None, "mutant_filter": None}
    part = RunRequest.of_run(config, "rows", ops=("sum",), operator_names=("generic",), profile_names=("cpu",),
                             shard="1/2", full_matrix=True, infection=False).choosing({"b", "a"}, ("survived",))
    options = part.recorded_options()
    assert (options["mutants"], options["only"], options["full_matrix"], options["no_infection"]) == \
        (["a", "b"], ["survived"], True, True)
    assert run_columns(options) == {"kind": "run", "op_filter": '["sum"]', "operator_filter": '["generic"]',
                                    "profile_filter": '["cpu"]', "shard": "1/2", "mutant_filter": '["a", "b"]'}


def test_a_check_is_recorded_as_a_check_and_judging_tests_takes_a_full_matrix(config):
    target = config.target("rows")
    check = RunRequest.of_check(target, "main", "f" * 40, jobs=2)
    assert check.kind is RunKind.CHECK and check.reuses and check.gate == 0.9
    assert check.recorded_options() == {"command": "check", "base": "main", "merge_base": "f" * 40, "jobs": 2,
                                        "cache": True}
    assert run_columns(check.recorded_options())["kind"] == "check"
    judging = check.testing(["tests/test_rows.py::test_new"], [])
    assert judging.full_matrix and not judging.reuses  # a reused outcome has no matrix
    assert judging.recorded_options()["tests"] == {"added": ["tests/test_rows.py::test_new"], "edited": []}


def test_the_lab_takes_its_cache_selection_and_audit_from_the_request(config, tmp_path):
    store = Store(tmp_path / "teeth.db")
    target = config.target("rows")
    run = Lab(RunRequest.of_run(config, "rows", audit="3"), store, backends=None)
    assert (run.cache.reuse, run.selection.enabled, run.audit.count) == (True, False, 3)
    check = Lab(RunRequest.of_check(target, "main", "f" * 40), store, backends=None)
    assert (check.cache.reuse, check.selection.enabled, check.audit) == (True, True, None)  # only a check selects
    uncached = Lab(RunRequest.of_check(target, "main", "f" * 40, cache=False), store, backends=None)
    assert (uncached.cache.reuse, uncached.selection.enabled) == (False, False)


def test_stale_equivalent_ids_are_warned_of_unless_operators_were_left_out(config):
    found = [mutant_record("fedcba987654")]
    warning = stale_equivalents(RunRequest.of_run(config, "rows"), found)
    assert "target rows: equivalent id(s) that match no mutant" in warning and "0123456789ab" in warning
    assert stale_equivalents(RunRequest.of_run(config, "rows", operator_names=("generic",)), found) is None
    assert stale_equivalents(RunRequest.of_run(config, "rows"), [mutant_record("0123456789ab")]) is None


def test_the_gate_reads_the_kill_rate_the_lab_counted(config):
    counts = {s.value: 0 for s in Status} | {"killed": 3, "timeout": 1, "survived": 2, "no_coverage": 2}
    summary = RunSummary(1, None, [], "completed", totals={**counts, "arid": 9, "duplicates": 4, "unviable": 1})
    assert summary.kill_rate == 0.5  # (3 + 1) / (3 + 1 + 2 + 2): the mutants not made do not count
