"""A broken triton linear whose dW kernel uses tl.atomic_add turns exactly determinism, batch_invariance and audit red."""
import pytest
import torch

import kernels.triton_ops  # noqa: F401  (sets TRITON_INTERPRET=1 without CUDA, before triton is imported)
from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from kernels.triton_ops.linear import _Linear
import triton
import triton.language as tl

from teeth.invariance import InvarianceFailure, assert_gradient_batch_invariant, check_gradient_invariance

PROFILE = PROFILES["triton_interpret_fp32"]


@triton.jit
def atomic_outer_kernel(dy_ptr, x_ptr, dw_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    dy = tl.load(dy_ptr + t * N + rn, mask=rn < N, other=0.0)
    x = tl.load(x_ptr + t * K + rk, mask=rk < K, other=0.0)
    ok = (rn[:, None] < N) & (rk[None, :] < K)
    tl.atomic_add(dw_ptr + rn[:, None] * K + rk[None, :], dy[:, None] * x[None, :], mask=ok)


class AtomicLinear(_Linear):
    @staticmethod
    def backward(ctx, dy):
        dx, _, _ = _Linear.backward(ctx, dy)
        x32, w32, _ = ctx.saved_tensors
        dy32 = dy.contiguous().float()
        dw = torch.zeros_like(w32)
        n, k = w32.shape
        atomic_outer_kernel[(dy32.shape[0],)](dy32, x32, dw, n, k, BLOCK_N=64, BLOCK_K=64)
        return dx, dw, None


def atomic_linear(x, weight, cu_seqlens):
    return AtomicLinear.apply(x, weight, cu_seqlens)


def test_triton_atomic_add_turns_exactly_determinism_batch_invariance_and_audit_red():
    report = check_gradient_invariance(OP_SPECS["linear"], profile=PROFILE, impl=atomic_linear)
    assert {c: r.status for c, r in report.checks.items()} == {
        "accuracy": "pass", "batch_invariance": "fail", "chunk_invariance": "pass",
        "determinism": "fail", "audit": "fail"}
    for check in ("batch_invariance", "determinism"):
        assert [t.name for t in report.checks[check].tensors if not t.passed] == ["linear.dweight"]
    audit = report.checks["audit"].tensors
    assert [t.name for t in audit] == ["kernel:atomic_outer_kernel"] and "atomic_accumulation" in audit[0].note


@pytest.mark.check("audit")
def test_triton_atomic_add_fails_the_audit_naming_the_kernel():
    with pytest.raises(InvarianceFailure) as info:
        assert_gradient_batch_invariant(OP_SPECS["linear"], profile=PROFILE, impl=atomic_linear, checks=["audit"])
    assert (info.value.teeth_check, info.value.tensor) == ("audit", "kernel:atomic_outer_kernel")
