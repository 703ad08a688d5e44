"""The status matrix: every op x profile x check, with verdicts and known tracked failures."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .checks import CHECKS
from .known_failures import tracked
from .suite import Suite


@dataclass
class Cell:
    op: str
    profile: str
    check: str
    status: str  # pass | fail | error | skip | known
    detail: str = ""
    tracking: str | None = None

    @property
    def red(self) -> bool:
        """A red cell that is not a known, tracked failure."""
        return self.status in ("fail", "error")

    def to_dict(self) -> dict:
        return {"op": self.op, "profile": self.profile, "check": self.check, "status": self.status,
                "detail": self.detail, "tracking": self.tracking}


def status_matrix(suite: Suite, ops: Iterable[str] | None = None, profiles: Iterable[str] | None = None,
                  checks: Iterable[str] = CHECKS) -> list[Cell]:
    """Run the harness for every (profile, op) of the suite (or the named ones) and flatten the reports into
    cells, in a fixed order."""
    from .harness import check_gradient_invariance

    cells = []
    for profile in profiles or suite.profiles:
        for op in ops or suite.specs:
            report = check_gradient_invariance(suite.specs[op], profile=suite.profiles[profile], checks=checks)
            for check, result in report.checks.items():
                status, ref = result.status, None
                if status in ("fail", "error"):
                    ref = tracked(op, profile, check)
                    status = "known" if ref else status
                cells.append(Cell(op, profile, check, status, result.summary(), ref))
    return cells
