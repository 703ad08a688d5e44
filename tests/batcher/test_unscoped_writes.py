"""Writes that cannot be scoped warn and are never silently applied to every invoke; reads stay quiet."""

import warnings

import pytest
import torch

from batcher import Trace, UnscopedWriteWarning
from batcher_testkit import D, GramNet, make, rows, same

pytestmark = pytest.mark.check("behaviour")

# 2 + 3 = 5 rows; the (D, D) = (4, 4) Gram output's leading dim is neither 5 nor a multiple of it.
A, B = rows(2, 0), rows(3, 1)


def test_read_of_an_unscoped_value_is_quiet_and_whole():
    model = make(GramNet)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Trace(model) as tr:
            read = tr.invoke(A).output("gram")
            tr.invoke(B)
    assert read.value.shape == (D, D)


def test_in_place_edit_of_an_unscoped_value_warns_naming_path_dim_and_total():
    model = make(GramNet)
    with pytest.warns(UnscopedWriteWarning, match=r"'gram'.*leading dim 4.*batch total 5"):
        with Trace(model) as tr:
            tr.invoke(A)
            tr.invoke(B).edit("gram", lambda g: g.mul_(2.0))


def test_replacement_of_an_unscoped_value_warns_and_is_not_applied():
    model = make(GramNet)
    with pytest.warns(UnscopedWriteWarning, match=r"'gram'.*leading dim 4.*5"):
        with Trace(model) as tr:
            first = tr.invoke(A)
            second = tr.invoke(B)
            second.replace("gram", lambda g: g * 0.0)
    batched = model(torch.cat([A, B]))
    same(first.result, batched[:2])
    same(second.result, batched[2:])


def test_gradient_edit_of_an_unscoped_value_warns():
    model = make(GramNet)
    with Trace(model) as tr:
        tr.invoke(A)
        second = tr.invoke(B)
        second.edit_grad("gram", lambda g: g.mul_(2.0))
    with pytest.warns(UnscopedWriteWarning, match="'gram'"):
        second.result.sum().backward()


def test_gradient_read_of_an_unscoped_value_is_quiet():
    model = make(GramNet)
    with Trace(model) as tr:
        tr.invoke(A)
        second = tr.invoke(B)
        read = second.grad("gram")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second.result.sum().backward()
    assert read.value.shape == (D, D)


def test_edit_that_changes_nothing_in_place_is_quiet():
    model = make(GramNet)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Trace(model) as tr:
            tr.invoke(A).edit("gram", lambda g: g * 2.0)
            tr.invoke(B)
