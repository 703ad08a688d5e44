"""Propagation, in a mutant's child: each call of the mutated function also runs the original function on copies of
the same arguments (tensors by a copy with their strides), and the two calls' outputs (the result, and every argument
after the call) are compared; a survivor's why says whether a difference reached them."""

from __future__ import annotations

import copy
import functools
import inspect
import math
import random
import sys
import types

from teeth.workers.apply import _functions, module_for_file

COMPARE = "__teeth_compare__"
_WRAPPER = compile(f"def wrapper(*args, **kwargs):\n    return {COMPARE}(args, kwargs)\n", "<teeth>", "exec")
WRAPPER_CODE = next(c for c in _WRAPPER.co_consts if isinstance(c, types.CodeType))


class Unmeasured(Exception):
    """Why the outputs cannot be compared: say which."""


def originals(path: str, swap: str) -> list:
    """The function objects the mutant's code will be swapped into (before it is): their code is the original's."""
    if not swap:
        raise Unmeasured("module-level code: no function whose outputs can be compared")
    module = module_for_file(path)
    found = [f for f in _functions(module, module.__name__, set()) if f.__code__.co_qualname == swap]
    if not found or len({f.__code__ for f in found}) != 1:
        raise Unmeasured(f"{swap} has no single definition to compare with")
    kernels = {id(getattr(value, "fn", None)) for value in vars(module).values() if hasattr(value, "fn")}
    if any(id(f) in kernels for f in found):
        raise Unmeasured(f"{swap} is a kernel: a launch runs it from its source, not through its code object")
    return found


class Meter:
    """Installed after the mutant: the swapped functions' code becomes a wrapper that calls both versions."""

    def __init__(self, functions: list, original_code: types.CodeType):
        first = functions[0]
        if first.__closure__:
            raise Unmeasured(f"{first.__qualname__} is a closure (its cells cannot be given to a wrapper)")
        if original_code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
            raise Unmeasured(f"{first.__qualname__} is a generator or coroutine: its outputs come later")
        mutated_code = first.__code__
        if mutated_code is original_code:
            raise Unmeasured(f"the mutant re-ran its module instead of swapping {first.__qualname__}'s code")

        def clone(code):
            made = types.FunctionType(code, first.__globals__, first.__name__, first.__defaults__, None)
            made.__kwdefaults__ = first.__kwdefaults__
            return made

        self.original, self.mutated = clone(original_code), clone(mutated_code)
        self.name = first.__qualname__
        self.calls = self.differing = 0
        self.first: str | None = None
        self.worst = (0.0, 0.0)  # max abs, max rel over every differing output
        self.unmeasured: str | None = None
        self.aliasing: str | None = None  # the first change of what the result shares storage with
        self.layout: str | None = None  # the first output with equal values and other strides
        self.mode: str | None = None  # inside a comparison: recursive calls take the path they are on
        first.__globals__[COMPARE] = self.compare
        # the wrapper answers to the mutated function's file and line, so `inspect.getsource` (which TorchScript's
        # `torch.jit.script` reads) still finds the mutated function's text: a scripted call runs the mutant from its
        # source, unseen by the comparison, instead of failing on a wrapper with no source
        wrapper = WRAPPER_CODE.replace(co_filename=mutated_code.co_filename, co_firstlineno=mutated_code.co_firstlineno,
                                       co_name=mutated_code.co_name, co_qualname=mutated_code.co_qualname)
        for function in functions:
            function.__code__ = wrapper

    def compare(self, args: tuple, kwargs: dict):
        if self.mode == "original":
            return self.original(*args, **kwargs)
        if self.mode == "mutated" or self.unmeasured:
            return self.mutated(*args, **kwargs)
        try:
            copied = _copy((args, kwargs))
        except Exception as exc:  # noqa: BLE001 - an argument deepcopy refuses
            self.unmeasured = f"an argument of {self.name} cannot be copied ({type(exc).__name__})"
            return self.mutated(*args, **kwargs)
        states = _rng_states()
        self.mode = "original"
        try:
            expected, raised = self.original(*copied[0], **copied[1]), None
        except Exception as exc:  # noqa: BLE001 - compared with what the mutant does
            expected, raised = None, exc
        finally:
            self.mode = None
        _restore(states)
        self.mode = "mutated"
        try:
            result = self.mutated(*args, **kwargs)
        except Exception:
            self.calls += 1
            if raised is None:
                self._differ("the call raised", math.inf, math.inf)
            raise
        finally:
            self.mode = None
        self.calls += 1
        if raised is not None:
            self._differ(f"the original raised {type(raised).__name__}", math.inf, math.inf)
            return result
        before, after = _aliases(expected, copied[0]), _aliases(result, args)
        if before != after and self.aliasing is None:
            self.aliasing = (f"a change of aliasing: the result shares storage with {_named(before)} in the original, "
                             f"with {_named(after)} in the mutant (equal values; a write through it would differ)")
        layouts: list = []
        try:
            found = _difference(expected, result, "the result", layouts=layouts)
            for index, (before, after) in enumerate(zip(copied[0], args)):
                found = found or _difference(before, after, f"argument {index + 1} after the call", layouts=layouts)
            for name, before in copied[1].items():
                found = found or _difference(before, kwargs[name], f"argument {name} after the call", layouts=layouts)
        except Unmeasured as exc:
            self.unmeasured = str(exc)
            return result
        if found:
            self._differ(*found)
        elif layouts and self.layout is None:
            where, before, after = layouts[0]
            self.layout = (f"a change of layout: {where} has strides {before} in the original, {after} in the mutant "
                           f"(equal values; a check of its strides, or a write through it, would differ)")
        return result

    def _differ(self, where: str, abs_diff: float, rel_diff: float) -> None:
        self.differing += 1
        self.first = self.first or where
        self.worst = (max(self.worst[0], abs_diff), max(self.worst[1], rel_diff))

    def verdict(self) -> tuple[str, str]:
        """(why, detail) of a survivor."""
        if self.unmeasured:
            return "unmeasured", self.unmeasured
        if not self.calls:
            return "unmeasured", f"its tests never called {self.name}"
        if not self.differing and (self.aliasing or self.layout):
            return "unmeasured", self.aliasing or self.layout
        if not self.differing:
            return "not_propagated", (f"{self.name}'s outputs equalled the original's in all {self.calls} "
                                      f"call{'s' * (self.calls != 1)}: the difference was masked")
        abs_diff, rel_diff = self.worst
        measure = ("not numbers alike (another kind, shape, or an exception): any check of it would have killed it"
                   if math.isinf(abs_diff) else
                   f"max abs difference {abs_diff:.3g}, max rel {rel_diff:.3g}; an assertion with atol below "
                   f"{abs_diff:.3g} (rtol below {rel_diff:.3g}) would have killed it")
        return "not_checked", (f"{self.name}'s outputs differed in {self.differing} of {self.calls} call"
                               f"{'s' * (self.calls != 1)}, first in {self.first}: {measure}")


