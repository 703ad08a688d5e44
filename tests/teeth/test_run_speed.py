"""Killer-first order and reuse of stored outcomes by `teeth run`: a kill costs about the killing test."""

from __future__ import annotations

import sqlite3
from collections import Counter
from types import SimpleNamespace

from teeth.run.ordering import KillHistory

FAST_FIRST = ["t::fast", "t::middle", "t::slow"]


def mutant(ident="m1", file="rows.py", function="take_rows"):
    return SimpleNamespace(id=ident, file=file, function=function)


def test_without_history_the_baseline_order_stands():
    assert KillHistory().order(mutant(), FAST_FIRST) == FAST_FIRST


def test_the_mutants_own_killer_runs_first_then_its_functions_killers_by_frequency():
    history = KillHistory.from_rows([("m1", "rows.py", "take_rows", "t::middle"),
                                     ("m2", "rows.py", "take_rows", "t::slow"),
                                     ("m3", "rows.py", "take_rows", "t::slow"),
                                     ("m1", "rows.py", "take_rows", "t::slow")])  # newer run: m1 fell to slow
    assert history.by_mutant["m1"] == "t::slow"
    assert history.by_function[("rows.py", "take_rows")] == Counter({"t::slow": 3, "t::middle": 1})
    assert history.order(mutant("m1"), FAST_FIRST) == ["t::slow", "t::middle", "t::fast"]
    assert history.order(mutant("m9"), FAST_FIRST) == ["t::slow", "t::middle", "t::fast"]


def test_history_of_another_function_or_a_test_that_does_not_cover_changes_nothing():
    history = KillHistory.from_rows([("m2", "rows.py", "other", "t::slow"), ("m1", "rows.py", "take_rows", "t::gone")])
    assert history.order(mutant("m1"), FAST_FIRST) == FAST_FIRST


def outcomes(db, run_id):
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("select * from outcomes where run_id = ?", [run_id])]


def test_a_second_run_kills_with_the_killing_test_first(project, teeth):
    root = project("killer_last")  # the only killing test is the slowest of three
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    again = teeth("run", "--target", "rows", "--no-cache", cwd=root)
    assert again.returncode == 0, again.stderr
    first = {r["mutant_id"]: r for r in outcomes(teeth.db, 1)}
    second = {r["mutant_id"]: r for r in outcomes(teeth.db, 2)}
    slow = [m for m, r in first.items() if r["status"] == "killed" and r["tests_run"] > 1]
    assert slow, "the fixture should make fastest-first order run non-killing tests first"
    assert all(second[m]["status"] == "killed" and second[m]["tests_run"] == 1 for m in slow), second
    assert {m: r["status"] for m, r in first.items()} == {m: r["status"] for m, r in second.items()}


def test_a_run_reuses_outcomes_whose_key_holds_and_says_how_many(project, teeth):
    root = project("killer_last")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    again = teeth("run", "--target", "rows", cwd=root)
    assert again.returncode == 0, again.stderr
    assert "6 outcome(s) reused from earlier runs" in " ".join(again.stderr.split())
    assert all(r["reused_from"] == 1 for r in outcomes(teeth.db, 2))
    (root / "tests" / "test_more_rows.py").write_text(
        "from rows import take_rows\n\n\ndef test_later_rows():\n    assert take_rows([1, 2, 3, 4, 5], 1, 2) == [2, 3]\n")
    third = teeth("run", "--target", "rows", cwd=root)
    assert third.returncode == 0, third.stderr
    rows = outcomes(teeth.db, 3)
    assert {r["status"] for r in rows if r["reused_from"]} == {"killed"}  # their killing test file is unchanged
    rerun = [r for r in rows if r["reused_from"] is None]  # a new test might kill a survivor: it runs again
    assert len(rerun) == 1 and rerun[0]["status"] == "killed" and "test_more_rows" in rerun[0]["killed_by"]
    assert "5 outcome(s) reused" in " ".join(third.stderr.split())


def test_an_upgrade_of_torch_or_of_the_targets_own_distribution_changes_every_key(tmp_path, monkeypatch):
    import click

    from teeth.run import incremental
    from teeth.config.targets import Target
    from teeth.config.profiles import Profile

    target = Target(name="t", root=tmp_path, files=[incremental.Path(click.__file__)], tests=["tests"])
    profile = Profile(name="cpu")
    keys = lambda: incremental.OutcomeCache(target, store=None).profile_key(profile)  # noqa: E731
    before = keys()
    assert f"click=={incremental.importlib.metadata.version('click')}" in incremental.OutcomeCache(target, store=None).versions()
    monkeypatch.setattr(incremental, "_version", lambda name: "9.9" if name == "torch" else "1.0")
    torch_upgraded = keys()
    monkeypatch.setattr(incremental, "_version", lambda name: "9.9" if name in ("torch", "click") else "1.0")
    assert len({before, torch_upgraded, keys()}) == 3


def test_a_kill_is_recorded_as_one_line_whatever_traceback_style_the_suite_asks_for(project, teeth):
    root = project("killer_last")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'addopts = "--tb=long --showlocals"\n')
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    details = [r["detail"] for r in outcomes(teeth.db, 1) if r["status"] == "killed"]
    assert "AssertionError: assert [12] == [11, 12]" in details, details  # the failed assertion, not pytest's `+ where` lines
    assert all("\n" not in d and "where" not in d for d in details), details


def test_the_worker_formats_failures_as_one_line_after_the_suites_own_options(tmp_path):
    """pytest's full traceback representation made a kill cost ~16x its killing test on the batcher."""
    from teeth.config.targets import Target
    from teeth.config.profiles import Profile
    from teeth.workers.local import pytest_args

    target = Target(name="t", root=tmp_path, files=[], tests=["tests"], pytest_args=["--tb=long"])
    args = pytest_args(target, Profile(name="cpu", pytest_args=("--tb=auto",)))
    assert args[-1] == "--tb=line" and args.index("--tb=long") < args.index("--tb=auto") < len(args) - 1
