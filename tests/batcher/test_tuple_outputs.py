"""Tuple outputs: each batched element is scoped; non-batched elements round-trip quietly."""

import warnings

import pytest

from batcher import BatcherError, Trace
from batcher_testkit import PairNet, make, rows, same, solo

pytestmark = pytest.mark.check("behaviour")

SIZES = (2, 3, 1)


def test_read_of_a_tuple_output_scopes_the_batched_element():
    model = make(PairNet)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    with Trace(model) as tr:
        reads = [tr.invoke(x).output("pair") for x in xs]
    h, bias = reads[1].value
    same(h, model.pair.lin(xs[1]))
    assert bias is model.pair.lin.bias


@pytest.mark.parametrize("which", [0, 1, 2])
def test_replacement_of_a_tuple_element_is_spliced_and_the_rest_round_trips_quietly(which):
    model = make(PairNet)
    xs = [rows(n, seed) for seed, n in enumerate(SIZES)]
    swap = lambda pair: (pair[0] * -2.0, pair[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Trace(model) as tr:
            invokes = [tr.invoke(x) for x in xs]
            invokes[which].replace("pair", swap)
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        same(inv.result, solo(model, x, "pair", swap) if i == which else model(x))


def test_replacement_of_a_tuple_with_the_wrong_length_is_an_error():
    model = make(PairNet)
    with pytest.raises(BatcherError, match="'pair'"):
        with Trace(model) as tr:
            tr.invoke(rows(2, 0)).replace("pair", lambda pair: (pair[0],))
            tr.invoke(rows(1, 1))


def test_gradient_of_a_tuple_output_is_an_error():
    model = make(PairNet)
    with pytest.raises(BatcherError, match="'pair'"):
        with Trace(model) as tr:
            tr.invoke(rows(2, 0)).grad("pair")
            tr.invoke(rows(1, 1))
