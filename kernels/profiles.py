"""PROFILES and implementation(op, profile): which package implements an op for a profile, with no fallback."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Profile:
    name: str
    package: str  # torch_ops | triton_ops
    device: str  # cpu | cuda
    dtype: str  # float32 | bfloat16
    needs_cuda: bool = False


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile("torch_cpu_fp32", "torch_ops", "cpu", "float32"),
        Profile("triton_interpret_fp32", "triton_ops", "cpu", "float32"),
        Profile("torch_cpu_bf16", "torch_ops", "cpu", "bfloat16"),
        Profile("cuda_bf16", "torch_ops", "cuda", "bfloat16", needs_cuda=True),
        Profile("triton_cuda_bf16", "triton_ops", "cuda", "bfloat16", needs_cuda=True),
    )
}


class MissingImplementation(Exception):
    """The profile's package has no implementation of the op: a failure, never a fallback."""


def skip_reason(profile: str) -> str | None:
    """Why `profile` cannot run on this machine, or None when it can."""
    prof = PROFILES[profile]
    if prof.needs_cuda:
        import torch

        if not torch.cuda.is_available():
            return f"{profile} needs CUDA and torch.cuda.is_available() is False"
    return None


def module_name(op: str, profile: str) -> str:
    return f"kernels.{PROFILES[profile].package}.{op}"


def implementation(op: str, profile: str) -> Callable:
    """The callable `op` of the profile's package (kernels.torch_ops.<op> or kernels.triton_ops.<op>)."""
    name = module_name(op, profile)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name or (exc.name or "").startswith("kernels.") and name.startswith(exc.name + "."):
            raise MissingImplementation(f"{op}: no module {name} for profile {profile}") from exc
        raise
    fn = getattr(module, op, None)
    if fn is None:
        raise MissingImplementation(f"{op}: {name} does not export {op!r}")
    return fn
