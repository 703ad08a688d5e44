"""A configured profile says everything itself: nothing of a built-in profile of the same name leaks into it, and
its pytest_args add to its target's."""

from __future__ import annotations

from teeth.operators import select_operators
from teeth.config.profiles import BUILTIN_PROFILES, Profile, profile_from_table
from tests.helpers.cli import results_of


def test_the_built_in_profiles_are_generic():
    assert set(BUILTIN_PROFILES) == {"cpu", "triton_interpret", "cuda"}
    assert all(not p.pytest_args for p in BUILTIN_PROFILES.values())


def test_a_configured_profile_keeps_nothing_of_the_built_in_of_its_name():
    mine = profile_from_table("cuda", {"env": {"MINE": "1"}})
    assert (mine.env, mine.pytest_args, mine.requires, mine.execution) == ({"MINE": "1"}, (), None, "warm")


def test_killability_follows_the_profiles_dtype_not_its_name():
    [low_precision] = select_operators(["low_precision_accumulation"])
    assert low_precision.unkillable_on(profile_from_table("my_gpu", {"dtype": "bfloat16"})) is None
    assert "(profile torch_cpu_bf16 runs float32)" in low_precision.unkillable_on(Profile("torch_cpu_bf16"))
    assert all(op.unkillable_on(Profile("cpu")) is None for op in select_operators(None) if op.name != low_precision.name)


def test_a_profile_named_like_a_kernels_profile_runs_all_its_tests(project, teeth):
    """Before: a user's `triton_interpret_fp32` inherited `-k triton_interpret_fp32` and deselected every test."""
    root = project("weak_suite")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]', 'tests = ["tests"]\nprofiles = ["triton_interpret_fp32"]')
                         + '\n[tool.teeth.profiles.triton_interpret_fp32]\nenv = { MINE = "1" }\n')
    done = teeth("run", "--target", "rows", cwd=root)
    assert done.returncode == 0, done.stderr
    killers = {r["killed_by"].rpartition("::")[2] for r in results_of(teeth, root) if r["status"] == "killed"}
    assert killers == {"test_first_rows_are_taken", "test_total_of_a_batch"}


def test_a_profiles_pytest_args_add_to_its_targets(project, teeth):
    """The target deselects test_first_rows_are_taken, the profile every test of `total`: only test_middle_rows runs."""
    root = project("weak_suite")
    (root / "tests" / "test_more.py").write_text(
        "from rows import take_rows\n\n\ndef test_middle_rows():\n    assert take_rows([10, 11, 12, 13], 1, 2) == [11, 12]\n")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'tests = ["tests"]',
        'tests = ["tests"]\npytest_args = ["--deselect", "tests/test_rows.py::test_first_rows_are_taken"]\n'
        'profiles = ["narrow"]')
        + '\n[tool.teeth.profiles.narrow]\npytest_args = ["-k", "not total"]\n')
    done = teeth("run", "--target", "rows", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    assert {r["status"] for r in rows if r["function"] == "total"} == {"no_coverage"}  # the profile's -k
    killers = {r["killed_by"] for r in rows if r["status"] == "killed"}
    assert killers == {"tests/test_more.py::test_middle_rows"}  # and the target's --deselect
