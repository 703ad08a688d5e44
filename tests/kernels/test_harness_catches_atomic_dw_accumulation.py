"""A broken linear whose dW accumulates like atomics (scheduling-ordered) turns exactly determinism and batch_invariance red."""
import itertools
import random

import pytest
import torch

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from kernels.torch_ops.linear import Linear
from teeth.invariance import InvarianceFailure, assert_gradient_batch_invariant, check_gradient_invariance

FP32 = PROFILES["torch_cpu_fp32"]

_launches = itertools.count()


class AtomicDWLinear(Linear):
    """dW += dy[t] x[t]^T for every token of the batch, in the order the 'programs happened to run'."""

    @staticmethod
    def backward(ctx, dy):
        dx, _, _ = Linear.backward(ctx, dy)
        xf, wf, _ = ctx.saved_tensors
        order = list(range(dy.shape[0]))
        random.Random(next(_launches)).shuffle(order)  # a different schedule on every launch
        dweight = torch.zeros_like(wf)
        for t in order:
            dweight = dweight + dy.float()[t, :, None] * xf[t, None, :]
        return dx, dweight, None


def atomic_dw_linear(x, weight, cu_seqlens):
    return AtomicDWLinear.apply(x, weight, cu_seqlens)


def test_atomic_dw_accumulation_turns_exactly_determinism_and_batch_invariance_red():
    report = check_gradient_invariance(OP_SPECS["linear"], profile=FP32, impl=atomic_dw_linear)
    assert {c: r.status for c, r in report.checks.items()} == {
        "accuracy": "pass", "batch_invariance": "fail", "chunk_invariance": "pass",
        "determinism": "fail", "audit": "pass"}
    for check in ("batch_invariance", "determinism"):
        assert [t.name for t in report.checks[check].tensors if not t.passed] == ["linear.dweight"]


@pytest.mark.check("determinism")
def test_atomic_dw_accumulation_fails_determinism_naming_linear_dweight():
    with pytest.raises(InvarianceFailure) as info:
        assert_gradient_batch_invariant(OP_SPECS["linear"], profile=FP32, impl=atomic_dw_linear, checks=["determinism"])
    assert info.value.teeth_check == "determinism"
    assert info.value.tensor == "linear.dweight"
    assert "linear [torch_cpu_fp32] determinism failed on linear.dweight: max_abs=" in str(info.value)
