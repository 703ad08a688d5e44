"""Interpreter profiles: the interpreter's gaps closed (tiny kernels), bounds checking on by default, its check
named through the interpreter's re-raise, and the profile key's rules."""

from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported: these kernels run interpreted

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language.extra import libdevice  # noqa: E402
from triton.runtime import interpreter as triton_interpreter  # noqa: E402

from kernels.profiles import PROFILES  # noqa: E402
from kernels.specs import OP_SPECS  # noqa: E402
from teeth.errors import ConfigError  # noqa: E402
from teeth.invariance import check_gradient_invariance  # noqa: E402
from teeth.workers.bounds import OutOfBounds, bounds_checked  # noqa: E402
from teeth.config.profiles import BUILTIN_PROFILES, Profile, profile_from_table  # noqa: E402
from teeth.workers.interpreter import gaps_closed  # noqa: E402
from teeth.workers.pytest_runner import check_of  # noqa: E402


@triton.jit
def _add_eps(x_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + cols, x + eps.to(tl.float32), mask=cols < n)


@triton.jit
def _libdevice_math(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + cols, libdevice.tanh(x) + libdevice.pow(x, 2.0), mask=cols < n)
    tl.store(z_ptr + cols, libdevice.isnan(x / x).to(tl.float32), mask=cols < n)


@triton.jit
def _tiled_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):  # an int argument as a Python int: the scalar's __index__
        cols = start + tl.arange(0, BLOCK)
        tl.store(y_ptr + cols, tl.load(x_ptr + cols, mask=cols < n), mask=cols < n)


def _launch(kernel, *args):
    kernel[(1,)](*args, BLOCK=8)


def test_a_float_kernel_argument_is_an_fp32_scalar_with_to():
    x = torch.arange(5, dtype=torch.float32)
    y = torch.empty_like(x)
    with pytest.raises(Exception, match="has no attribute 'to'"):  # the gap, as the interpreter has it
        _launch(_add_eps, x, y, 5, 0.5)
    with gaps_closed():
        _launch(_add_eps, x, y, 5, 0.5)
    assert torch.equal(y, x + 0.5)


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_libdevice_functions_compute_in_the_interpreter():
    x = torch.linspace(-2, 2, 5)
    y, z = torch.empty_like(x), torch.empty_like(x)
    with pytest.raises(Exception, match="None"):  # the stubs return None
        _launch(_libdevice_math, x, y, z, 5)
    with gaps_closed():
        _launch(_libdevice_math, x, y, z, 5)
    assert torch.allclose(y, torch.tanh(x) + x ** 2)
    assert torch.equal(z, torch.tensor([0.0, 0.0, 1.0, 0.0, 0.0]))  # 0/0 is the only nan


def _as_triton_3_6(patch_lang_tensor):
    """The interpreter's tensor patching as triton 3.6 has it: `__index__` is `int(self.handle.data)`, a one-element
    array that numpy >= 2.4 refuses to convert; installed whatever the installed triton's own is."""
    def patch(tensor, scope):
        patch_lang_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data))
    return patch


def test_an_int_kernel_argument_bounds_a_range_when_triton_converts_its_array_with_int(monkeypatch):
    monkeypatch.setattr(triton_interpreter, "_patch_lang_tensor", _as_triton_3_6(triton_interpreter._patch_lang_tensor))
    x = torch.arange(20, dtype=torch.float32)
    y = torch.zeros_like(x)
    try:
        int(np.array([1]))
    except TypeError:  # numpy >= 2.4: the gap, as triton 3.6 has it
        with pytest.raises(Exception, match="0-dimensional"):
            _launch(_tiled_copy, x, y, 20)
    with gaps_closed():
        _launch(_tiled_copy, x, y, 20)
    assert torch.equal(y, x)


def test_the_invariance_harness_runs_interpreted_kernels_with_the_gaps_closed(monkeypatch):
    monkeypatch.setattr(triton_interpreter, "_patch_lang_tensor", _as_triton_3_6(triton_interpreter._patch_lang_tensor))
    report = check_gradient_invariance(OP_SPECS["rmsnorm"], profile=PROFILES["triton_interpret_fp32"],
                                       checks=["accuracy"])
    assert report.checks["accuracy"].status == "pass", report.checks["accuracy"].message


def test_a_libdevice_function_without_a_numpy_counterpart_says_so():
    with gaps_closed():
        with pytest.raises(NotImplementedError, match="libdevice.byte_perm"):
            libdevice.byte_perm(1, 2, 3)


def test_the_interpreter_is_restored_when_the_gaps_are_reopened():
    def patched():
        return triton_interpreter._implicit_cvt, triton_interpreter._patch_lang_tensor, libdevice.tanh

    before = patched()
    with gaps_closed():
        assert all(now is not then for now, then in zip(patched(), before))
    assert patched() == before


def test_an_out_of_bounds_access_is_recorded_under_check_bounds_through_the_interpreters_reraise():
    x = torch.arange(5, dtype=torch.float32)
    with gaps_closed(), bounds_checked(), pytest.raises(Exception) as caught:
        _add_eps[(1,)](x, torch.empty_like(x), 6, 0.5, BLOCK=8)  # n one past the tensor
    assert not isinstance(caught.value, OutOfBounds)  # re-raised as the interpreter's own error
    assert check_of(caught.value) == "bounds"
    assert check_of(AssertionError("plain")) is None


def test_bounds_checking_is_on_exactly_for_interpreter_profiles_unless_the_profile_says():
    assert BUILTIN_PROFILES["triton_interpret"].checks_bounds
    assert not BUILTIN_PROFILES["cpu"].checks_bounds and not BUILTIN_PROFILES["cuda"].checks_bounds
    assert profile_from_table("mine", {"env": {"TRITON_INTERPRET": "1"}}).checks_bounds
    assert not profile_from_table("mine", {"env": {"TRITON_INTERPRET": "1"}, "bounds_check": False}).checks_bounds
    assert not profile_from_table("triton_interpret", {"bounds_check": False}).checks_bounds  # no env of the built-in
    assert Profile("x", env={"TRITON_INTERPRET": "1"}).interpreted


def test_bounds_check_without_the_interpreter_is_a_config_error():
    with pytest.raises(ConfigError, match="bounds_check = true needs the triton interpreter"):
        profile_from_table("gpu", {"bounds_check": True})
