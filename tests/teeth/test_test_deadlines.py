"""Each test of a mutant has its own deadline, from its own baseline time: a loop in a fast test is stopped within
its test's budget, not the mutant's; a test that is slow but finishes is not cut off."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest

from teeth.config.targets import Target
from teeth.core import MutantScenario, Outcome, Status
from teeth.run.coverage_map import CoverageMap
from teeth.workers.protocol import Running, frame
from teeth.workers.supervisor import Child
from tests.helpers.cli import FIXTURES, teeth_cli

FAST = "tests/test_steps.py::test_counts_up_to_n"
TOKEN = b"\x00teeth-result-test:"


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> list[dict]:
    """`teeth results` of one `teeth run` of loops_in_a_fast_test, with the default deadlines."""
    root = tmp_path_factory.mktemp("deadlines") / "loops_in_a_fast_test"
    shutil.copytree(FIXTURES / "loops_in_a_fast_test", root, ignore=shutil.ignore_patterns("__pycache__"))
    db = str(root.parent / "teeth.db")
    done = teeth_cli("run", "--target", "steps", "--db", db, cwd=root)
    assert done.returncode == 0, done.stderr
    done = teeth_cli("results", "--format", "json", "--db", db, cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_mutant_that_loops_in_a_fast_test_times_out_within_that_tests_budget(rows):
    (looping,) = [r for r in rows if r["operator"] == "generic.augmented_assignment"]
    assert looping["status"] == "timeout" and looping["killed_by"] == FAST
    budget = re.search(rf"{re.escape(FAST)} ran past its own budget of ([0-9.]+) s \(the mutant's was ([0-9.]+) s\)",
                       looping["detail"])
    assert budget, looping["detail"]
    own, mutants = float(budget[1]), float(budget[2])
    assert 1.0 <= own < 2.0  # test_timeout_floor 1 s + 5 x a test of milliseconds
    assert mutants >= 5.0 and own < mutants  # the whole mutant's deadline (timeout_floor 5 s) never came


def test_a_test_slower_than_the_floor_that_finishes_within_its_budget_is_not_cut_off(rows):
    (slower,) = [r for r in rows if r["function"] == "settle"]
    # 0.3 -> 1.3: the test sleeps 1.3 s, past test_timeout_floor (1 s), within 1 s + 5 x its 0.3 s baseline
    assert (slower["operator"], slower["status"]) == ("generic.number", "survived"), slower


def test_each_test_budget_is_its_floor_plus_its_factor_times_its_own_baseline():
    coverage = CoverageMap(durations={"a": 0.03, "b": 2.0}, failures={})
    target = Target(name="t", root=".", files=[], tests=["tests"], test_timeout_floor=0.5, test_timeout_factor=10)
    deadlines = coverage.deadlines(["a", "b"], target)
    assert deadlines["test_timeouts"] == {"a": 0.5 + 10 * 0.03, "b": 0.5 + 10 * 2.0}
    assert deadlines["timeout"] == target.timeout_floor + target.timeout_factor * 2.03


def _child(budgets: dict[str, float]) -> Child:
    scenario = MutantScenario(id="m", path="p.py", swap="f", code="", tests=["a", "b", "c"], timeout=60,
                              test_timeouts=budgets)
    return Child(pid=0, fd=-1, pidfd=-1, scenario=scenario, token=TOKEN)


def test_a_tests_deadline_is_armed_when_the_child_says_it_runs_it():
    child = _child({"a": 0.5, "b": 3.0})
    before = time.monotonic()
    child.data += frame(TOKEN, Running("a", 1))
    child.heard()
    assert child.test_deadline is not None and before + 0.5 <= child.test_deadline <= time.monotonic() + 0.5
    assert child.next_deadline() == child.test_deadline
    child.data += frame(TOKEN, Running("b", 2))
    child.heard()
    assert child.running.test == "b" and child.test_deadline >= before + 3.0


def test_a_test_without_a_baseline_time_keeps_only_the_mutants_deadline():
    child = _child({"a": 0.5})
    child.data += frame(TOKEN, Running("a", 1))
    child.heard()
    child.data += frame(TOKEN, Running("c", 2))  # no budget of its own
    child.heard()
    assert child.test_deadline is None and child.next_deadline() == child.deadline


def test_the_result_disarms_the_last_tests_deadline():
    child = _child({"a": 0.5})
    child.data += frame(TOKEN, Running("a", 1))
    child.heard()
    child.data += frame(TOKEN, Outcome("m", Status.SURVIVED, tests_run=1))
    child.heard()
    assert child.test_deadline is None


def test_on_the_cold_path_a_test_has_only_the_mutants_deadline(tmp_path):
    """Cold, each child pays imports, CUDA's start and kernel compiles in its tests, which their baseline times do
    not hold: the loop runs until the mutant's deadline."""
    root = tmp_path / "loops_in_a_fast_test"
    shutil.copytree(FIXTURES / "loops_in_a_fast_test", root, ignore=shutil.ignore_patterns("__pycache__"))
    db = str(tmp_path / "teeth.db")
    done = teeth_cli("run", "--target", "steps", "--execution", "cold", "--operator", "generic.augmented_assignment",
                     "--db", db, cwd=root)
    assert done.returncode == 0, done.stderr
    done = teeth_cli("results", "--format", "json", "--db", db, cwd=root)
    (looping,) = json.loads(done.stdout)
    assert looping["status"] == "timeout" and "; its budget was " in looping["detail"], looping
    assert "its own budget" not in looping["detail"]


def test_a_child_on_the_cold_path_arms_no_tests_deadline():
    scenario = MutantScenario(id="m", path="p.py", swap="f", code="", tests=["a"], timeout=60, test_timeouts={"a": 1})
    child = Child(pid=0, fd=-1, pidfd=-1, scenario=scenario, token=TOKEN, test_deadlines=False)
    child.data += frame(TOKEN, Running("a", 1))
    child.heard()
    assert child.test_deadline is None and child.next_deadline() == child.deadline
