"""`teeth run --fail-under RATE` and the target's `fail_under`: exit 1 under the rate, as `teeth check` gates."""

from __future__ import annotations

from tests.helpers.cli import teeth_in_process
from teeth.gate.policy import under_fail_under


def set_fail_under(root, value: str) -> None:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]\n', f'tests = ["tests"]\nfail_under = {value}\n'))


def test_run_under_fail_under_exits_1_and_is_recorded(project, teeth):
    root = project("weak_suite")  # 8 of 10 mutants killed: 80%
    done = teeth("run", "--target", "rows", "--fail-under", "0.9", cwd=root)
    assert done.returncode == 1, done.stderr
    assert "teeth run: FAILED: kill rate 80.0% is under fail_under 90.0%" in done.stdout
    assert teeth("results", cwd=root).returncode == 0  # the run is recorded all the same


def test_run_at_or_over_fail_under_exits_0(project, teeth):
    root = project("weak_suite")
    done = teeth("run", "--target", "rows", "--fail-under", "0.8", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "teeth run: passed: kill rate 80.0%, fail_under 80.0%" in done.stdout


def test_fail_under_in_the_config_gates_a_run_and_the_option_overrides_it(project, teeth):
    root = project("weak_suite")
    set_fail_under(root, "0.85")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 1
    assert teeth("run", "--target", "rows", "--fail-under", "0.5", cwd=root).returncode == 0


def test_run_without_fail_under_passes_whatever_survives(project, teeth):
    root = project("weak_suite")
    done = teeth("run", "--target", "rows", cwd=root)
    assert done.returncode == 0 and "fail_under" not in done.stdout


def test_a_fail_under_that_is_not_a_fraction_is_one_line_exit_2_before_anything_runs(project, teeth):
    root = project("weak_suite")
    for value in ("80", "x", "-0.1", "nan"):
        done = teeth_in_process("run", "--target", "rows", "--fail-under", value, "--db", teeth.db, cwd=root)
        assert done.exit_code == 2, (value, done.output)
        assert done.stderr.strip().splitlines() == [
            f"teeth: error: --fail-under {value!r}: expected a fraction from 0 to 1 (0.8 means 80%)"]
    assert not teeth.db.exists()


def test_the_rate_gate_is_the_one_teeth_check_uses():
    assert under_fail_under(0.79, 0.8) and not under_fail_under(0.8, 0.8)
    assert not under_fail_under(None, 0.8) and not under_fail_under(0.1, None)
