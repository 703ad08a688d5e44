"""Propagation: a survivor that was infected runs again with its function's outputs compared with the original's,
and says whether the difference was masked (not_propagated), unseen (not_checked) or could not be measured."""

from __future__ import annotations

import pytest
import torch

from teeth.workers.propagation import _aliases, _difference
from tests.helpers.cli import results_of


def test_a_difference_is_measured_where_it_first_shows():
    expected, actual = (torch.tensor([1.0, 2.0]), 3), (torch.tensor([1.0, 2.5]), 3)
    where, largest, relative = _difference(expected, actual, "the result")
    assert where == "the result[0]" and largest == 0.5 and relative == 0.25
    assert _difference((torch.tensor([float("nan")]), 3), (torch.tensor([float("nan")]), 3), "r") is None
    assert _difference(torch.ones(2), torch.ones(3), "r")[0] == "r"


def test_a_dict_keyed_by_each_runs_own_tensors_is_compared_in_order():
    """An optimizer's state is keyed by its parameters: each run's copy has its own key tensors."""
    first, second = torch.ones(2), torch.ones(2)
    assert _difference({first: torch.zeros(3)}, {second: torch.zeros(3)}, "state") is None
    assert _difference({first: torch.zeros(3)}, {second: torch.ones(3)}, "state")[0] == "state[key Tensor]"
    assert _difference({first: torch.zeros(3)}, {torch.zeros(2): torch.zeros(3)}, "state")[0] == "state"
    assert _difference({"a": 1}, {"b": 1}, "d")[0] == "d"


def test_a_partial_held_by_an_object_is_compared_by_what_it_holds():
    import copy
    import functools

    class Holder:
        def __init__(self, scale):
            self.fn = functools.partial(torch.mul, other=scale)

    held = Holder(torch.ones(2))
    assert _difference(held, copy.deepcopy(held), "self") is None
    assert _difference(held, Holder(torch.zeros(2)), "self")[0].startswith("self")
    other = Holder(torch.ones(2))
    other.fn = functools.partial(torch.add, other=torch.ones(2))
    assert _difference(held, other, "self") == ("self['fn']", float("inf"), float("inf"))


def test_what_a_result_shares_storage_with_is_named_by_argument():
    batch, other = torch.arange(6.0), torch.zeros(2)
    assert _aliases(batch[2:], (other, batch)) == (2,)
    assert _aliases(batch[2:].clone(), (other, batch)) == (0,)


