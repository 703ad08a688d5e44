"""The triton CPU interpreter made fit for third-party kernels, installed by the worker of an interpreter profile.

Gaps of the interpreter stop kernels that run on a GPU: a Python float kernel argument stays a Python float
(`eps.to(tl.float32)` raises AttributeError; on a GPU it is an fp32 scalar); the functions of
`triton.language.extra.libdevice` are stubs that return None (on a GPU the backend's libdevice replaces them); and
in triton 3.6 a scalar used as a Python int (`range(0, D, BLOCK)` over an int argument) converts its one-element
array with `int()`, which numpy >= 2.4 refuses (triton 3.9 squeezes the array first). `gaps_closed()` converts
float arguments to fp32 scalars, gives every libdevice function with a numpy counterpart an elementwise numpy
implementation (the rest raise NotImplementedError naming the function), and makes a scalar's `__index__` read
its one element whatever the array's rank.
`prepare()` is the worker's entry: the gaps closed and, with `bounds_check`, every launch bounds-checked
(teeth.workers.bounds), for the life of the process.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator

import numpy as np

_NUMPY: dict[str, Callable] = {
    **{name: getattr(np, name) for name in (
        "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "exp", "exp2", "expm1", "log", "log2", "log10",
        "log1p", "sqrt", "cbrt", "floor", "ceil", "trunc", "rint", "fmod", "hypot", "copysign", "isnan", "isinf",
        "signbit", "nextafter", "ldexp")},
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "atan2": np.arctan2, "pow": np.power, "fmax": np.fmax, "fmin": np.fmin,
    "abs": np.abs, "fabs": np.abs, "round": lambda x: np.trunc(x + np.copysign(np.asarray(0.5, x.dtype), x)),
    "nearbyint": np.rint, "rsqrt": lambda x: 1 / np.sqrt(x), "isfinited": np.isfinite, "finitef": np.isfinite,
    "isinfd": np.isinf, "isnand": np.isnan, "div_rn": np.divide, "fast_dividef": np.divide,
    "fast_expf": np.exp, "fast_logf": np.log, "fast_tanf": np.tan, "fast_sinf": np.sin, "fast_cosf": np.cos,
    "fast_powf": np.power, "fast_log2f": np.log2, "fast_log10f": np.log10, "fast_exp10f": lambda x: 10 ** x,
    "exp10": lambda x: 10 ** x, "fma": lambda x, y, z: x * y + z,
    "erf": np.vectorize(math.erf, otypes=[np.float64]), "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
    "lgamma": np.vectorize(math.lgamma, otypes=[np.float64]), "tgamma": np.vectorize(math.gamma, otypes=[np.float64]),
}


def _elementwise(name: str, compute: Callable) -> Callable:
    """A libdevice function on interpreter tensors: numpy on their data, the result in the first tensor's dtype
    (a boolean result is int1)."""
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    def function(*args, **kwargs):
        tensors = [a for a in args if isinstance(a, tl.tensor)]
        if not tensors:
            raise TypeError(f"libdevice.{name}: no tensor argument")
        first = tensors[0]
        values = [a.handle.data if isinstance(a, tl.tensor) else getattr(a, "value", a) for a in args]
        with np.errstate(all="ignore"):
            data = np.asarray(compute(*values))
        scalar = tl.int1 if data.dtype == np.bool_ else first.type.scalar
        if scalar is not tl.int1:
            data = data.astype(first.handle.data.dtype, copy=False)
        shaped = any(t.type.is_block() for t in tensors)
        kind = tl.block_type(scalar, list(data.shape)) if shaped else scalar
        return tl.tensor(TensorHandle(data, scalar), kind)

    function.__name__ = name
    return function


def _scalar_index(self) -> int:
    """A scalar tensor as a Python int (range bounds, indexing): its one element, whatever its array's rank."""
    return int(self.handle.data.squeeze())


def _missing(name: str) -> Callable:
    def function(*args, **kwargs):
        raise NotImplementedError(f"libdevice.{name} has no implementation in the triton interpreter")
    function.__name__ = name
    return function


@contextlib.contextmanager
def gaps_closed() -> Iterator[None]:
    """Float kernel arguments as fp32 scalars, libdevice functions that compute, and scalars that index, while
    active."""
    import triton.language as tl
    from triton.language.extra import libdevice
    from triton.runtime import interpreter

    original_cvt = interpreter._implicit_cvt
    original_patch_tensor = interpreter._patch_lang_tensor  # run at each launch: tl.tensor's Python protocols

    def patch_lang_tensor(tensor, scope):
        original_patch_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", _scalar_index)  # restored with the rest when the launch ends

    def implicit_cvt(arg):
        if isinstance(arg, float):  # what a GPU launch makes of it: an fp32 scalar
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return original_cvt(arg)

    stubs = {name: value for name, value in vars(libdevice).items()
             if callable(value) and not name.startswith("_") and getattr(value, "__module__", "") == libdevice.__name__}
    interpreter._implicit_cvt = implicit_cvt
    interpreter._patch_lang_tensor = patch_lang_tensor
    for name in stubs:
        setattr(libdevice, name, _elementwise(name, _NUMPY[name]) if name in _NUMPY else _missing(name))
    try:
        yield
    finally:
        interpreter._implicit_cvt = original_cvt
        interpreter._patch_lang_tensor = original_patch_tensor
        for name, stub in stubs.items():
            setattr(libdevice, name, stub)


_installed = contextlib.ExitStack()


def prepare(settings: dict | None) -> None:
    """At worker start, for the life of the process: `{"bounds_check": bool}` for an interpreter profile,
    None for any other (nothing done)."""
    if not settings:
        return
    try:
        import triton.runtime.interpreter  # noqa: F401
    except ImportError:
        return  # no triton: no kernels to interpret
    from teeth.workers.bounds import bounds_checked

    _installed.enter_context(gaps_closed())
    if settings.get("bounds_check"):
        _installed.enter_context(bounds_checked())
