"""Effects of torch operators the effects table has no row for, read from torch's own operator schemas.

Every ATen operator declares how its tensors alias (`torch.ops.aten.NAME.OVERLOAD._schema`): `Tensor(a!) self` is
written, `-> Tensor(a)` may share storage with the argument annotated `(a)`, an unannotated `-> Tensor` is new, and
a return that is no tensor at all (`int`, `bool`, `Scalar`, ...) holds no storage. The `out=` overloads are left
out (a call with `out=` is never judged by a row). A new result is believed only of an operator with its own
kernels: a composite one (CompositeImplicitAutograd, made of other operators in Python or C++) may hand its input
back unannotated (`torch.dropout(x, p, train=False)` is `x`). Anything the schemas do not settle is unknown (None).
"""

from __future__ import annotations

import functools


def _overloads(name: str) -> list | None:
    """(qualified name, schema) of every overload of aten::NAME but its `out=` ones, and but those TorchScript alone
    registers (`aten::cos.int`, no kernel in the dispatcher: Python's `torch.cos(3)` raises), when the dispatcher has
    any; None when there is none."""
    try:
        import torch

        packet = getattr(torch.ops.aten, name)
        found = []
        for overload in packet.overloads():
            schema = getattr(packet, overload)._schema
            if any(a.kwarg_only and a.alias_info is not None and a.alias_info.is_write for a in schema.arguments):
                continue  # an `out=` overload
            found.append((f"aten::{name}" + ("" if overload == "default" else f".{overload}"), schema))
    except (ImportError, AttributeError, RuntimeError):
        return None
    dispatched = [(qualified, schema) for qualified, schema in found if _dispatched(qualified)]
    return dispatched or found or None


def _written(schema) -> list:
    """The arguments the operator may write: annotated `(a!)`, or named by torch's own list of operators whose schema
    does not say so (`torch._C._SchemaInfo`: `batch_norm` writes `running_mean` and `running_var` when training)."""
    import torch

    try:
        info = torch._C._SchemaInfo(schema)
        return [a for i, a in enumerate(schema.arguments)
                if info.is_mutable(torch._C._SchemaArgument(torch._C._SchemaArgType.input, i))]
    except (AttributeError, RuntimeError, TypeError):
        return [a for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]


def _composite(qualified: str) -> bool | None:
    """Has the operator a CompositeImplicitAutograd kernel; None when the dispatcher does not know it (a schema with no
    operator registered behind it, `aten::grad`)."""
    import torch

    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeImplicitAutograd")
    except RuntimeError:
        return None


def _tensor_type(kind: str) -> bool:
    return "Tensor" in kind


@functools.lru_cache(maxsize=None)
def schema_effect(name: str, method: bool) -> tuple[str, bool] | None:
    """(result, writes its receiver) of `torch.NAME(...)` (method False) or `t.NAME(...)` (method True) by the
    schemas of aten::NAME: an in-place method writes its receiver (`self` annotated `(a!)`), a result annotated as an
    alias of the first argument is "alias", a result with no tensor in it "scalar", an unannotated tensor result of
    an operator with its own kernels "fresh"; None for anything else (a private or unknown name, a write to another
    argument, an alias of another argument, overloads that disagree)."""
    if not name.isidentifier() or name.startswith("_"):
        return None
    overloads = _overloads(name)
    if overloads is None:
        return None
    results = set()
    for qualified, schema in overloads:
        arguments = list(schema.arguments)
        first = arguments[0] if arguments else None
        first_set = set(first.alias_info.before_set) if first is not None and first.alias_info is not None else set()
        written = _written(schema)
        if written:
            if not method or written != [first]:
                return None  # a function that writes an argument, or a method writing another tensor
            results.add("in_place")
            continue
        returns = [str(r.type) for r in schema.returns]
        aliases = [set(r.alias_info.before_set) for r in schema.returns if r.alias_info is not None]
        if aliases:
            if not first_set or any(a != first_set for a in aliases):
                return None  # an alias of another argument (or of a list element's)
            results.add("alias")
        elif not any(_tensor_type(kind) for kind in returns):
            results.add("scalar")
        elif _composite(qualified) is not False:
            return None  # may return its input as it is, or not known to the dispatcher
        else:
            results.add("fresh")
    if len(results) != 1:
        return None
    result = results.pop()
    return ("alias", True) if result == "in_place" else (result, False)


# torch's submodules whose functions are ATen operators named with the submodule as a prefix (`torch.linalg.solve` is
# aten::linalg_solve); a function of torch itself or of torch.nn.functional is aten::NAME.
PREFIXED = {"torch.linalg": "linalg_", "torch.special": "special_", "torch.fft": "fft_"}
PLAIN = ("torch", "torch.nn.functional")


def operator_name(qualified: str) -> str | None:
    """The ATen operator a function of torch stands for (`linalg_solve` for `torch.linalg.solve`), or None."""
    module, _, name = qualified.rpartition(".")
    if not name.isidentifier() or name.startswith("__"):
        return None
    if module in PREFIXED:
        return PREFIXED[module] + name
    return name if module in PLAIN else None


@functools.lru_cache(maxsize=None)
def writes_no_argument(name: str) -> bool:
    """Does no overload of aten::NAME (its `out=` ones aside) write any of its arguments (`_written`)? Such an
    operator, composite or not, only reads the tensors it is given; what it returns is not said."""
    overloads = _overloads(name)
    return overloads is not None and not any(_written(schema) for _, schema in overloads)


@functools.lru_cache(maxsize=None)
def returns_tensors_only(name: str, several: bool = False) -> bool:
    """Does every overload of aten::NAME (its `out=` ones aside) return exactly one tensor (not a list, not optional),
    or with `several`, a tuple of two or more tensors (`linalg_eigh`: eigenvalues, eigenvectors)?"""
    overloads = _overloads(name)
    return overloads is not None and all(
        (len(schema.returns) > 1 if several else len(schema.returns) == 1) and
        all(str(r.type) == "Tensor" for r in schema.returns) for _, schema in overloads)


@functools.lru_cache(maxsize=None)
def rejects_non_tensor_first(name: str) -> bool:
    """Does `torch.NAME(x, ...)` raise unless `x` is a tensor (or an object that overrides torch's functions,
    `__torch_function__`)? `torch.NAME` is a builtin (its arguments are parsed by torch's C++ argument parser, which
    takes no list, array or number for a `Tensor` parameter) and the first argument of every overload of aten::NAME
    is a plain `Tensor` (not `Scalar`, as in `torch.pow(2, x)`, nor a list or an optional one), and torch does not
    take numbers for its tensors (`torch.add(1, x)`)."""
    import types

    try:
        import torch
    except ImportError:
        return False
    function = getattr(torch, name, None)
    overloads = [schema for qualified, schema in _overloads(name) or () if _dispatched(qualified)]
    return isinstance(function, types.BuiltinFunctionType) and bool(overloads) and \
        not torch._C._should_allow_numbers_as_tensors(name) and all(
            schema.arguments and not schema.arguments[0].kwarg_only and str(schema.arguments[0].type) == "Tensor"
            for schema in overloads)


def _dispatched(qualified: str) -> bool:
    """Is the overload one of the dispatcher's operators (those torch's Python functions bind), not one TorchScript
    alone registers under the same name (`aten::isnan.float`)?"""
    import torch

    try:
        return bool(torch._C._dispatch_has_kernel(qualified))
    except RuntimeError:
        return False
