"""`teeth invariance` prints the status matrix and exits 0 green, 1 on an untracked red cell, 2 on bad input
(one line, no traceback): an unknown op or profile, a config without [tool.teeth.invariance], or one that names
op specs or profiles that do not import."""
import json

import pytest
from click.testing import CliRunner

from teeth.cli import main
from teeth.invariance import known_failures
from teeth.invariance.profiles import InvarianceProfile
from broken_kernels import token_blocked_rmsnorm

ARGS = ["invariance", "--op", "rmsnorm", "--profile", "torch_cpu_fp32"]


def invariance(*args: str):
    return CliRunner().invoke(main, list(args))


def one_line_error(result, fragment: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert fragment in lines[0], lines[0]


def test_green_matrix_exits_zero_and_lists_every_check_as_json():
    result = invariance(*ARGS, "--format", "json")
    assert result.exit_code == 0, result.output
    cells = json.loads(result.output)["cells"]
    assert [(c["check"], c["status"]) for c in cells] == [
        ("accuracy", "pass"), ("batch_invariance", "pass"), ("chunk_invariance", "pass"),
        ("determinism", "pass"), ("audit", "pass")]


def test_unknown_op_is_one_line_and_exit_code_two():
    one_line_error(invariance("invariance", "--op", "nope"), "unknown op 'nope'")


def test_unknown_profile_is_one_line_and_exit_code_two():
    one_line_error(invariance("invariance", "--profile", "nope"), "unknown profile 'nope'")


def test_cuda_profiles_show_as_skipped_with_the_reason_in_the_table():
    result = invariance("invariance", "--op", "silu", "--profile", "cuda_bf16")
    assert "skip" in result.output and "needs CUDA" in result.output


def test_a_red_cell_exits_one_and_names_the_tensor(monkeypatch):
    monkeypatch.setattr(InvarianceProfile, "implementation", lambda self, op: token_blocked_rmsnorm)
    result = invariance(*ARGS)
    assert result.exit_code == 1
    assert "FAIL rmsnorm [torch_cpu_fp32] batch_invariance: rmsnorm.dweight" in result.output


def test_a_known_tracked_failure_is_listed_but_not_red(monkeypatch):
    monkeypatch.setattr(InvarianceProfile, "implementation", lambda self, op: token_blocked_rmsnorm)
    monkeypatch.setitem(known_failures.KNOWN_FAILURES, ("rmsnorm", "torch_cpu_fp32", "batch_invariance"), "#4")
    result = invariance(*ARGS)
    assert result.exit_code == 0
    assert "known (#4) rmsnorm [torch_cpu_fp32] batch_invariance: rmsnorm.dweight" in result.output


def test_a_config_without_an_invariance_table_is_one_line(tmp_path):
    config = tmp_path / "teeth.toml"
    config.write_text("[profiles.cpu]\n")
    one_line_error(invariance("invariance", "--config", str(config)), "no [tool.teeth.invariance] table")


@pytest.mark.parametrize("specs, fragment", [
    ("no_such_module.specs:OP_SPECS", "cannot import no_such_module.specs"),
    ("kernels.specs:NO_SUCH_NAME", "has no attribute 'NO_SUCH_NAME'"),
    ("kernels.profiles:PROFILES", "expected a mapping of name -> OpSpec"),
    ("kernels.specs", "expected an object as MODULE:ATTRIBUTE"),
])
def test_op_specs_that_do_not_import_are_one_line(tmp_path, specs, fragment):
    config = tmp_path / "teeth.toml"
    config.write_text(f'[invariance]\nspecs = "{specs}"\nprofiles = "kernels.profiles:PROFILES"\n')
    one_line_error(invariance("invariance", "--config", str(config)), fragment)
