"""Forward keywords per invoke: equal values merge into the batched forward; different values warn."""

import warnings

import pytest
import torch

from batcher import ForwardKwargConflictWarning, Trace, forward_kwargs
from batcher_testkit import MLP, make, rows, same

pytestmark = pytest.mark.check("behaviour")


def test_equal_keyword_values_merge_quietly_and_reach_the_forward():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Trace(model) as tr:
            first = tr.invoke(a, scale=2.5)
            second = tr.invoke(b, scale=2.5)
    same(first.result, model(a, scale=2.5))
    same(second.result, model(b, scale=2.5))


def test_keyword_given_by_one_invoke_reaches_the_forward():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        tr.invoke(a)
        second = tr.invoke(b, scale=-1.5)
    same(second.result, model(b, scale=-1.5))


def test_different_keyword_values_warn_naming_the_keyword():
    model = make(MLP)
    with pytest.warns(ForwardKwargConflictWarning, match="'scale'.*invoke 0.*invoke 1"):
        with Trace(model) as tr:
            first = tr.invoke(rows(2, 0), scale=2.0)
            tr.invoke(rows(3, 1), scale=3.0)
    same(first.result, model(rows(2, 0), scale=2.0))


def test_equal_tensor_keyword_values_merge_quietly():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Trace(model) as tr:
            tr.invoke(a, scale=torch.tensor(2.0, dtype=torch.float64))
            second = tr.invoke(b, scale=torch.tensor(2.0, dtype=torch.float64))
    same(second.result, model(b, scale=2.0))


@pytest.mark.parametrize("other", [torch.tensor(3.0, dtype=torch.float64), 2.0, torch.tensor([2.0, 2.0])])
def test_different_tensor_keyword_values_warn(other):
    model = make(MLP)
    with pytest.warns(ForwardKwargConflictWarning, match="'scale'"):
        with Trace(model) as tr:
            tr.invoke(rows(2, 0), scale=torch.tensor(2.0, dtype=torch.float64))
            tr.invoke(rows(3, 1), scale=other)


def test_values_that_cannot_be_compared_merge_only_when_they_are_the_same_object():
    masks = [torch.ones(2), torch.zeros(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert forward_kwargs.merge([{"masks": masks}, {"masks": masks}]) == {"masks": masks}
    with pytest.warns(ForwardKwargConflictWarning, match="'masks'"):
        forward_kwargs.merge([{"masks": masks}, {"masks": [m.clone() for m in masks]}])
