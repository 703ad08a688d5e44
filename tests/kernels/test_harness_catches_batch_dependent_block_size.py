"""A broken rmsnorm whose dweight block size comes from the token count turns exactly batch_invariance red."""
import pytest
import torch

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from kernels.torch_ops.rmsnorm import RMSNorm
from teeth.invariance import InvarianceFailure, assert_gradient_batch_invariant, check_gradient_invariance

FP32 = PROFILES["torch_cpu_fp32"]


class TokenBlockedRMSNorm(RMSNorm):
    """dweight reduced over blocks of max(1, T // 3) tokens: the tiling (and the bits) follow the batch."""

    @staticmethod
    def backward(ctx, dy):
        dx, _, _, _ = RMSNorm.backward(ctx, dy)
        xf, wf, rstd, _ = ctx.saved_tensors
        contrib = dy.float() * xf * rstd[:, None]
        block = max(1, contrib.shape[0] // 3)
        dweight = torch.zeros_like(wf)
        for start in range(0, contrib.shape[0], block):
            part = contrib[start]
            for t in range(start + 1, min(start + block, contrib.shape[0])):
                part = part + contrib[t]
            dweight = dweight + part
        return dx, dweight, None, None


def token_blocked_rmsnorm(x, weight, cu_seqlens, eps=1e-6):
    return TokenBlockedRMSNorm.apply(x, weight, cu_seqlens, eps)


def test_batch_dependent_block_size_turns_exactly_batch_invariance_red():
    report = check_gradient_invariance(OP_SPECS["rmsnorm"], profile=FP32, impl=token_blocked_rmsnorm)
    assert {c: r.status for c, r in report.checks.items()} == {
        "accuracy": "pass", "batch_invariance": "fail", "chunk_invariance": "pass",
        "determinism": "pass", "audit": "pass"}
    assert [t.name for t in report.checks["batch_invariance"].tensors if not t.passed] == ["rmsnorm.dweight"]


@pytest.mark.check("batch_invariance")
def test_batch_dependent_block_size_fails_naming_rmsnorm_dweight():
    with pytest.raises(InvarianceFailure) as info:
        assert_gradient_batch_invariant(OP_SPECS["rmsnorm"], profile=FP32, impl=token_blocked_rmsnorm)
    assert (info.value.teeth_check, info.value.op, info.value.tensor) == ("batch_invariance", "rmsnorm", "rmsnorm.dweight")
    assert info.value.max_abs > 0 and "bitwise" in str(info.value)
