"""Profiles map to their own implementation, never fall back, and skip CUDA with a reason."""
import dataclasses

import pytest
import torch

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from teeth.invariance import CHECKS, check_gradient_invariance
from teeth.invariance.profiles import MissingImplementation

FP32 = PROFILES["torch_cpu_fp32"]


def test_cpu_profiles_use_their_own_packages():
    assert FP32.implementation("rmsnorm").__module__ == "kernels.torch_ops.rmsnorm"
    assert PROFILES["triton_interpret_fp32"].implementation("rmsnorm").__module__ == "kernels.triton_ops.rmsnorm"


def test_a_missing_implementation_is_an_error_not_a_fallback():
    elsewhere = dataclasses.replace(PROFILES["triton_interpret_fp32"], package="kernels.no_such_ops")
    with pytest.raises(MissingImplementation):
        elsewhere.implementation("rmsnorm")
    report = check_gradient_invariance(OP_SPECS["rmsnorm"], profile=elsewhere)
    assert {c: r.status for c, r in report.checks.items()} == {c: "error" for c in CHECKS}
    assert "no module kernels.no_such_ops.rmsnorm" in report.checks["accuracy"].message


def test_a_missing_backward_is_a_failure_not_a_skip():
    def forward_only(x, weight, cu_seqlens):
        return FP32.implementation("linear")(x.detach(), weight, cu_seqlens)

    report = check_gradient_invariance(OP_SPECS["linear"], profile=FP32, impl=forward_only, checks=["accuracy"])
    assert report.checks["accuracy"].status == "error"
    assert "linear.dx" in report.checks["accuracy"].message


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: the CUDA profiles run")
@pytest.mark.parametrize("profile", ["cuda_bf16", "triton_cuda_bf16"])
def test_cuda_profiles_are_skipped_with_a_reason_without_cuda(profile):
    assert "CUDA" in PROFILES[profile].skip_reason()
    report = check_gradient_invariance(OP_SPECS["silu"], profile=PROFILES[profile])
    assert all(r.status == "skip" and "CUDA" in r.message for r in report.checks.values())
    assert not report.first_failure
