"""The check vocabulary shared with the mutation engine, and the assertion a failing check raises."""
from __future__ import annotations

from teeth.core import HARNESS_CHECKS

CHECKS = tuple(check.value for check in HARNESS_CHECKS)  # the harness's checks, in the order it runs them


class InvarianceFailure(AssertionError):
    """A failing harness check; `teeth_check` names the check for the mutation engine."""

    def __init__(self, message: str, *, teeth_check: str, op: str, profile: str, tensor: str | None,
                 max_abs: float | None = None, max_rel: float | None = None, report=None):
        super().__init__(message)
        self.teeth_check = teeth_check
        self.op = op
        self.profile = profile
        self.tensor = tensor
        self.max_abs = max_abs
        self.max_rel = max_rel
        self.report = report
