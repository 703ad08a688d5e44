"""The scoping rule: a leading dim equal to the batch total, or a whole multiple k of it, is scoped."""

import pytest
import torch

from batcher import UnscopedWriteWarning, scoping

pytestmark = pytest.mark.check("behaviour")


@pytest.mark.parametrize(
    "leading,total,k",
    [(5, 5, 1), (15, 5, 3), (1, 1, 1), (3, 1, 3), (10, 5, 2), (4, 5, None), (7, 5, None), (0, 5, None), (5, 0, None)],
)
def test_rows_per_item_is_the_whole_multiple_or_none(leading, total, k):
    assert scoping.rows_per_item(leading, total) == k


def test_narrow_of_a_flattened_value_is_rows_start_times_k_as_a_view():
    full = torch.arange(30.0).reshape(15, 2).clone()
    served = scoping.narrow(full, 2, 2, 5)
    assert served.scoped
    assert served.value._base is full
    assert torch.equal(served.value, full[6:12])


def test_widen_splices_only_the_invokes_rows():
    full = torch.arange(10.0).reshape(5, 2)
    served = scoping.narrow(full, 1, 3, 5)
    out = scoping.widen(full, served.value, -served.value, 1, 3, 5, "output of 'x'")
    assert torch.equal(out[0], full[0])
    assert torch.equal(out[4], full[4])
    assert torch.equal(out[1:4], -full[1:4])
    assert torch.equal(full, torch.arange(10.0).reshape(5, 2))


def test_zero_dim_value_is_served_whole_and_unscoped():
    value = torch.tensor(3.0)
    served = scoping.narrow(value, 1, 2, 5)
    assert served.value is value
    assert not served.scoped


def test_invoke_with_no_rows_is_served_the_whole_value_as_scoped():
    full = torch.arange(10.0).reshape(5, 2)
    served = scoping.narrow(full, 2, 0, 5)
    assert served.value is full
    assert served.scoped


def test_widen_of_a_zero_dim_value_warns_and_keeps_it():
    value = torch.tensor(3.0)
    with pytest.warns(UnscopedWriteWarning, match="leading dim none"):
        out = scoping.widen(value, value, torch.tensor(4.0), 1, 2, 5, "output of 'x'")
    assert out is value


def test_leading_dim_of_a_matrix_is_its_row_count():
    assert scoping.leading_dim(torch.zeros(4, 4)) == 4
    assert scoping.leading_dim(torch.zeros(3)) == 3
    assert scoping.leading_dim(3.0) == "none"
