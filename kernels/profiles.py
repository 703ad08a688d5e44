"""PROFILES: which package implements the kernels' ops for each invariance profile, on which device and dtype."""
from __future__ import annotations

from teeth.invariance.profiles import InvarianceProfile
from teeth.invariance.thresholds import BF16_UNIT_ROUNDOFF, THRESHOLDS, rounded_once

# torch_cpu_bf16 (the torch adapters on bf16 inputs): its accuracy bound is the fp32 row rounded once to bf16, with
# no hand-tuned slack (docs/invariance.md); the bfloat16 row stays for the CUDA profiles (tensor-core and triton
# arithmetic, not yet measured on a GPU).
BF16_ACCURACY = rounded_once(THRESHOLDS["accuracy"]["float32"], BF16_UNIT_ROUNDOFF)

PROFILES: dict[str, InvarianceProfile] = {
    p.name: p
    for p in (
        InvarianceProfile("torch_cpu_fp32", "kernels.torch_ops", "cpu", "float32"),
        InvarianceProfile("triton_interpret_fp32", "kernels.triton_ops", "cpu", "float32", triton=True),
        InvarianceProfile("torch_cpu_bf16", "kernels.torch_ops", "cpu", "bfloat16", accuracy=BF16_ACCURACY),
        InvarianceProfile("cuda_bf16", "kernels.torch_ops", "cuda", "bfloat16", needs_cuda=True),
        InvarianceProfile("triton_cuda_bf16", "kernels.triton_ops", "cuda", "bfloat16", needs_cuda=True, triton=True),
    )
}
