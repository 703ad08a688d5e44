"""A broken attention that drops the earlier chunks of the key prefix turns exactly chunk_invariance red."""
import pytest
import torch

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from kernels.torch_ops.attention import attention
from teeth.invariance import InvarianceFailure, assert_gradient_batch_invariant, check_gradient_invariance

FP32 = PROFILES["torch_cpu_fp32"]


def chunk_dropping_attention(q, k, v, cu_seqlens_q, cu_seqlens_k):
    """Attend only to the keys of the current chunk: the KV of earlier chunks is dropped."""
    bq, bk = cu_seqlens_q.tolist(), cu_seqlens_k.tolist()
    keep = torch.cat([torch.arange(ke - (qe - qs), ke) for qs, qe, ke in zip(bq[:-1], bq[1:], bk[1:])])
    return attention(q, k[keep], v[keep], cu_seqlens_q, cu_seqlens_q)


def test_dropped_chunk_turns_exactly_chunk_invariance_red():
    report = check_gradient_invariance(OP_SPECS["attention"], profile=FP32, impl=chunk_dropping_attention)
    assert {c: r.status for c, r in report.checks.items()} == {
        "accuracy": "pass", "batch_invariance": "pass", "chunk_invariance": "fail",
        "determinism": "pass", "audit": "pass"}
    failing = [t.name for t in report.checks["chunk_invariance"].tensors if not t.passed]
    assert failing[0] == "attention.out" and set(failing) <= {"attention.out", "attention.dq", "attention.dk", "attention.dv"}


@pytest.mark.check("chunk_invariance")
def test_dropped_chunk_fails_naming_attention_out():
    with pytest.raises(InvarianceFailure) as info:
        assert_gradient_batch_invariant(OP_SPECS["attention"], profile=FP32, impl=chunk_dropping_attention)
    assert (info.value.teeth_check, info.value.tensor) == ("chunk_invariance", "attention.out")
