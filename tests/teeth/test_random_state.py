"""Each test sees the random state it had in the baseline: a mutant's child runs only its selected tests (killer
first), and a test that draws unseeded inputs (`torch.randn`) after another test drew must still draw what it drew
in the baseline and in a plain run, else a verdict that depends on the values differs from the hand-applied one."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy
import torch

from tests.helpers.cli import results_of, verdict_by_hand
from tests.helpers.git_projects import git_repo

from teeth.workers.random_state import RandomStates


def test_a_test_drawing_unseeded_inputs_after_another_gets_the_verdict_a_plain_run_gets(project, teeth):
    """`magnitude`'s test draws after `test_total` drew two values: in a plain run (and the baseline) its input is
    negative, so `-x -> +x` is killed by hand; run alone from the state collection left, its input was positive and
    the mutant survived (teeth before the random state was restored)."""
    root = git_repo(project("unseeded_inputs"))
    done = teeth("run", "--target", "signs", "--no-cache", "--audit", "all", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    assert "0 disagreement(s)" in done.stdout, done.stdout
    rows = {row["mutant"]: row for row in results_of(teeth, root) if row["function"] == "magnitude"}
    negative_branch = [m for m, row in rows.items() if row["operator"] == "generic.swap_op" and row["status"] == "killed"]
    assert negative_branch, {m: (r["operator"], r["status"]) for m, r in rows.items()}
    for mutant, row in rows.items():
        if row["operator"] == "generic.arg_removal":
            continue  # killed whatever the input: one hand check each is all the cost this test needs
        assert row["status"] == verdict_by_hand(teeth, root, mutant), (mutant, row)


def test_restoring_a_recorded_state_replays_every_generator():
    states = RandomStates()
    states.record("first")
    drawn = (torch.randn(4), random.random(), numpy.random.rand(2))
    states.record("second")
    torch.randn(9), random.random(), numpy.random.rand(5)  # what another test would draw in between
    states.restore("first")
    again = (torch.randn(4), random.random(), numpy.random.rand(2))
    assert torch.equal(drawn[0], again[0]) and drawn[1] == again[1] and (drawn[2] == again[2]).all()
    states.restore("not in the baseline")  # runs as it is: nothing restored
    assert not torch.equal(torch.randn(4), drawn[0])


def test_a_test_that_draws_nothing_shares_the_state_before_it_through_the_worker_protocol():
    states = RandomStates()
    states.record("a")
    states.record("b")  # nothing drawn between: one state kept
    torch.rand(1)
    states.record("c")
    assert len(states.states) == 2 and states.tests == {"a": 0, "b": 0, "c": 1}
    decoded = RandomStates.decoded(states.encoded())
    assert decoded.states == states.states and decoded.tests == states.tests


SEEDED = """
from teeth.workers import random_state
random_state.seed()
import random, torch
print(torch.randn(3).tolist(), random.random())
"""


def test_the_worker_seeds_torch_when_it_is_imported_and_a_suites_own_seed_wins():
    """Python seeds `random` from the system, and so does torch 2.13: without a seed, two workers (two runs, two
    Ray actors) would record different states."""
    runs = [subprocess.run([sys.executable, "-c", SEEDED], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1], runs
    own = subprocess.run([sys.executable, "-c", SEEDED.replace("import random, torch",
                                                               "import random, torch; torch.manual_seed(0)")],
                         capture_output=True, text=True, check=True).stdout
    torch.manual_seed(0)
    assert own.split("]")[0] + "]" == str(torch.randn(3).tolist())
