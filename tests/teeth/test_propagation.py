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

