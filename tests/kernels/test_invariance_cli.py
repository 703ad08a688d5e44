"""`teeth invariance` prints the status matrix and exits 0 green, 1 on an untracked red cell, 2 on bad input."""
import json

from click.testing import CliRunner

import kernels.profiles
from teeth.invariance import known_failures
from teeth.invariance.cli import invariance_command
from test_harness_catches_batch_dependent_block_size import token_blocked_rmsnorm

ARGS = ["--op", "rmsnorm", "--profile", "torch_cpu_fp32"]


def test_green_matrix_exits_zero_and_lists_every_check_as_json():
    result = CliRunner().invoke(invariance_command, ARGS + ["--format", "json"])
    assert result.exit_code == 0, result.output
    cells = json.loads(result.output)["cells"]
    assert [(c["check"], c["status"]) for c in cells] == [
        ("accuracy", "pass"), ("batch_invariance", "pass"), ("chunk_invariance", "pass"),
        ("determinism", "pass"), ("audit", "pass")]


def test_unknown_op_is_one_line_and_exit_code_two():
    result = CliRunner().invoke(invariance_command, ["--op", "nope"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [result.output.strip()] and "unknown op 'nope'" in result.output


def test_cuda_profiles_show_as_skipped_with_the_reason_in_the_table():
    result = CliRunner().invoke(invariance_command, ["--op", "silu", "--profile", "cuda_bf16"])
    assert "skip" in result.output and "needs CUDA" in result.output


def test_a_red_cell_exits_one_and_names_the_tensor(monkeypatch):
    monkeypatch.setattr(kernels.profiles, "implementation", lambda op, profile: token_blocked_rmsnorm)
    result = CliRunner().invoke(invariance_command, ARGS)
    assert result.exit_code == 1
    assert "FAIL rmsnorm [torch_cpu_fp32] batch_invariance: rmsnorm.dweight" in result.output


def test_a_known_tracked_failure_is_listed_but_not_red(monkeypatch):
    monkeypatch.setattr(kernels.profiles, "implementation", lambda op, profile: token_blocked_rmsnorm)
    monkeypatch.setitem(known_failures.KNOWN_FAILURES, ("rmsnorm", "torch_cpu_fp32", "batch_invariance"), "#4")
    result = CliRunner().invoke(invariance_command, ARGS)
    assert result.exit_code == 0
    assert "known (#4) rmsnorm [torch_cpu_fp32] batch_invariance: rmsnorm.dweight" in result.output
