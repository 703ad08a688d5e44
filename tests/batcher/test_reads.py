"""Reads: inside an invoke, a module's input and output are that invoke's rows only, as views."""

import pytest
import torch

from batcher import Trace
from batcher_testkit import MLP, FlatNet, make, rows, same, solo, tokens

pytestmark = pytest.mark.check("behaviour")

SIZES = (2, 3, 1)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_output_read_is_the_invokes_own_rows(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        reads = [tr.invoke(x).output("layers.0.mlp") for x in xs]
    expected = {}
    solo(model, xs[which], "layers.0.mlp", lambda out: expected.setdefault("out", out.clone()))
    same(reads[which].value, expected["out"])


@pytest.mark.parametrize("which", [0, 1, 2])
def test_input_read_is_the_invokes_own_rows(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        reads = [tr.invoke(x).input("layers.1") for x in xs]
    expected = {}
    solo(model, xs[which], "layers.1", lambda inp: expected.setdefault("in", inp.clone()), site="input")
    same(reads[which].value, expected["in"])


def test_read_is_a_view_into_the_batched_output_not_a_copy():
    model = make(MLP)
    with Trace(model) as tr:
        first = tr.invoke(rows(2, 0)).output("layers.0.mlp")
        second = tr.invoke(rows(3, 1)).output("layers.0.mlp")
        whole = tr.invoke().output("layers.0.mlp")
    assert second.value._base is whole.value
    assert second.value.untyped_storage().data_ptr() == whole.value.untyped_storage().data_ptr()
    assert second.value.storage_offset() == 2 * whole.value.stride(0)
    same(whole.value[2:5], second.value)
    same(whole.value[0:2], first.value)


def test_invoke_with_no_rows_sees_the_whole_batch():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        tr.invoke(a)
        whole = tr.invoke().output("head")
        tr.invoke(b)
    same(whole.value, model(torch.cat([a, b])))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_result_is_the_invokes_own_rows_of_the_model_output(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
    same(invokes[which].result, model(xs[which]))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_token_flattened_read_is_rows_start_times_k(which):
    model = make(FlatNet)
    xs = [tokens(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        reads = [tr.invoke(x).output("flat") for x in xs]
        whole = tr.invoke().output("flat")
    expected = {}
    solo(model, xs[which], "mix", lambda out: expected.setdefault("out", out.clone()), site="input")
    same(reads[which].value, expected["out"])
    assert reads[which].value.untyped_storage().data_ptr() == whole.value.untyped_storage().data_ptr()
