"""Token-flattened scoping in a tiny MoE: a forced route in one invoke stays in that invoke."""

import pytest
import torch

from batcher import Trace
from batcher_testkit import EXPERTS, T, MoENet, make, same, solo, tokens

pytestmark = pytest.mark.check("behaviour")

FORCED = 2


def force_last_token(logits):
    """Route every sequence's last token to expert FORCED (logits are (n*T, EXPERTS))."""
    forced = logits.clone()
    forced[T - 1 :: T] = -50.0
    forced[T - 1 :: T, FORCED] = 50.0
    return forced


@pytest.mark.parametrize("which", [0, 1, 2])
def test_forced_route_matches_the_same_input_alone_and_leaves_the_others_alone(which):
    model = make(MoENet)
    xs = [tokens(n, seed) for seed, n in enumerate((2, 3, 1))]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].replace("moe.router", force_last_token)
    for i, (inv, x) in enumerate(zip(invokes, xs)):
        if i == which:
            same(inv.result, solo(model, x, "moe.router", force_last_token))
            assert not torch.allclose(inv.result, model(x), atol=1e-6)
        else:
            same(inv.result, model(x))


def test_router_read_is_the_invokes_own_tokens():
    model = make(MoENet)
    xs = [tokens(n, seed) for seed, n in enumerate((2, 3, 1))]
    with Trace(model) as tr:
        reads = [tr.invoke(x).output("moe.router") for x in xs]
    expected = {}
    solo(model, xs[1], "moe.router", lambda out: expected.setdefault("out", out.clone()))
    same(reads[1].value, expected["out"])
    assert reads[1].value.shape == (3 * T, EXPERTS)
