"""Every op on every profile through the harness, one test per cell of the status matrix (op x profile x check)."""
import pytest

from kernels.profiles import PROFILES
from kernels.specs import OP_SPECS
from teeth.invariance import CHECKS, assert_gradient_batch_invariant

CELLS = [
    pytest.param(op, profile, check, id=f"{op}-{profile}-{check}", marks=pytest.mark.check(check))
    for profile in PROFILES
    for op in OP_SPECS
    for check in CHECKS
]


@pytest.mark.parametrize("op, profile, check", CELLS)
def test_op_passes_check_on_profile(op, profile, check):
    reason = PROFILES[profile].skip_reason()
    if reason:
        pytest.skip(reason)
    report = assert_gradient_batch_invariant(OP_SPECS[op], profile=PROFILES[profile], checks=[check])
    assert report.checks[check].status == "pass"
    if check != "audit":
        names = {t.name for t in report.checks[check].tensors}
        assert set(OP_SPECS[op].gradient_names) <= names, "every required gradient gets a verdict"