def test_every_survivor_says_whether_its_difference_reached_the_outputs(project, teeth):
    root = project("fresh_batches_only")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    survivors = [r for r in results_of(teeth, root) if r["status"] == "survived"]
    assert survivors and all(r["why"] in ("not_infected", "not_propagated", "not_checked", "unmeasured")
                             for r in survivors)
    divided = next(r for r in survivors if r["function"] == "mean_row" and r["operator"] == "generic.swap_op")
    assert divided["why"] == "not_checked"  # the mean's values are wrong and the test checks its shape only
    assert divided["detail"].startswith("mean_row's outputs differed in 1 of 1 call, first in the result: max abs "
                                        "difference 15, max rel 15; an assertion with atol below 15")
    narrower = next(r for r in survivors if r["function"] == "last_rows" and r["operator"] == "generic.swap_op")
    # count <= 0 -> count < 0: with count 0 the mutant returns batch[4:] instead of batch[:0], both empty: masked
    assert narrower["why"] == "not_propagated"
    copies = [r for r in survivors if r["operator"] == "view_to_copy"]
    assert copies and all(r["why"] == "unmeasured" and r["detail"].startswith(
        "a change of aliasing: the result shares storage with argument 1 in the original, with no argument")
        for r in copies)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_a_function_under_comparison_keeps_its_source_for_torchscript(tmp_path):
    """A test may `torch.jit.script` the function it checks; TorchScript reads the function's source, which the
    comparing wrapper must not hide (julius' tests did: every comparison ended "Can't get source")."""
    import importlib.util
    import linecache
    import types

    from teeth.workers.propagation import Meter

    path = tmp_path / "scripted.py"
    path.write_text("import torch\n\ndef f(x: torch.Tensor, k: int) -> torch.Tensor:\n    return x[:k] * 2\n")
    spec = importlib.util.spec_from_file_location("scripted_under_comparison", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    original = module.f.__code__
    mutated = path.read_text().replace("* 2", "* 3")  # the mutant swapped in, its text served as apply serves it
    linecache.cache[str(path)] = (len(mutated), None, mutated.splitlines(True), str(path))
    module.f.__code__ = next(c for c in compile(mutated, str(path), "exec").co_consts
                             if isinstance(c, types.CodeType) and c.co_name == "f")
    meter = Meter([module.f], original)
    x = torch.arange(4.0)
    assert torch.equal(torch.jit.script(module.f)(x, 2), x[:2] * 3)  # scripted from the mutated source
    assert torch.equal(module.f(x, 2), x[:2] * 3) and meter.calls == 1 and meter.differing == 1



def _meter_for(tmp_path, name: str, source: str, mutated: str):
    """A module whose function `f` has its code swapped for `mutated`'s, under a Meter (as a mutant's child does)."""
    import importlib.util
    import types

    from teeth.workers.propagation import Meter

    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    original = module.f.__code__
    module.f.__code__ = next(c for c in compile(mutated, str(path), "exec").co_consts
                             if isinstance(c, types.CodeType) and c.co_name == "f")
    return module, Meter([module.f], original)


def test_the_original_runs_on_copies_with_the_arguments_strides(tmp_path):
    """A dense copy of a slice with gaps can send the original down another path (a kernel's vectorised loop, a
    branch on the layout): a difference no mutant made. The copies keep every argument's strides."""
    from teeth.workers.propagation import _copy

    source = "import torch\n\ndef f(x):\n    return torch.tensor([float(x.is_contiguous()), float(x.stride(0))])\n"
    module, meter = _meter_for(tmp_path, "layout_branch", source, source)  # the mutant changes nothing
    for x in (torch.randn(4, 6)[:, 2:], torch.randn(3).expand(4, 3), torch.randn(3, 5).t(), torch.randn(2, 3)):
        module.f(x)
        copied = _copy(x)
        assert copied.stride() == x.stride() and torch.equal(copied, x)
        assert copied.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert meter.calls == 4 and meter.differing == 0 and meter.verdict()[0] == "not_propagated"


def test_equal_values_with_other_strides_are_a_change_of_layout(tmp_path):
    """A returned tensor, or one held by a returned object, with its values equal and its strides not: the result
    is told apart by a check of its strides (or a write through an expanded one), so not 'masked'."""
    source = "import torch\n\ndef f(x):\n    return (x * 2).t()\n"
    module, meter = _meter_for(tmp_path, "layout_change", source, source.replace(".t()", ".t().contiguous()"))
    module.f(torch.randn(2, 3))
    why, detail = meter.verdict()
    assert why == "unmeasured" and detail.startswith(
        "a change of layout: the result has strides (1, 3) in the original, (2, 1) in the mutant")

    class Solution:
        def __init__(self, status):
            self.status = status

    layouts: list = []
    held = (Solution(torch.zeros(()).expand(3)), Solution(torch.zeros(3)))
    assert _difference(held[0], held[1], "the result", layouts=layouts) is None
    assert layouts == [("the result['status']", (0,), (1,))]
    same: list = []
    assert _difference(Solution(torch.zeros(1, 3)), Solution(torch.zeros(3, 1).t()), "r", layouts=same) is None
    assert same == []


def test_numpy_arrays_are_compared_element_by_element():
    """`bool(a == b)` raises for an array of two elements or more: that is no difference."""
    import numpy

    class Layer:
        def __init__(self, indices):
            self.indices = indices

    rows = numpy.tril_indices(3)
    assert _difference(Layer(rows), Layer(numpy.tril_indices(3)), "self") is None
    where, largest, _ = _difference(Layer(numpy.array([1.0, 2.0])), Layer(numpy.array([1.0, 2.5])), "self")
    assert where == "self['indices']" and largest == 0.5
    assert _difference(numpy.array(["a", "b"]), numpy.array(["a", "b"]), "r") is None
    assert _difference(numpy.array(["a", "b"]), numpy.array(["a", "c"]), "r")[0] == "r"


def test_a_class_or_function_made_by_each_call_is_not_compared_by_identity():
    """A factory's classes are new on every call (and hold the original's or the mutant's methods): not a
    difference any check would see, and not known equal. A bound method of each run's copy is its object's."""
    import copy

    from teeth.workers.propagation import Unmeasured

    def factory(k):
        class Top:
            size = k
        return Top

    with pytest.raises(Unmeasured, match="the result is a class each call makes anew"):
        _difference(factory(2), factory(2), "the result")
    with pytest.raises(Unmeasured, match="a function each call makes anew"):
        _difference((lambda: 1), (lambda: 1), "the result")
    assert _difference(factory, factory, "the result") is None

    class Scaled:
        def __init__(self, weight):
            self.weight = weight

        def apply(self, x):
            return x * self.weight

    scaled = Scaled(torch.ones(2))
    assert _difference(scaled.apply, copy.deepcopy(scaled).apply, "r") is None
    assert _difference(scaled.apply, Scaled(torch.zeros(2)).apply, "r")[0] == "r['weight']"


def test_tensors_autograd_computed_held_by_an_object_are_copied():
    """`copy.deepcopy` refuses a non-leaf tensor; a dataclass of a solver's state holds them (torchode's controller
    state made every comparison of its `merge_states` unmeasured)."""
    import dataclasses

    from teeth.workers.propagation import _copy

    @dataclasses.dataclass
    class State:
        step: torch.Tensor
        history: list

    weight = torch.ones(3, requires_grad=True)
    state = State(step=weight * 2, history=[weight * 3])
    copied = _copy((state,))[0]
    assert copied is not state and torch.equal(copied.step, state.step) and torch.equal(copied.history[0], weight * 3)
    assert copied.step.untyped_storage().data_ptr() != state.step.untyped_storage().data_ptr()
    assert copied.step.requires_grad  # still a function of the weight, as `clone` keeps it


def test_a_tensors_own_attributes_are_copied_and_sparse_tensors_compared_by_value():
    """A package may set attributes on a tensor (its dims' names) that the original reads: a copy without them made
    the original raise. A sparse tensor has no elementwise `==`: it is compared as the dense values it stands for."""
    from teeth.workers.propagation import _copy

    named = torch.ones(2, 3)
    named._dims = "ab"
    copied = _copy(((named,), {}))[0][0]
    assert copied._dims == "ab" and torch.equal(copied, named) and copied is not named

    indices = torch.tensor([[0, 1], [1, 0]])
    sparse = torch.sparse_coo_tensor(indices, torch.tensor([1.0, 2.0]), (2, 2))
    assert _difference(sparse, sparse.clone(), "r") is None
    other = torch.sparse_coo_tensor(indices, torch.tensor([1.0, 2.5]), (2, 2))
    assert _difference(sparse, other, "r") == ("r", 0.5, 0.25)
    assert _difference(sparse, sparse.to_dense(), "r")[0] == "r"


FUNCTION = ("import torch\n\n\nclass Half(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, k):\n"
            "        ctx.k, ctx.scale = k, 2\n        ctx.save_for_backward(x)\n        return x[:, :k] * 2\n\n    @staticmethod\n"
            "    def backward(ctx, g):\n        x, = ctx.saved_tensors\n"
            "        return torch.nn.functional.pad(g, (0, x.shape[1] - ctx.k)) * 2, None\n")


@pytest.mark.parametrize("method, mutated, why", [
    ("forward", FUNCTION.replace("x[:, :k] * 2", "x[:, :k].clone() * 2"), "not_propagated"),
    ("forward", FUNCTION.replace("ctx.scale = k, 2", "ctx.scale = k, 3"), "not_checked"),  # the context differs
    ("backward", FUNCTION.replace("ctx.k)) * 2", "ctx.k)) * 3"), "not_checked"),
])
def test_an_autograd_functions_context_is_copied_for_the_original(tmp_path, method, mutated, why):
    """`forward(ctx, ...)` and `backward(ctx, ...)` are given a context deepcopy refuses: the original runs with a
    plain context holding copies of what it holds (the attributes set on it, the tensors saved for backward), and the
    context after the call is compared like any argument."""
    import importlib.util
    import types

    from teeth.workers.propagation import Meter

    path = tmp_path / "halves.py"
    path.write_text(FUNCTION)
    spec = importlib.util.spec_from_file_location("halves", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = getattr(module.Half, method)
    original = function.__code__
    body = next(c for c in compile(mutated, str(path), "exec").co_consts
                if isinstance(c, types.CodeType) and c.co_name == "Half")
    function.__code__ = next(c for c in body.co_consts if isinstance(c, types.CodeType) and c.co_name == method)
    meter = Meter([function], original)
    x = torch.randn(3, 5, requires_grad=True)
    out = module.Half.apply(x, 2)
    out.sum().backward()
    assert meter.calls == 1 and meter.verdict()[0] == why, meter.verdict()
    assert torch.equal(out, x[:, :2].detach() * 2)
