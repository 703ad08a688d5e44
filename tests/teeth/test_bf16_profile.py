"""torch_cpu_bf16: an accuracy bound derived from the fp32 row by one bf16 rounding, tight both ways.

Too tight: the correct torch adapters fail it. Too loose: a low_precision_accumulation mutant (an
fp32 upcast removed, an accumulator allocated in bf16) passes it. The mutants marked equivalent
must be bit-identical to the adapter, so that marking hides no killable one. End to end, `teeth run`
kills them on torch_cpu_bf16 and skips them, with the reason, on torch_cpu_fp32.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from teeth.config.targets import load_config
from teeth.discovery.discover import discover_file
from teeth.invariance import check_gradient_invariance
from teeth.invariance.configs import batch_plan
from teeth.invariance.harness import default_configs
from teeth.invariance.runner import make_logical, run_plan, run_reference
from teeth.invariance.thresholds import BF16_UNIT_ROUNDOFF, THRESHOLDS
from teeth.operators import select_operators

REPO = Path(__file__).resolve().parents[2]
PROFILE = "torch_cpu_bf16"
BF16 = PROFILES[PROFILE]
OPS = ("rmsnorm", "linear", "attention")


def _mutants(op: str):
    target = load_config(start=REPO).target("kernels")
    path = REPO / "kernels" / "torch_ops" / f"{op}.py"
    return discover_file(target, path, select_operators(["low_precision_accumulation"])).mutants


MUTANTS = [(op, m) for op in OP_SPECS for m in _mutants(op)]  # every torch adapter
KILLABLE = [pytest.param(op, m, id=f"{op}:{m.line}:{m.one_line[:40]}") for op, m in MUTANTS if not m.skip]
EQUIVALENT = [pytest.param(op, m, id=f"{op}:{m.line}:{m.one_line[:40]}") for op, m in MUTANTS if m.skip]


def _mutated(op: str, mutant):
    module = types.ModuleType(f"kernels.torch_ops.{op}")
    exec(compile(mutant.code, mutant.path, "exec"), module.__dict__)
    return getattr(module, op)


def _batch(op: str, fn):
    spec = OP_SPECS[op]
    logical = make_logical(spec, default_configs(spec).lengths, default_configs(spec).seed)
    got = run_plan(spec, fn, logical, batch_plan(logical.lengths), dtype=torch.bfloat16)
    return got, run_reference(spec, logical, torch.bfloat16)


def _share_of_bound(op: str, fn) -> float:
    """max over outputs and gradients of |actual - reference| / (atol + rtol |reference|): above 1 fails."""
    tol = BF16.tolerance("accuracy")
    got, ref = _batch(op, fn)
    return max(float(((got[n].double() - ref[n]).abs() / (tol.atol + tol.rtol * ref[n].abs())).max()) for n in got)


def test_the_tolerance_is_the_fp32_row_rounded_once_to_bf16():
    assert BF16_UNIT_ROUNDOFF == torch.finfo(torch.bfloat16).eps / 2
    fp32, u = THRESHOLDS["accuracy"]["float32"], BF16_UNIT_ROUNDOFF
    tol = BF16.tolerance("accuracy")
    assert (tol.atol, tol.rtol) == ((1 + u) * fp32.atol, u + (1 + u) * fp32.rtol)


@pytest.mark.parametrize("op", OPS)
def test_the_correct_adapter_passes_and_uses_most_of_the_bound(op):
    """Not too tight (the correct code passes), and not slack: its one rounding reaches over half the bound."""
    share = _share_of_bound(op, BF16.implementation(op))
    assert 0.5 < share <= 1.0, share


@pytest.mark.parametrize("op", OPS)
def test_every_op_has_a_killable_low_precision_mutant(op):
    assert any(o == op and not m.skip for o, m in MUTANTS)


@pytest.mark.parametrize("op, mutant", KILLABLE)
def test_a_low_precision_mutant_fails_accuracy_on_bf16(op, mutant):
    report = check_gradient_invariance(OP_SPECS[op], profile=BF16, impl=_mutated(op, mutant), checks=["accuracy"])
    assert report.checks["accuracy"].status == "fail", report.checks["accuracy"].summary()


@pytest.mark.parametrize("op, mutant", EQUIVALENT)
def test_a_mutant_marked_equivalent_is_bit_identical_on_bf16(op, mutant):
    assert mutant.skip.startswith("equivalent: ")
    original, _ = _batch(op, BF16.implementation(op))
    mutated, _ = _batch(op, _mutated(op, mutant))
    for name in original:
        assert torch.equal(mutated[name], original[name]), name


CONFIG = """
[profiles.torch_cpu_bf16]
pytest_args = ["-k", "torch_cpu_bf16 and accuracy"]
dtype = "bfloat16"

[profiles.torch_cpu_fp32]
pytest_args = ["-k", "torch_cpu_fp32 and accuracy"]

[targets.low_precision]
root = "{root}"
files = ["kernels/torch_ops/rmsnorm.py", "kernels/torch_ops/linear.py", "kernels/torch_ops/attention.py"]
tests = ["tests/kernels/test_invariance_cells.py"]
profiles = ["torch_cpu_bf16", "torch_cpu_fp32"]
operators = ["low_precision_accumulation"]
op_from = "file"
"""


def test_teeth_run_kills_them_on_bf16_and_on_fp32_skips_those_whose_change_is_nothing_there(tmp_path):
    config, db = tmp_path / "teeth.toml", str(tmp_path / "t.db")
    config.write_text(CONFIG.format(root=REPO.as_posix()))
    cli = [sys.executable, "-m", "teeth.cli"]
    done = subprocess.run([*cli, "run", "--target", "low_precision", "--config", str(config), "--db", db],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    listed = subprocess.run([*cli, "results", "--format", "json", "--db", db], cwd=REPO, capture_output=True,
                            text=True, timeout=120)
    rows = json.loads(listed.stdout)
    bf16 = [r for r in rows if r["profile"] == PROFILE]
    assert {r["status"] for r in bf16} == {"killed", "skipped"}
    assert all(r["detail"].startswith("equivalent: ") for r in bf16 if r["status"] == "skipped")
    assert {r["op"] for r in bf16 if r["status"] == "killed"} == set(OPS)
    assert {r["check"] for r in bf16 if r["status"] == "killed"} == {"accuracy"}
    fp32 = [r for r in rows if r["profile"] == "torch_cpu_fp32"]
    # On fp32 an upcast of a float32 tensor is nothing (skipped), but a float32 accumulator allocated in bfloat16
    # loses bits whatever the inputs are: those run, and fp32's accuracy check kills them too.
    assert len(fp32) == len(bf16) and {r["status"] for r in fp32} == {"skipped", "killed"}
    assert all("only killable on a profile that runs bfloat16 or float16 (profile torch_cpu_fp32 runs float32)"
               in r["detail"] for r in fp32 if r["status"] == "skipped")
    assert all("dtype=torch.float32" in (REPO / r["file"]).read_text().splitlines()[r["line"] - 1]
               and r["check"] == "accuracy" for r in fp32 if r["status"] == "killed")
