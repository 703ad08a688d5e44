"""Profiles map to their own implementation, never fall back, and skip CUDA with a reason."""
import pytest
import torch

from kernels.profiles import PROFILES, MissingImplementation, implementation, skip_reason
from teeth.invariance import CHECKS, check_gradient_invariance


def test_cpu_profiles_use_their_own_packages():
    assert implementation("rmsnorm", "torch_cpu_fp32").__module__ == "kernels.torch_ops.rmsnorm"
    assert implementation("rmsnorm", "triton_interpret_fp32").__module__ == "kernels.triton_ops.rmsnorm"


def test_a_missing_implementation_is_an_error_not_a_fallback(monkeypatch):
    monkeypatch.setitem(PROFILES, "triton_interpret_fp32",
                        PROFILES["triton_interpret_fp32"].__class__("triton_interpret_fp32", "no_such_ops", "cpu", "float32"))
    with pytest.raises(MissingImplementation):
        implementation("rmsnorm", "triton_interpret_fp32")
    report = check_gradient_invariance("rmsnorm", profile="triton_interpret_fp32")
    assert {c: r.status for c, r in report.checks.items()} == {c: "error" for c in CHECKS}
    assert "no module kernels.no_such_ops.rmsnorm" in report.checks["accuracy"].message


def test_a_missing_backward_is_a_failure_not_a_skip():
    def forward_only(x, weight, cu_seqlens):
        return implementation("linear", "torch_cpu_fp32")(x.detach(), weight, cu_seqlens)

    report = check_gradient_invariance("linear", impl=forward_only, checks=["accuracy"])
    assert report.checks["accuracy"].status == "error"
    assert "linear.dx" in report.checks["accuracy"].message


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: the CUDA profiles run")
@pytest.mark.parametrize("profile", ["cuda_bf16", "triton_cuda_bf16"])
def test_cuda_profiles_are_skipped_with_a_reason_without_cuda(profile):
    assert "CUDA" in skip_reason(profile)
    report = check_gradient_invariance("silu", profile=profile)
    assert all(r.status == "skip" and "CUDA" in r.message for r in report.checks.values())
    assert not report.first_failure
