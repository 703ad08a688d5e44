"""teeth.invariance: the gradient-invariance harness (accuracy vs fp64, bitwise batch/chunk invariance, determinism, audit)."""
from .checks import CHECKS, InvarianceFailure

__all__ = ["CHECKS", "InvarianceFailure", "InvarianceConfigs", "GradientInvarianceReport",
           "assert_gradient_batch_invariant", "check_gradient_invariance", "status_matrix",
           "OpSpec", "TokenInput", "Param", "Contract", "InvarianceProfile", "MissingImplementation", "Suite"]

_LAZY = {
    "InvarianceConfigs": "configs",
    "GradientInvarianceReport": "report",
    "assert_gradient_batch_invariant": "harness",
    "check_gradient_invariance": "harness",
    "status_matrix": "matrix",
    "OpSpec": "specs",
    "TokenInput": "specs",
    "Param": "specs",
    "Contract": "specs",
    "InvarianceProfile": "profiles",
    "MissingImplementation": "profiles",
    "Suite": "suite",
}


def __getattr__(name):  # torch is imported only when the harness is used, not by `teeth --help`
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