def _tensors(value) -> list:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    return []


def _aliases(result, args: tuple) -> tuple:
    """Per tensor of the result: the argument (1-based) whose storage it shares, or 0."""
    def storage(tensor):
        try:
            return tensor.untyped_storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return None

    held = [{storage(t) for t in _tensors(arg)} - {None, 0} for arg in args]
    return tuple(next((i + 1 for i, ptrs in enumerate(held) if storage(t) in ptrs), 0) for t in _tensors(result))


def _named(aliases: tuple) -> str:
    shared = sorted({a for a in aliases if a})
    return ", ".join(f"argument {a}" for a in shared) if shared else "no argument"


def _copy_tensor(torch, tensor):
    """A copy with the tensor's strides: `clone()` makes a slice with gaps dense, and a kernel may take another path
    on another layout (softplus differs by an ulp), or give its result other strides, with no mutant at all."""
    copied = tensor.clone()
    if tensor.layout != torch.strided or copied.stride() == tensor.stride():
        return copied
    try:
        broadcast = [d for d in range(tensor.dim()) if tensor.stride(d) == 0 and tensor.size(d) > 1]
        if broadcast:  # an expanded tensor: copy one of its repeats, expand the copy the same way
            part = tensor
            for dim in broadcast:
                part = part.narrow(dim, 0, 1)
            return _copy_tensor(torch, part).expand(tensor.size())
        return torch.empty_strided(tensor.size(), tensor.stride(), dtype=tensor.dtype,
                                   device=tensor.device).copy_(tensor)
    except RuntimeError:  # elements that overlap otherwise: the dense copy
        return copied


