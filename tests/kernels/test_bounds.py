"""The interpreter's bounds check catches an access one element past a tensor, and only while it is active."""

import pytest
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter

from teeth.workers.bounds import OutOfBounds, bounds_checked


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, PAST: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    ok = cols < n + PAST
    tl.store(y_ptr + cols, tl.load(x_ptr + cols, mask=ok, other=0.0), mask=cols < n)


def copy(x, past):
    y = torch.empty_like(x)
    _copy[(1,)](x, y, x.numel(), BLOCK=8, PAST=past)
    return y


def test_a_load_inside_the_tensor_passes():
    x = torch.arange(5, dtype=torch.float32)
    with bounds_checked():
        assert torch.equal(copy(x, 0), x)


def test_a_load_one_element_past_the_tensor_fails(tmp_path):
    x = torch.arange(5, dtype=torch.float32)[:5].clone()
    with bounds_checked(), pytest.raises(Exception) as caught:
        copy(x, 1)
    assert isinstance(caught.value.__cause__, OutOfBounds) or "OutOfBounds" in str(caught.value)


def test_the_interpreter_is_restored_after_the_check():
    before = (interpreter.GridExecutor._init_args_hst, interpreter.InterpreterBuilder.create_masked_load)
    with bounds_checked():
        pass
    assert (interpreter.GridExecutor._init_args_hst, interpreter.InterpreterBuilder.create_masked_load) == before


def test_a_nested_check_checks_once_and_the_outer_one_still_restores():
    before = interpreter.InterpreterBuilder.create_masked_load
    with bounds_checked():
        patched = interpreter.InterpreterBuilder.create_masked_load
        with bounds_checked():
            assert interpreter.InterpreterBuilder.create_masked_load is patched
        assert interpreter.InterpreterBuilder.create_masked_load is patched
    assert interpreter.InterpreterBuilder.create_masked_load is before
