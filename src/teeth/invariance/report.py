"""GradientInvarianceReport: per check and per named tensor, verdicts with max abs/rel errors."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch

from .thresholds import Tolerance


@dataclass
class TensorVerdict:
    """One named tensor (an output or a required gradient) under one check."""

    name: str
    passed: bool
    max_abs: float
    max_rel: float
    atol: float
    rtol: float
    note: str = ""

    @property
    def mode(self) -> str:
        return "bitwise" if self.atol == 0 and self.rtol == 0 else f"atol={self.atol:g},rtol={self.rtol:g}"


@dataclass
class CheckResult:
    """One check of one op on one profile: pass, fail, skip (with reason) or error (with message)."""

    check: str
    status: str
    tensors: list[TensorVerdict] = field(default_factory=list)
    message: str = ""

    @property
    def first_failure(self) -> TensorVerdict | None:
        return next((t for t in self.tensors if not t.passed), None)

    def summary(self) -> str:
        bad = self.first_failure
        if bad is not None:
            return (f"{bad.name}: max_abs={bad.max_abs:.3g} max_rel={bad.max_rel:.3g} ({bad.mode})"
                    + (f" {bad.note}" if bad.note else ""))
        return self.message


@dataclass
class GradientInvarianceReport:
    op: str
    profile: str
    checks: dict[str, CheckResult] = field(default_factory=dict)
    loss: str = ""

    @property
    def passed(self) -> bool:
        return all(c.status in ("pass", "skip") for c in self.checks.values())

    @property
    def first_failure(self) -> CheckResult | None:
        """The first failing check, in check order; its first failing tensor names the culprit."""
        return next((c for c in self.checks.values() if c.status in ("fail", "error")), None)

    def to_dict(self) -> dict:
        return {"op": self.op, "profile": self.profile, "loss": self.loss,
                "checks": {k: {**asdict(v), "summary": v.summary()} for k, v in self.checks.items()}}


def compare(name: str, actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> TensorVerdict:
    """Compare two tensors; with tol == BITWISE, equal means equal bits (NaN equals NaN, -0 equals +0)."""
    if actual.shape != expected.shape:
        return TensorVerdict(name, False, float("inf"), float("inf"), tol.atol, tol.rtol,
                             f"shape {tuple(actual.shape)} != {tuple(expected.shape)}")
    a, e = actual.double(), expected.double()
    both_nan = torch.isnan(a) & torch.isnan(e)
    diff = torch.where(both_nan, torch.zeros_like(a), (a - e).abs())
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, float("inf")), diff)
    rel = diff / e.abs().clamp_min(torch.finfo(torch.float32).tiny)
    max_abs = float(diff.max()) if diff.numel() else 0.0
    max_rel = float(rel.max()) if rel.numel() else 0.0
    passed = bool((diff <= tol.atol + tol.rtol * e.abs()).all())
    note = ""
    if not passed:
        bad = int(torch.nonzero(diff.flatten() > tol.atol + tol.rtol * e.abs().flatten())[0])
        index = tuple(int(i) for i in torch.unravel_index(torch.tensor(bad), diff.shape)) if diff.dim() else ()
        note = f"first bad element {index}: {float(a.flatten()[bad])!r} vs {float(e.flatten()[bad])!r}"
    return TensorVerdict(name, passed, max_abs, max_rel, tol.atol, tol.rtol, note)