def _copy(value):
    """A deep copy whose tensors are copied first, wherever they are held (in containers, and in objects' attributes:
    `deepcopy` refuses a tensor that autograd computed, such as a dataclass of a solver's state), each with the
    attributes set on it."""
    torch = sys.modules.get("torch")
    memo: dict = {}
    if torch is not None:
        seen: set = set()

        context = getattr(getattr(getattr(torch, "autograd", None), "function", None), "FunctionCtx", None)

        def tensors(obj, depth):
            if context is not None and isinstance(obj, context) and not isinstance(obj, _Context):
                if id(obj) not in memo:  # an autograd Function's context, which deepcopy refuses
                    memo[id(obj)] = _context_copy(context, obj, memo, lambda item: tensors(item, depth + 1))
                return
            if isinstance(obj, torch.Tensor):
                if id(obj) not in memo:
                    made = memo[id(obj)] = _copy_tensor(torch, obj)
                    extra = getattr(obj, "__dict__", None)  # attributes a package set on the tensor itself
                    if extra:
                        for item in extra.values():
                            tensors(item, depth + 1)
                        made.__dict__.update(copy.deepcopy(extra, memo))
                return
            if depth > 8 or id(obj) in seen:
                return
            seen.add(id(obj))
            if isinstance(obj, (list, tuple)):
                items = obj
            elif isinstance(obj, dict):
                items = obj.values()
            elif hasattr(obj, "__dict__") and not isinstance(obj, (type, types.ModuleType)) and not callable(obj):
                items = vars(obj).values()
            else:
                return
            for item in items:
                tensors(item, depth + 1)

        tensors(value, 0)
    return copy.deepcopy(value, memo)


class _Context:
    """Marks the stand-in `_context_copy` makes for an autograd Function's context."""


def _context_copy(context: type, ctx, memo: dict, walk):
    """The context the original's `forward` or `backward` is given: a plain context of torch's (its recording
    methods, `save_for_backward` and the like, set the same attributes) holding copies of what `ctx` holds: the
    attributes set on it, and what autograd gives backward (`saved_tensors`, `needs_input_grad`)."""
    try:
        saved = ctx.saved_tensors  # in backward: what forward saved
    except Exception:  # noqa: BLE001 - in forward there is none yet
        saved = None
    for item in (*vars(ctx).values(), saved):
        walk(item)
    given = {"needs_input_grad": getattr(ctx, "needs_input_grad", None)}
    if saved is not None:
        given["saved_tensors"] = copy.deepcopy(saved, memo)
    made = type("Context", (_Context, context), given)()
    made.__dict__.update(copy.deepcopy(vars(ctx), memo))
    return made


def _rng_states():
    torch = sys.modules.get("torch")
    return random.getstate(), torch.get_rng_state() if torch is not None else None


def _restore(states) -> None:
    random.setstate(states[0])
    if states[1] is not None:
        sys.modules["torch"].set_rng_state(states[1])


def _strides(tensor) -> tuple | None:
    """The strides that matter (of dimensions longer than 1), or None where a tensor has none."""
    try:
        return tuple(stride for stride, size in zip(tensor.stride(), tensor.shape) if size > 1)
    except (RuntimeError, NotImplementedError):
        return None


