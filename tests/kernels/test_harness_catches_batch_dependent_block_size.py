"""A broken rmsnorm whose dweight block size comes from the token count turns exactly batch_invariance red."""
import pytest

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from teeth.invariance import InvarianceFailure, assert_gradient_batch_invariant, check_gradient_invariance
from broken_kernels import token_blocked_rmsnorm

FP32 = PROFILES["torch_cpu_fp32"]


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
