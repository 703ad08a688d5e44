"""Replacement: an invoke's new rows are spliced back into the batch; other invokes' rows are untouched."""

import pytest
import torch

from batcher import Trace
from batcher_testkit import MLP, FlatNet, make, rows, same, solo, tokens

pytestmark = pytest.mark.check("behaviour")

SIZES = (2, 3, 1)


def shifted(view):
    return view * -2.0 + 1.0


@pytest.mark.parametrize("which", [0, 1, 2])
def test_replacement_is_spliced_into_the_replacing_invokes_rows_only(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].replace("layers.0.mlp", shifted)
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        expected = solo(model, x, "layers.0.mlp", shifted) if i == which else model(x)
        same(inv.result, expected)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_input_replacement_is_spliced_into_the_replacing_invokes_rows_only(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].replace("layers.1", shifted, site="input")
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        expected = solo(model, x, "layers.1", shifted, site="input") if i == which else model(x)
        same(inv.result, expected)


def test_two_invokes_replacing_the_same_module_each_keep_their_own():
    model = make(MLP)
    a, b = rows(2, 0), rows(2, 1)
    with Trace(model) as tr:
        first = tr.invoke(a)
        first.replace("layers.1.mlp", shifted)
        second = tr.invoke(b)
        second.replace("layers.1.mlp", torch.sin)
    same(first.result, solo(model, a, "layers.1.mlp", shifted))
    same(second.result, solo(model, b, "layers.1.mlp", torch.sin))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_token_flattened_replacement_is_spliced_at_rows_start_times_k(which):
    model = make(FlatNet)
    xs = [tokens(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].replace("mix", shifted)
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        expected = solo(model, x, "mix", shifted) if i == which else model(x)
        same(inv.result, expected)


def test_replacement_by_an_invoke_with_no_rows_replaces_the_whole_batch():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        first = tr.invoke(a)
        tr.invoke().replace("layers.0.mlp", shifted)
        second = tr.invoke(b)
    same(first.result, solo(model, a, "layers.0.mlp", shifted))
    same(second.result, solo(model, b, "layers.0.mlp", shifted))


def test_replacement_of_the_wrong_shape_is_an_error():
    model = make(MLP)
    with pytest.raises(ValueError, match="layers.0.mlp"):
        with Trace(model) as tr:
            tr.invoke(rows(2, 0)).replace("layers.0.mlp", lambda view: view[:1])
            tr.invoke(rows(3, 1))


def test_replacement_that_is_not_a_tensor_is_an_error():
    model = make(MLP)
    with pytest.raises(TypeError, match="layers.0.mlp"):
        with Trace(model) as tr:
            tr.invoke(rows(2, 0)).replace("layers.0.mlp", lambda view: 0.0)
            tr.invoke(rows(3, 1))
