"""Known, tracked red cells of the status matrix: (op, profile, check) -> tracking reference. Empty is the goal."""
from __future__ import annotations

KNOWN_FAILURES: dict[tuple[str, str, str], str] = {}


def tracked(op: str, profile: str, check: str) -> str | None:
    """The tracking reference of a known failure, or None when a red cell here is untracked."""
    return KNOWN_FAILURES.get((op, profile, check))
