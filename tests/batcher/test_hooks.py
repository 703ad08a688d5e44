"""A trace hooks only the modules its invokes touch, and removes every hook after the forward."""

import pytest

from batcher import Trace
from batcher_testkit import MLP, make, rows

pytestmark = pytest.mark.check("behaviour")


def hook_counts(model):
    return {
        path: (len(m._forward_pre_hooks), len(m._forward_hooks))
        for path, m in model.named_modules()
        if m._forward_pre_hooks or m._forward_hooks
    }


def test_only_touched_modules_are_hooked_during_the_forward():
    model = make(MLP)
    seen = {}
    with Trace(model) as tr:
        tr.invoke(rows(2, 0)).edit("layers.0.mlp", lambda v: seen.update(hook_counts(model)))
        tr.invoke(rows(3, 1)).grad("layers.1.mlp")
        tr.invoke(rows(1, 2)).replace("head", lambda v: v * 2.0, site="input")
    assert seen == {"layers.0.mlp": (0, 1), "layers.1.mlp": (0, 1), "head": (1, 0)}


def test_no_hooks_remain_after_the_trace():
    model = make(MLP)
    with Trace(model) as tr:
        tr.invoke(rows(2, 0)).output("layers.0.mlp")
        tr.invoke(rows(3, 1)).input("head")
    assert hook_counts(model) == {}
