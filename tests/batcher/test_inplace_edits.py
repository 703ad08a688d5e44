"""In-place edits: an edit on an invoke's view lands in that invoke's rows only."""

import warnings

import pytest
import torch

from batcher import Trace
from batcher_testkit import MLP, FlatNet, make, rows, same, solo, tokens

pytestmark = pytest.mark.check("behaviour")

SIZES = (2, 3, 1)


def negate(view):
    view.mul_(-1).add_(0.5)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_output_edit_lands_in_the_editing_invokes_rows_only(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Trace(model) as tr:
            invokes = [tr.invoke(x) for x in xs]
            invokes[which].edit("layers.0.mlp", negate)
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        expected = solo(model, x, "layers.0.mlp", negate) if i == which else model(x)
        same(inv.result, expected)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_input_edit_lands_in_the_editing_invokes_rows_only(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].edit("layers.1", negate, site="input")
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        expected = solo(model, x, "layers.1", negate, site="input") if i == which else model(x)
        same(inv.result, expected)


def test_edit_changes_something():
    model = make(MLP)
    x = rows(3, 1)
    with Trace(model) as tr:
        inv = tr.invoke(x)
        inv.edit("layers.0.mlp", negate)
    assert not torch.allclose(inv.result, model(x))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_token_flattened_edit_lands_in_rows_start_times_k(which):
    model = make(FlatNet)
    xs = [tokens(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].edit("mix", negate)
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        expected = solo(model, x, "mix", negate) if i == which else model(x)
        same(inv.result, expected)


def test_edit_by_an_invoke_with_no_rows_lands_on_the_whole_batch_quietly():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        first = tr.invoke(a)
        tr.invoke().edit("layers.0.mlp", negate)
        second = tr.invoke(b)
    same(first.result, solo(model, a, "layers.0.mlp", negate))
    same(second.result, solo(model, b, "layers.0.mlp", negate))
