"""Effects of torch operators the effects table lacks, read from torch's own schemas (alias annotations)."""

from __future__ import annotations

import libcst as cst
import pytest

from teeth.equivalence.effects import FUNCTIONS, METHODS, call_effect
from teeth.equivalence.schemas import schema_effect


def effect_of(code: str):
    return call_effect(cst.parse_expression(code))


def test_the_names_read_from_schemas_are_not_rows_of_the_table():
    for name in ("logcumsumexp", "diag_embed", "swapaxes", "exponential_", "is_nonzero", "nan_to_num"):
        assert name not in FUNCTIONS and name not in METHODS, name


def test_an_unannotated_tensor_result_of_an_operator_with_its_own_kernels_is_new():
    assert effect_of("torch.logcumsumexp(x, 0)").result == "fresh"
    assert effect_of("x.diag_embed()").result == "fresh"
    assert not effect_of("x.diag_embed()").writes_receiver


@pytest.mark.parametrize("name", ["cos", "exp", "floor", "eq"])
def test_overloads_torchscript_alone_registers_do_not_count(name):
    # aten::cos.int (int -> float) has no kernel in the dispatcher: Python's torch.cos takes tensors only
    import torch

    packet = getattr(torch.ops.aten, name)
    assert any(not torch._C._dispatch_has_kernel(f"aten::{name}.{o}") for o in packet.overloads() if o != "default")
    with pytest.raises(TypeError):
        getattr(torch, name)(*(3,) * (2 if name == "eq" else 1))
    assert effect_of(f"torch.{name}(x{', y' if name == 'eq' else ''})").result == "fresh"
    assert effect_of(f"x.{name}({'y' if name == 'eq' else ''})").result == "fresh"


def test_a_result_annotated_as_an_alias_of_the_receiver_is_an_alias():
    effect = effect_of("x.swapaxes(0, 1)")
    assert effect.result == "alias" and not effect.writes_receiver


def test_a_method_whose_receiver_is_annotated_written_writes_it():
    assert effect_of("x.exponential_()").writes_receiver


def test_a_result_with_no_tensor_in_it_is_a_scalar():
    assert effect_of("x.is_nonzero()").result == "scalar"


def test_a_composite_operator_that_may_hand_its_input_back_is_unknown():
    assert schema_effect("dropout", method=False) is None  # torch.dropout(x, p, False) is x itself


@pytest.mark.parametrize("code", ["x.no_such_op()", "torch._private_op(x)", "F.logcumsumexp(x, 0)",
                                  "logcumsumexp(x, 0)", "torch.relu_(x)"])
def test_unknown_private_unqualified_or_argument_writing_calls_stay_unknown(code):
    assert effect_of(code) is None


def test_a_schema_with_no_operator_behind_it_is_unknown_not_an_error():
    # aten::grad has a schema, but the dispatcher knows no operator by that name: asking for its kernels raises
    assert schema_effect("grad", method=True) is None
    assert schema_effect("grad", method=False) is None


NOT_TENSORS = (1.0, 2, True, [1.0, 2.0], (1,), None, "a")


def test_a_torch_function_said_to_take_only_a_tensor_first_raises_for_anything_else():
    """What `rejects_non_tensor_first` promises, called: every torch function it names (hundreds) raises for a
    number, a list, a tuple, an array, None or a string given first, whatever follows."""
    import warnings

    import numpy
    import torch

    from teeth.equivalence.schemas import rejects_non_tensor_first

    named = [name for name in dir(torch) if not name.startswith("_") and rejects_non_tensor_first(name)]
    assert len(named) > 100 and "isnan" in named and "flatten" in named
    accepted = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in named:
            for value in (*NOT_TENSORS, numpy.ones(2), numpy.float64(1.0)):
                for rest in ((), (torch.ones(2),), (0,), (torch.ones(2), torch.ones(2))):
                    try:
                        getattr(torch, name)(value, *rest)
                    except Exception:  # noqa: BLE001 - any exception is the promise kept
                        continue
                    accepted.append((name, type(value).__name__, len(rest)))
    assert accepted == []


@pytest.mark.parametrize("name", ["add", "mul", "sub", "pow", "remainder", "tensor", "as_tensor", "is_tensor"])
def test_a_torch_function_that_takes_numbers_or_lists_first_is_not_said_to_reject_them(name):
    from teeth.equivalence.schemas import rejects_non_tensor_first

    assert not rejects_non_tensor_first(name)
