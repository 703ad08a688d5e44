"""The one central thresholds table: gradient tolerances per dtype, and the rule that derives a low-precision
profile's accuracy bound from it (InvarianceProfile.tolerance picks between them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    """Elementwise |actual - expected| <= atol + rtol * |expected| (torch.allclose semantics)."""

    atol: float
    rtol: float


BITWISE = Tolerance(0.0, 0.0)

# purpose -> dtype -> tolerance. `accuracy`: a profile's result against the fp64 reference VJP.
# `chunk_aggregation`: a gradient that reduces over tokens of several chunk calls (weight
# gradients, attention dk/dv) summed in chunk order vs in one call; fp32 addition is not
# associative, so this comparison alone cannot be bitwise (see docs/invariance.md).
THRESHOLDS: dict[str, dict[str, Tolerance]] = {
    "accuracy": {"float32": Tolerance(2e-6, 1e-4), "bfloat16": Tolerance(2e-2, 2e-2)},
    "chunk_aggregation": {"float32": Tolerance(1e-6, 1e-5), "bfloat16": Tolerance(1e-2, 1e-2)},
}

# The unit roundoff of bfloat16 (8 significand bits): round-to-nearest moves a value by at most
# this fraction of itself. Equal to torch.finfo(torch.bfloat16).eps / 2.
BF16_UNIT_ROUNDOFF = 2.0 ** -8


def rounded_once(fp32: Tolerance, unit_roundoff: float) -> Tolerance:
    """The accuracy bound of an fp32-accumulated result rounded once to a format of `unit_roundoff`.

    Derivation (docs/invariance.md, "Thresholds"): let e be the fp64 reference at the rounded inputs,
    f the fp32-accumulated result and a = round(f) what a correct low-precision profile returns.
    f is held to the fp32 row, |f - e| <= atol + rtol|e|, and one rounding gives |a - f| <= u|f|
    <= u(|e| + atol + rtol|e|). Summed: |a - e| <= (1 + u) atol + (u + (1 + u) rtol)|e|.
    Nothing else is allowed: an intermediate rounded to bf16 (an upcast removed, an accumulator
    allocated in bf16) adds u per step of its reduction and, through cancellation, exceeds the bound.
    """
    u = unit_roundoff
    return Tolerance((1 + u) * fp32.atol, u + (1 + u) * fp32.rtol)
