"""The one central thresholds table: gradient tolerances per dtype and profile, and nowhere else."""
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

# (profile, purpose) -> tolerance, where a profile needs other than its dtype's row.
PROFILE_OVERRIDES: dict[tuple[str, str], Tolerance] = {}


def tolerance(purpose: str, dtype: str, profile: str | None = None) -> Tolerance:
    """The tolerance for `purpose` on `dtype` (and `profile`); invariance checks never call this."""
    if profile is not None and (profile, purpose) in PROFILE_OVERRIDES:
        return PROFILE_OVERRIDES[(profile, purpose)]
    return THRESHOLDS[purpose][dtype]
