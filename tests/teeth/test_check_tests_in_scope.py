"""`teeth check` on a change that adds tests only: the mutants the new tests execute are in scope, the ones they newly
kill are listed with their full matrix, and a change whose tests newly kill no required bug class fails, naming them."""

from __future__ import annotations

from tests.helpers.git_projects import add_tests, check, git, git_repo


def test_a_test_only_change_lists_the_mutant_it_newly_kills_with_its_matrix(project, teeth):
    root = git_repo(project("gradient_rows_test_only"))
    add_tests(root, "test_batched_grads.py")
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "tests: 5 added, 0 edited; base: measured here" in out
    offset = out.index("zero_storage_offset [cpu] (survived under the base): view.storage_offset() -> 0")
    assert out[offset:].splitlines()[1].strip() == "5 failed, 1 passed of 6 that execute it"
    assert "killed by tests/test_batched_grads.py::test_an_invoke_past_row_0_reads_its_own_gradient_rows" \
        "[1, 2, 3, 4, 5]" in out[offset:]
    assert "kill no mutant" not in out and "teeth check: passed" in out


def test_a_toothless_added_test_fails_the_check_and_is_named(project, teeth):
    root = git_repo(project("gradient_rows_test_only"))
    add_tests(root, "test_batched_backward_runs.py")
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line for line in done.stdout.splitlines() if "FAILED:" in line]
    assert len(failed) == 1 and "tests/test_batched_backward_runs.py::test_the_batched_backward_runs newly kill " \
        "no mutant of the domain operators" in failed[0]


def test_the_gate_on_added_tests_can_be_turned_off(project, teeth):
    root = git_repo(project("gradient_rows_test_only"), new_kills="0")
    add_tests(root, "test_batched_backward_runs.py")
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "newly killed: 0" in done.stdout


def test_a_base_run_in_the_database_gives_the_bases_outcomes(project, teeth):
    root = git_repo(project("gradient_rows_test_only"))
    git(root, "checkout", "-q", "main")
    assert teeth("run", "--target", "grads", cwd=root).returncode == 0
    git(root, "checkout", "-q", "feature")
    add_tests(root, "test_batched_grads.py")
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "base: outcomes of run 1 (the `teeth run` at the base commit)" in done.stdout
    assert "zero_storage_offset [cpu] (survived under the base)" in done.stdout
    shown = teeth("show", "8c91b9fe81f2", "--run", "2", cwd=root)
    assert "kill matrix [cpu]: 5 failed, 1 passed of 6 that execute it" in shown.stdout, shown.stdout


def test_an_edited_tests_base_version_judges_the_base_so_its_old_kills_are_not_new(project, teeth):
    root = git_repo(project("gradient_rows_test_only"))
    add_tests(root, "test_grads.py")  # edits the suite's one test: it now also reads an invoke past row 0
    done = check(teeth, root, "--base", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "tests: 0 added, 1 edited; base: measured here, as the 0 added test(s) absent and the 1 edited at their " \
        "base version" in out
    # 11 kills: the 6 its base version made too are not new; the 5 of the invoke past row 0 are
    assert "tests/test_grads.py::test_a_single_invoke_reads_its_own_gradient: kills 11 (5 newly), alone 11" in out, out
    assert "zero_storage_offset [cpu] (survived under the base)" in out and "note:" not in out.split("tests: ")[1]
