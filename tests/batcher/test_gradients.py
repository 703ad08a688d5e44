"""Gradients: an invoke reads and edits only its own rows of a batched gradient, through its view's geometry."""

import warnings

import pytest
import torch

from batcher import Trace
from batcher_testkit import MLP, StridedNet, make, param_grads, reference_grad, rows, same

pytestmark = pytest.mark.check("behaviour")

PATH = "layers.0.mlp"
CASES = [(2, 0), (2, 1), (3, 0), (3, 1), (3, 2)]


def loss(out):
    return (out * out).sum()


def traced_grad(model, xs, which, path=PATH):
    """Batch xs, take the gradient of invoke `which`'s loss; return (its grad read, the other invokes')."""
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        reads = [inv.grad(path) for inv in invokes]
    loss(invokes[which].result).backward()
    return reads


@pytest.mark.parametrize("count,which", CASES)
def test_gradient_read_in_each_invoke_is_its_own_rows(count, which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate((2, 3, 1)[:count])]
    reads = traced_grad(model, xs, which)
    same(reads[which].value, reference_grad(model, xs[which], PATH, loss))


@pytest.mark.parametrize("count,which", CASES)
def test_gradient_read_of_an_invoke_not_in_the_loss_is_zero(count, which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate((2, 3, 1)[:count])]
    reads = traced_grad(model, xs, which)
    for i, read in enumerate(reads):
        if i != which:
            same(read.value, torch.zeros_like(xs[i]))


@pytest.mark.parametrize("which", [0, 1])
def test_same_row_count_pair_reads_its_own_gradient_not_the_others(which):
    model = make(MLP)
    xs = [rows(2, 0), rows(2, 1)]
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        reads = [inv.grad(PATH) for inv in invokes]
    (loss(invokes[0].result) + loss(invokes[1].result * 3.0)).backward()
    mine = reference_grad(model, xs[which], PATH, lambda out: loss(out * (3.0 if which else 1.0)))
    theirs = reference_grad(model, xs[1 - which], PATH, lambda out: loss(out * (1.0 if which else 3.0)))
    same(reads[which].value, mine)
    assert not torch.allclose(reads[which].value, theirs, atol=1e-6)


def test_two_invokes_each_taking_a_gradient_with_an_edit_in_one_leave_the_other_untouched():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        first = tr.invoke(a)
        first.edit("layers.1.mlp", lambda v: v.mul_(0.5))
        ga = first.grad(PATH)
        second = tr.invoke(b)
        gb = second.grad(PATH)
    (loss(first.result) + loss(second.result)).backward()
    handle = model.layers[1].mlp.register_forward_hook(lambda m, i, o: o * 0.5)
    same(ga.value, reference_grad(model, a, PATH, loss))
    handle.remove()
    assert not torch.allclose(ga.value, reference_grad(model, a, PATH, loss), atol=1e-6)
    same(gb.value, reference_grad(model, b, PATH, loss))
    same(second.result, model(b))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_gradient_edit_changes_only_the_editing_invokes_rows(which):
    model = make(MLP)
    xs = [rows(n, seed) for seed, n in enumerate((2, 3, 1))]
    scale = lambda g: g.mul_(-3.0)
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].edit_grad("layers.1.mlp", scale)
        reads = [inv.grad(PATH) for inv in invokes]
    sum(loss(inv.result * (i + 1)) for i, inv in enumerate(invokes)).backward()
    for i, (read, x) in enumerate(zip(reads, xs)):
        weighted = lambda out, i=i: loss(out * (i + 1))
        expected = reference_grad(model, x, PATH, weighted, edit=None)
        if i == which:
            expected = _edited_reference(model, x, weighted, scale)
        same(read.value, expected)


def _edited_reference(model, x, weighted, scale):
    """reference_grad at PATH with the gradient at layers.1.mlp scaled in plain autograd."""
    handle = model.layers[1].mlp.register_forward_hook(
        lambda m, a, out: out.register_hook(lambda g: scale(g.clone())) and None
    )
    try:
        return reference_grad(model, x, PATH, weighted)
    finally:
        handle.remove()


def test_backward_of_a_per_invoke_loss_gives_the_solo_parameter_gradients():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        tr.invoke(a)
        second = tr.invoke(b)
    loss(second.result).backward()
    batched = param_grads(model)
    loss(model(b)).backward()
    solo = param_grads(model)
    assert batched.keys() == solo.keys()
    for name in solo:
        same(batched[name], solo[name])


@pytest.mark.parametrize("which", [0, 1, 2])
def test_gradient_read_of_a_non_contiguous_output_follows_its_strides(which):
    model = make(StridedNet)
    xs = [rows(n, seed) for seed, n in enumerate((2, 3, 1))]
    reads = traced_grad(model, xs, which, path="odd")
    same(reads[which].value, reference_grad(model, xs[which], "odd", loss))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_gradient_edit_of_a_non_contiguous_output_changes_only_its_rows(which):
    model = make(StridedNet)
    xs = [rows(n, seed) for seed, n in enumerate((2, 3, 1))]
    scale = lambda g: g.mul_(-3.0)
    with Trace(model) as tr:
        invokes = [tr.invoke(x) for x in xs]
        invokes[which].edit_grad("odd", scale)
        reads = [inv.grad("first") for inv in invokes]
    sum(loss(inv.result * (i + 1)) for i, inv in enumerate(invokes)).backward()
    for i, (read, x) in enumerate(zip(reads, xs)):
        weighted = lambda out, i=i: loss(out * (i + 1))
        handle = None
        if i == which:
            handle = model.odd.register_forward_hook(
                lambda m, a, out: out.register_hook(lambda g: scale(g.clone())) and None
            )
        try:
            expected = reference_grad(model, x, "first", weighted)
        finally:
            if handle is not None:
                handle.remove()
        same(read.value, expected)


def test_gradient_reads_accumulate_over_backward_calls_like_grad():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        tr.invoke(a)
        second = tr.invoke(b)
        read = second.grad(PATH)
    loss(second.result).backward(retain_graph=True)
    (second.result.sum() * 2.0).backward()
    expected = reference_grad(model, b, PATH, loss) + reference_grad(model, b, PATH, lambda o: o.sum() * 2.0)
    same(read.value, expected)


def test_gradient_read_by_an_invoke_with_no_rows_is_the_whole_batch_gradient():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    with Trace(model) as tr:
        tr.invoke(a)
        whole = tr.invoke().grad(PATH)
        second = tr.invoke(b)
    loss(second.result).backward()
    expected = torch.cat([torch.zeros_like(a), reference_grad(model, b, PATH, loss)])
    same(whole.value, expected)


def test_gradient_edit_by_an_invoke_with_no_rows_scales_the_whole_gradient_quietly():
    model = make(MLP)
    a, b = rows(2, 0), rows(3, 1)
    scale = lambda g: g.mul_(-3.0)
    with Trace(model) as tr:
        first = tr.invoke(a)
        tr.invoke().edit_grad("layers.1.mlp", scale)
        second = tr.invoke(b)
        read = second.grad(PATH)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (loss(first.result) + loss(second.result)).backward()
    same(read.value, _edited_reference(model, b, loss, scale))