def _difference(expected, actual, where: str, depth: int = 0, layouts: list | None = None
                ) -> tuple[str, float, float] | None:
    """None when equal; else where, max abs and max rel difference (inf when not numbers). An object is compared by
    its attributes (a module's parameters and buffers), to a depth of 8; a numpy array as a tensor. Tensors with equal
    values and other strides are added to `layouts` as (where, strides in expected, strides in actual). Raises
    Unmeasured for a class or function each call makes anew (its code is the original's or the mutant's)."""
    if depth > 8:
        return None
    torch = sys.modules.get("torch")
    numpy = sys.modules.get("numpy")
    if torch is not None and numpy is not None and isinstance(expected, numpy.ndarray) and \
            isinstance(actual, numpy.ndarray) and expected.dtype.kind in "biufc" and expected.dtype == actual.dtype:
        return _difference(torch.from_numpy(expected.copy()), torch.from_numpy(actual.copy()), where, depth)
    if torch is not None and isinstance(expected, torch.Tensor):
        found = _tensor_difference(torch, expected, actual, where)
        if found is None and layouts is not None and _strides(expected) != _strides(actual):
            layouts.append((where, tuple(expected.stride()), tuple(actual.stride())))
        return found
    if isinstance(expected, (tuple, list)):
        if type(actual) is not type(expected) or len(actual) != len(expected):
            return where, math.inf, math.inf
        for index, (x, y) in enumerate(zip(expected, actual)):
            found = _difference(x, y, f"{where}[{index}]", depth + 1, layouts)
            if found:
                return found
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or len(expected) != len(actual):
            return where, math.inf, math.inf
        if expected.keys() == actual.keys():
            pairs = [(key, expected[key], actual[key]) for key in expected]
        else:  # keys that are objects of each run (an optimizer's state, keyed by its parameters): in their order
            pairs = []
            for (key, x), (other, y) in zip(expected.items(), actual.items()):
                if _difference(key, other, f"{where} key", depth + 1):
                    return where, math.inf, math.inf
                pairs.append((key, x, y))
        for key, x, y in pairs:
            label = f"{where}[{key!r}]" if isinstance(key, (int, str, bytes, bool, float, type(None))) else \
                f"{where}[key {type(key).__name__}]"
            found = _difference(x, y, label, depth + 1, layouts)
            if found:
                return found
        return None
    if isinstance(expected, float) and isinstance(actual, float):
        if expected == actual or (math.isnan(expected) and math.isnan(actual)):
            return None
        gap = abs(expected - actual)
        return where, gap, gap / abs(expected) if expected else math.inf
    if isinstance(expected, _Context):  # the original's stand-in context and the one autograd gave the mutant, by
        names = [*vars(expected), *(n for n in vars(actual) if n not in vars(expected))]  # what is set on them
        return _difference({n: getattr(expected, n, None) for n in names}, {n: getattr(actual, n, None) for n in names},
                           where, depth + 1, layouts)  # (`to_save` is an attribute of autograd's own, not in vars)
    if type(expected) is not type(actual):
        return where, math.inf, math.inf
    if isinstance(expected, (int, str, bytes, bool, complex, type(None))):
        return None if expected == actual else (where, math.inf, math.inf)
    if isinstance(expected, functools.partial):  # a copy is a new partial of the same function: compare what it holds
        if expected.func is not actual.func:
            return where, math.inf, math.inf
        return _difference((expected.args, expected.keywords), (actual.args, actual.keywords), where, depth + 1,
                           layouts)
    if isinstance(expected, types.MethodType):  # a bound method of each run's own copy: the same function, its object
        if expected.__func__ is not actual.__func__:
            return where, math.inf, math.inf
        return _difference(expected.__self__, actual.__self__, where, depth + 1, layouts)
    if isinstance(expected, (type, types.FunctionType)) and expected is not actual:
        made = "a class" if isinstance(expected, type) else "a function"
        raise Unmeasured(f"{where} is {made} each call makes anew: what it does when called is not compared")
    if hasattr(expected, "__dict__") and not isinstance(expected, type) and not callable(expected):
        return _difference(vars(expected), vars(actual), where, depth + 1, layouts)
    if hasattr(expected, "__dict__") and isinstance(getattr(expected, "_parameters", None), dict):
        return _difference(vars(expected), vars(actual), where, depth + 1, layouts)  # a torch module is callable
    try:
        same = expected == actual
        if not isinstance(same, bool) and callable(getattr(same, "all", None)):
            same = same.all()  # an array's answer element by element
        return None if bool(same) else (where, math.inf, math.inf)
    except Exception:  # noqa: BLE001 - a comparison that raises: not known equal
        return where, math.inf, math.inf


def _tensor_difference(torch, expected, actual, where: str) -> tuple[str, float, float] | None:
    if not isinstance(actual, torch.Tensor) or expected.shape != actual.shape or expected.dtype != actual.dtype:
        return where, math.inf, math.inf
    a, b = expected.detach(), actual.detach()
    if a.layout != b.layout:
        return where, math.inf, math.inf
    if a.layout != torch.strided:  # sparse: compared by the values it stands for
        try:
            a, b = a.to_dense(), b.to_dense()
        except (RuntimeError, NotImplementedError):
            return where, math.inf, math.inf
    if a.is_complex() or a.dtype == torch.bool or a.device != b.device:
        return None if a.device == b.device and torch.equal(a, b) else (where, math.inf, math.inf)
    a, b = a.double(), b.double()
    same = (a == b) | (a.isnan() & b.isnan())
    if bool(same.all()):
        return None
    gap = (a - b).abs().nan_to_num(nan=math.inf)
    scale = a.abs().max().item() if a.numel() else 0.0
    worst = gap.max().item()
    return where, worst, worst / scale if scale else math.inf
