"""An invariance profile: which package implements an op, on which device and dtype, with no fallback."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from .thresholds import THRESHOLDS, Tolerance


class MissingImplementation(Exception):
    """The profile's package has no implementation of the op: a failure, never a fallback."""


@dataclass(frozen=True)
class InvarianceProfile:
    """One column of the status matrix. `package` holds one module per op (`<package>.<op>` exporting `<op>`)."""

    name: str
    package: str  # a dotted module path: kernels.torch_ops
    device: str  # cpu | cuda
    dtype: str  # float32 | bfloat16: the dtype of the per-token float inputs
    needs_cuda: bool = False
    triton: bool = False  # the implementation launches triton kernels: `determinism` shuffles their program order
    accuracy: Tolerance | None = None  # the accuracy bound, where the dtype's row of THRESHOLDS is not it

    def skip_reason(self) -> str | None:
        """Why this profile cannot run on this machine, or None when it can."""
        if self.needs_cuda:
            import torch

            if not torch.cuda.is_available():
                return f"{self.name} needs CUDA and torch.cuda.is_available() is False"
        return None

    def module_name(self, op: str) -> str:
        return f"{self.package}.{op}"

    def implementation(self, op: str) -> Callable:
        """The callable `op` of the profile's package; MissingImplementation when the package has none."""
        name = self.module_name(op)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            # the op's module, or a package on its way below the top level, is missing: the profile lacks it
            if missing == name or ("." in missing and name.startswith(missing + ".")):
                raise MissingImplementation(f"{op}: no module {name} for profile {self.name}") from exc
            raise
        fn = getattr(module, op, None)
        if fn is None:
            raise MissingImplementation(f"{op}: {name} does not export {op!r}")
        return fn

    def tolerance(self, purpose: str) -> Tolerance:
        """The tolerance for `purpose` (a THRESHOLDS row) on this profile; invariance checks never call this."""
        if purpose == "accuracy" and self.accuracy is not None:
            return self.accuracy
        return THRESHOLDS[purpose][self.dtype]
