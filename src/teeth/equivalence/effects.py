"""What each torch callable and tensor method does to its tensors: one table, a row per name, read by every rule.

A row says which tensors a call writes (its receiver, its `out=`, nothing), what its result is (`fresh`: a new tensor
or tuple of them, sharing storage with nothing; `alias`: may share storage with its receiver or first argument, a
view or the tensor itself; `scalar`: no tensor storage at all: a size, a dtype, a bool, a Python number) and whether
its result is contiguous (`yes`: always; `kept`: when its input is, or for an in-place method: the receiver keeps its
layout; `no`: not known to be). Every tensor argument a call does not write it only reads. A `torch.X` or a method not
in the table is read from torch's own schema of aten::X (`schemas.py`); a name neither settles is an unknown callee:
it may write any argument and return any of them.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

import libcst as cst

from teeth.equivalence.schemas import PREFIXED, operator_name, schema_effect, writes_no_argument


@dataclass(frozen=True)
class Effect:
    result: str  # "fresh" | "alias" | "scalar"
    writes_receiver: bool = False  # an in-place method: writes the tensor it is called on (its arguments are read)
    contiguous: str = "no"  # "yes" | "kept" | "no"


FRESH, FRESH_CONTIGUOUS = Effect("fresh"), Effect("fresh", contiguous="yes")
ALIAS, ALIAS_KEEPS, ALIAS_CONTIGUOUS = Effect("alias"), Effect("alias", contiguous="kept"), Effect("alias",
                                                                                                   contiguous="yes")
SCALAR = Effect("scalar")
IN_PLACE, RELAYOUT = Effect("alias", writes_receiver=True, contiguous="kept"), Effect("alias", writes_receiver=True)


def _rows(effect: Effect, names: str) -> dict[str, Effect]:
    return {name: effect for name in names.split()}


# torch.X, torch.nn.functional.X (as F.X too) and builtins: called with tensors as arguments.
FUNCTIONS: dict[str, Effect] = {
    **_rows(FRESH_CONTIGUOUS, "empty zeros ones full rand randn arange tensor"),
    **_rows(FRESH, "linspace logspace eye randint randperm zeros_like ones_like empty_like full_like rand_like "
                   "randn_like cat concat concatenate stack hstack vstack dstack matmul mm bmm einsum where clone "
                   "cumsum cumprod index_select gather masked_select nonzero repeat_interleave argsort sort topk "
                   "flip sum mean prod amax amin max min exp log log2 sqrt rsqrt abs sigmoid tanh softmax "
                   "log_softmax dot outer maximum minimum clamp add sub mul div pow norm cdist neg square linear "
                   "silu gelu relu searchsorted bucketize unique bincount diff pad fold unfold interpolate grid_sample "
                   "affine_grid conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d pinverse inverse"),
    **_rows(SCALAR, "allclose isclose equal any all argmax argmin isnan isinf isfinite is_floating_point is_tensor "
                    "len isinstance type id hasattr callable float int bool str repr print"),
    # a view of (or the same tensor as) the first argument
    **_rows(ALIAS, "narrow select as_strided transpose permute movedim diagonal as_tensor asarray"),
    **_rows(ALIAS_KEEPS, "squeeze unsqueeze flatten reshape"),
    # shares memory with the numpy array it is given, laid out as that array is
    **_rows(ALIAS_KEEPS, "from_numpy"),
}
# F.dropout(x, training=False) and friends return x itself: an alias, as any call that may hand its argument back.
FUNCTIONS.update(_rows(ALIAS_KEEPS, "dropout"))

METHODS: dict[str, Effect] = {
    **_rows(FRESH_CONTIGUOUS, "new_zeros new_ones new_empty new_full new_tensor nonzero repeat"),
    **_rows(FRESH, "clone matmul mm bmm repeat_interleave "
                   "sum mean prod amax amin max min norm std var cumsum cumprod exp log sqrt rsqrt abs neg "
                   "sigmoid tanh pow add sub mul div square clamp eq ne lt le gt ge index_select gather "
                   "masked_select masked_fill index_add index_copy scatter scatter_add scatter_reduce softmax "
                   "log_softmax argsort argmax argmin flip unique round floor ceil trunc frac reciprocal sin cos "
                   "log1p expm1 remainder fmod floor_divide logical_not logical_and logical_or cross sort topk"),
    **_rows(SCALAR, "any all isnan isfinite allclose equal size dim ndimension numel nelement item tolist "
                    "is_contiguous stride storage_offset data_ptr element_size"),
    **_rows(ALIAS, "narrow select as_strided transpose permute expand expand_as t unfold diagonal movedim "
                   "view_as_real split chunk unbind"),
    # may share storage with the receiver; contiguous when the receiver is (a view in row-major order, or a copy)
    **_rows(ALIAS_KEEPS, "view view_as unsqueeze squeeze unflatten reshape reshape_as flatten to float double half "
                         "bfloat16 long int short bool byte type type_as detach"),
    **_rows(ALIAS_CONTIGUOUS, "contiguous"),
    # in place: write the receiver only, its other tensor arguments (index, src, mask) are read
    **_rows(IN_PLACE, "scatter_ scatter_add_ scatter_reduce_ index_add_ index_copy_ index_fill_ index_put_ "
                      "masked_fill_ masked_scatter_ copy_ put_ add_ sub_ mul_ div_ addcmul_ addcdiv_ lerp_ clamp_ "
                      "where_ zero_ fill_"),
    # in place, and the receiver's strides change: after them a contiguous tensor may not be
    **_rows(RELAYOUT, "transpose_ t_ swapdims_ swapaxes_ as_strided_ resize_ resize_as_ set_ squeeze_ unsqueeze_"),
}

ATTRIBUTES: dict[str, Effect] = {
    **_rows(SCALAR, "shape dtype device ndim is_cuda requires_grad layout is_leaf"),
    **_rows(ALIAS, "T mT H mH real imag data"),
}

# Methods and attributes that answer how a tensor lies in memory, or act by it, not by what it holds: a view and its
# copy differ there (the copy of a slice is contiguous, with its own strides, offset and storage; `.view(...)` of a
# slice may raise where the copy's does not; `as_strided` reads the storage by strides), so none is a mere read.
LAYOUT = frozenset("is_contiguous stride storage_offset data_ptr untyped_storage storage is_set_to _base "
                   "is_non_overlapping_and_dense view view_as as_strided".split())
# Of those, the ones that only raise for a layout (a view across gaps): of a contiguous tensor they cannot.
VIEWS = frozenset({"view", "view_as"})

# Python builtins named like torch functions that hand back one of their arguments (`max(a, b)` is `a` or `b`): a bare
# call of one is no torch call.
PYTHON_PICKS = frozenset({"max", "min"})
FUNCTION_MODULES = ("torch", "F", "torch.nn.functional", "nn.functional")


def dotted(expr: cst.BaseExpression) -> str | None:
    """`torch.nn.functional` for that attribute chain; None for anything but names and attributes."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = dotted(expr.value)
        return f"{head}.{expr.attr.value}" if head else None
    return None


def function_name(call: cst.Call, flow=None) -> str | None:
    """`cat` for `torch.cat(...)`, `F.softmax(...)` and a bare `cat(...)`; None for a method of anything else, and,
    given the file's `flow`, for a name the file binds to something else than torch's (`Flow.foreign`)."""
    if flow is not None and flow.foreign(call):
        return None
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and dotted(func.value) in FUNCTION_MODULES:
        return func.attr.value
    return None


def has_out(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args)


@functools.lru_cache(maxsize=None)
def _inplace_position(name: str) -> tuple[bool, int | None]:
    """(does torch's `NAME` take an `inplace` parameter, its position when it can be passed positionally): read from
    the signatures of `torch.nn.functional.NAME` and `torch.NAME` (`F.relu(input, inplace=False)`,
    `F.dropout(input, p, training, inplace)`)."""
    try:
        import torch
        import torch.nn.functional as functional
    except ImportError:
        return False, None
    for owner in (functional, torch):
        function = getattr(owner, name, None)
        try:
            parameters = list(inspect.signature(function).parameters.values()) if callable(function) else []
        except (TypeError, ValueError):
            continue  # a builtin without a signature
        for position, parameter in enumerate(parameters):
            if parameter.name == "inplace":
                positional = parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
                return True, position if positional else None
    return False, None


def in_place_asked(call: cst.Call, name: str) -> bool:
    """Is the torch function `name` maybe told to write its input in place here: its `inplace` parameter given, by
    keyword or by position, anything but the literal `False`?"""
    takes, position = _inplace_position(name)
    if not takes:
        return False
    for index, arg in enumerate(call.args):
        given = arg.keyword.value == "inplace" if arg.keyword is not None else \
            arg.star != "" or (position is not None and index == position)
        if given and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
            return True
    return False


def _operands(call: cst.Call) -> int:
    """How many tensors an einsum is given after its equation (a list of them counts each; 0 when not told)."""
    rest = list(call.args[1:])
    if any(a.star or a.keyword is not None for a in rest):
        return 0
    if len(rest) == 1 and isinstance(rest[0].value, (cst.List, cst.Tuple)):
        elements = rest[0].value.elements
        return 0 if any(isinstance(e, cst.StarredElement) for e in elements) else len(elements)
    return len(rest)


def function_effect(call: cst.Call, flow=None, depth: int = 4) -> Effect | None:
    """The row of a function call (`torch.cat(...)`), or None: not a function, or an unknown one. A `torch.X` the
    table lacks is read from torch's schema of aten::X (`schemas.py`). Given the file's `flow`, a callee bound to
    anything but torch's has no row. A local name bound to torch functions by their names (`fn = F.cross_entropy if
    flag else F.nll_loss`) has the row they share (`Flow.chosen_functions`)."""
    chosen = flow.chosen_functions(call) if flow is not None and depth > 0 else None
    if chosen:
        return _joined([function_effect(call.with_changes(func=f), flow, depth - 1) for f in chosen])
    name = function_name(call, flow)
    if name is None:
        return _submodule_effect(call, flow)
    if in_place_asked(call, name):
        return None  # told to write its input (`F.relu(x, inplace=True)`)
    if isinstance(call.func, cst.Name) and name in PYTHON_PICKS:
        return None  # Python's max(a, b) returns one of its arguments itself
    if name == "einsum" and _operands(call) < 2:
        return None  # one operand's einsum is a permutation or a diagonal of it: a view (`einsum('ij->ji', x)`)
    row = FUNCTIONS.get(name)
    if row is None and isinstance(call.func, cst.Attribute) and dotted(call.func.value) == "torch":
        row = _from_schema(name, method=False)
    return row


_SUBMODULES = frozenset(module.rpartition(".")[2] for module in PREFIXED)  # linalg, special, fft


def _submodule_effect(call: cst.Call, flow=None) -> Effect | None:
    """The row of a function of torch's submodules named after ATen operators (`torch.linalg.solve_triangular` is
    aten::linalg_solve_triangular, `schemas.PREFIXED`), by the file's imports or as spelled, read from the operator's
    schema; None for anything else, or one called with `out=`."""
    spelled = dotted(call.func)
    if spelled is None or spelled.rpartition(".")[0].rpartition(".")[2] not in _SUBMODULES:
        return None  # a method of a value, a bare name: no scope lookups for them (every call asks)
    qualified = flow.qualified(call.func) if flow is not None else None
    if qualified is None and (flow is None or not flow.foreign(call)):
        qualified = spelled  # as spelled, as `function_name` takes `torch.X`
    module = qualified.rpartition(".")[0] if qualified is not None else None
    if module not in PREFIXED or has_out(call):
        return None
    operator = operator_name(qualified)
    return _from_schema(operator, method=False) if operator is not None else None


def _joined(rows: list[Effect | None]) -> Effect | None:
    """The row of a call of one of several functions: theirs when they share it, a new result when each makes one;
    None when any is unknown, may return its argument (a view of which one?) or writes."""
    if not rows or any(row is None or row.writes_receiver or row.result == "alias" for row in rows):
        return None
    if all(row == rows[0] for row in rows):
        return rows[0]
    if all(row.result == "fresh" for row in rows):
        return Effect("fresh", contiguous="yes" if all(row.contiguous == "yes" for row in rows) else "no")
    return None


def method_effect(call: cst.Call, flow=None) -> Effect | None:
    """The row of a method call on a tensor (`x.view(...)`), or None: a function, or an unknown method. A method the
    table lacks is read from torch's schema of aten::NAME (`schemas.py`)."""
    if not isinstance(call.func, cst.Attribute) or function_name(call, flow) is not None or \
            (flow is not None and (flow.foreign(call) or flow.module_function(call))):
        return None  # a function, or a function of a module (`np.exp(x)`, `torch.autograd.grad(...)`)
    if call.func.attr.value == "new":
        return _new_effect(call, flow)
    row = METHODS.get(call.func.attr.value)
    if row is None:
        row = _from_schema(call.func.attr.value, method=True)
    return row


def _new_effect(call: cst.Call, flow=None) -> Effect | None:
    """`x.new(...)`, torch's legacy constructor: given sizes or numbers (`x.new(x.shape)`, `x.new(n, 3)`,
    `x.new([1.0])`, nothing) it makes a new contiguous tensor; given a tensor or a storage it shares that one's memory
    (`x.new(t)` is an alias of `t`, not of `x`). So a row only where no argument may hold tensor storage, else None."""
    if any(a.star == "**" or not holds_no_tensor(a.value, flow) for a in call.args):
        return None
    return FRESH_CONTIGUOUS


_CONSTANTS = frozenset({"True", "False", "None"})
_DEPTH = 8  # how many bindings a value is followed through (its own operands and elements are walked whole)


def holds_no_tensor(expr: cst.BaseExpression, flow=None, depth: int = 0) -> bool:
    """Is `expr` on every path a value with no tensor storage in it: a number, a size or anything the table calls a
    scalar (`x.shape`, `x.size(0)`, `len(xs)`, `x.tolist()`), an index of one, arithmetic of them, a tuple or list of
    them (starred too), or, given the file's `flow`, a name every binding that reaches it binds to one?"""
    if depth > _DEPTH:
        return False
    deeper = depth + 1
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(expr, cst.Name):
        if expr.value in _CONSTANTS:
            return True
        values = flow.reaching_values(expr) if flow is not None else None
        return values is not None and all(holds_no_tensor(v, flow, deeper) for v in values)
    if isinstance(expr, cst.Attribute):
        return ATTRIBUTES.get(expr.attr.value) is SCALAR
    if isinstance(expr, cst.Call):
        row = call_effect(expr, flow)
        return row is not None and row.result == "scalar" and not row.writes_receiver
    if isinstance(expr, cst.Subscript):
        return holds_no_tensor(expr.value, flow, depth)
    if isinstance(expr, cst.BinaryOperation):
        return holds_no_tensor(expr.left, flow, depth) and holds_no_tensor(expr.right, flow, depth)
    if isinstance(expr, cst.UnaryOperation):
        return holds_no_tensor(expr.expression, flow, depth)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(holds_no_tensor(e.value, flow, depth) for e in expr.elements)
    return False


def _from_schema(name: str, method: bool) -> Effect | None:
    """A row made from torch's schema of aten::NAME; an in-place one's layout after the call is not known."""
    found = schema_effect(name, method)
    return Effect(found[0], writes_receiver=found[1]) if found is not None else None


def call_effect(call: cst.Call, flow=None) -> Effect | None:
    """The row of a call, function or method; None for an unknown callee."""
    return function_effect(call, flow) or method_effect(call, flow)


def torch_writes_nothing(call: cst.Call, flow) -> bool:
    """Is `call` a call of a function of torch (by the file's imports) that writes no tensor: called with no
    arguments at all (torch holds none of the caller's tensors: `torch.jit.is_scripting()`), or an ATen operator
    whose schema writes none of its arguments (`torch.linalg.solve`, `F.cosine_similarity`), told nothing that could
    make it write (`out=`, `inplace=`)?"""
    chosen = flow.chosen_functions(call) if flow is not None else None
    if chosen:  # `fn = F.cross_entropy if flag else F.nll_loss`: each of them
        return all(torch_writes_nothing(call.with_changes(func=f), flow) for f in chosen)
    qualified = flow.qualified(call.func) if flow is not None else None
    if qualified is None or not (qualified == "torch" or qualified.startswith("torch.")):
        return False
    if not call.args:
        return True
    operator = operator_name(qualified)
    return operator is not None and not has_out(call) and not in_place_asked(call, qualified.rpartition(".")[2]) \
        and writes_no_argument(operator)


# The classes an autograd Function derives from, and the methods of the context its static methods are given first
# (`forward(ctx, ...)`): they record tensors in the context (the tensors are stored, kept for backward) and write none.
AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
CONTEXT_RECORDS = frozenset({"save_for_backward", "save_for_forward", "mark_dirty", "mark_non_differentiable",
                             "set_materialize_grads"})


def context_records(call: cst.Call, flow) -> bool:
    """`ctx.save_for_backward(x)`, `ctx.mark_dirty(x)`: a recording method (`CONTEXT_RECORDS`) of the first parameter,
    never rebound, of a static method of a class that derives from `torch.autograd.Function` alone. It writes no
    tensor; what it is given is stored all the same (this says nothing of reads)."""
    func = call.func
    if flow is None or not isinstance(func, cst.Attribute) or func.attr.value not in CONTEXT_RECORDS or \
            not isinstance(func.value, cst.Name):
        return False
    scope = flow.scopes.get(func.value)
    found = list(scope[func.value.value]) if scope is not None else []
    param = getattr(found[0], "node", None) if len(found) == 1 else None
    parameters = flow.parent(param) if isinstance(param, cst.Param) else None
    method = flow.parent(parameters) if isinstance(parameters, cst.Parameters) else None
    if not isinstance(method, cst.FunctionDef) or not parameters.params or parameters.params[0] is not param or \
            [flow.qualified(d.decorator) or dotted(d.decorator) for d in method.decorators] != ["staticmethod"]:
        return False
    block = flow.parent(method)
    klass = flow.parent(block) if isinstance(block, cst.IndentedBlock) else None
    return isinstance(klass, cst.ClassDef) and autograd_function(klass, flow)


def autograd_function(klass: cst.ClassDef, flow) -> bool:
    """Does `klass` derive from `torch.autograd.Function` alone (by its file's imports), with no metaclass?"""
    return not klass.keywords and len(klass.bases) == 1 and flow.qualified(klass.bases[0].value) in AUTOGRAD_FUNCTIONS


def relaid_base(call: cst.BaseExpression, flow=None) -> cst.BaseExpression | None:
    """The tensor `call` only permutes or lays out again without gaps (`x.t()`, `x.permute(...)`, `x.reshape(n)`,
    `x.float()`: an alias whose row writes nothing and permutes, or keeps contiguity), else None. Of a dense tensor
    the result is dense."""
    if not isinstance(call, cst.Call) or has_out(call):
        return None
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    row = call_effect(call, flow)
    if row is None or row.writes_receiver or row.result != "alias" or not (name in PERMUTING or
                                                                           row.contiguous == "kept"):
        return None
    return base_of(call, flow)


def base_of(expr: cst.BaseExpression, flow=None) -> cst.BaseExpression | None:
    """What `expr`'s result may share storage with when it is an alias (a view, a cast, an index), else None:
    `x` of `x[:n]`, `x.view(-1)`, `x.T`, `torch.narrow(x, ...)`."""
    if isinstance(expr, cst.Subscript):
        return expr.value
    if isinstance(expr, cst.Attribute):
        row = ATTRIBUTES.get(expr.attr.value)
        return expr.value if row is ALIAS else None
    if isinstance(expr, cst.Call) and not has_out(expr):
        row = call_effect(expr, flow)
        if row is None or row.result != "alias" or row.writes_receiver:
            return None
        if function_name(expr, flow) is not None:
            first = expr.args[0] if expr.args else None
            return first.value if first is not None and first.keyword is None and not first.star else None
        return expr.func.value
    return None


# Views whose elements may share one place in memory (a stride of 0, overlapping windows): a write through one
# element lands in others, which a copy's does not.
OVERLAPPING = frozenset("expand expand_as broadcast_to as_strided unfold".split())


def self_overlapping(expr: cst.BaseExpression, flow=None) -> bool:
    """Is `expr`, or any view it is taken of on its way to its base, one whose elements may overlap in memory
    (`x.expand(n, -1)`, `torch.broadcast_to(x, s)`, `x.unfold(0, 3, 1)`, `x.as_strided(...)`)?"""
    for _ in range(64):
        if isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Name, cst.Attribute)):
            name = expr.func.value if isinstance(expr.func, cst.Name) else expr.func.attr.value
            if name in OVERLAPPING:
                return True
        base = base_of(expr, flow)
        if base is None:
            return False
        expr = base
    return True


def storage_root(expr: cst.BaseExpression, copies=None, flow=None) -> cst.BaseExpression:
    """What an alias chain is taken of: `out` in `out[:n].view(b, n)`, the call in `(a == b).nonzero().view(-1)`;
    with `copies` (a predicate), the chain also stops at an expression it says always makes a copy (`x[mask]`); it
    always stops at an element of a call's new pair (`torch.topk(x, k)[0]`)."""
    for _ in range(64):
        if (copies is not None and copies(expr)) or _element_of_new_pair(expr, flow):
            return expr  # `torch.topk(x, k)[0]`: an element of a tuple, a tensor of its own
        base = base_of(expr, flow)
        if base is None:
            return expr
        expr = base
    return expr


def is_fresh(expr: cst.BaseExpression, flow=None) -> bool:
    """Does `expr` always make a new tensor nothing else holds (arithmetic, a factory, cat, `.clone()`, a sum)?"""
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
        return True
    if isinstance(expr, cst.Subscript):
        return _element_of_new_pair(expr, flow)
    if not isinstance(expr, cst.Call) or has_out(expr):
        return False
    row = call_effect(expr, flow)
    if row is not None and row.writes_receiver and isinstance(expr.func, cst.Attribute) and \
            function_name(expr, flow) is None:
        return is_fresh(expr.func.value, flow)  # an in-place method returns its receiver: `(a / b).rsqrt_()`
    return row is not None and row.result == "fresh"


# Calls whose result is always a pair of new tensors (values, indices), each dense: `torch.topk(x, k)[0]` is new.
NEW_PAIRS = frozenset({"topk", "sort"})


def _element_of_new_pair(expr: cst.BaseExpression, flow=None) -> bool:
    """`torch.topk(x, k)[0]`, `x.sort(dim)[1]`: an element, by a literal 0 or 1, of a call that returns new pairs."""
    call = expr.value if isinstance(expr, cst.Subscript) else None
    if not isinstance(call, cst.Call) or has_out(call) or len(expr.slice) != 1 or \
            not isinstance(expr.slice[0].slice, cst.Index):
        return False
    index = expr.slice[0].slice.value
    if not isinstance(index, cst.Integer) or index.evaluated_value not in (0, 1):
        return False
    name = function_name(call, flow) or (call.func.attr.value if isinstance(call.func, cst.Attribute) else None)
    row = call_effect(call, flow)
    return name in NEW_PAIRS and row is not None and row.result == "fresh" and not row.writes_receiver


def contiguity(expr: cst.BaseExpression, flow=None) -> str:
    """`yes`: `expr` is always contiguous; `kept`: when the tensor it is made of is; `no`: not known."""
    if isinstance(expr, cst.Call) and not has_out(expr):
        row = call_effect(expr, flow)
        if row is not None and not row.writes_receiver:
            return row.contiguous
    return "no"


# Views that only reorder a tensor's axes: of a dense tensor (its elements one block of memory, no gaps) they are
# dense, and `.clone()` keeps a dense tensor's strides (`torch.preserve_format`).
PERMUTING = frozenset("t transpose permute movedim swapaxes swapdims adjoint".split())
PERMUTING_ATTRIBUTES = frozenset("T mT H mH".split())


# Methods a tensor has and Python lists, tuples and numpy arrays lack: a call of one returns a tensor.
TENSOR_ONLY = frozenset(
    "narrow select as_strided permute expand expand_as unsqueeze t unflatten movedim view view_as contiguous clone "
    "new_zeros new_ones new_empty new_full new_tensor index_select masked_fill float double half bfloat16 long int "
    "short bool byte gather scatter scatter_add index_add index_copy masked_select softmax log_softmax "
    "repeat_interleave clamp sigmoid flip".split())
# Calls whose result may be a tuple of tensors (`x.split(2)`, `torch.sort(x)`): an index of it is not a tensor's.
TUPLES = frozenset("split chunk unbind tensor_split hsplit vsplit sort topk max min unique meshgrid nonzero "
                   "broadcast_tensors".split())
# Attributes that hold a tuple of tensors (an element may be None, which raises before a copy would, in the mutant
# as in the original): an autograd Function context's saved inputs, for backward (`ctx.saved_tensors`) and for the
# forward-mode jvp (`ctx.saved_for_forward`, which `ctx.save_for_forward(*tensors)` sets after asserting each is a
# tensor or None).
TENSOR_TUPLE_ATTRIBUTES = frozenset({"saved_tensors", "saved_for_forward"})


def unpacked_from_new(statement, name: str, flow=None) -> bool:
    """`values, name = x.sort(...)`: `name` one of the plain names a call's result is unpacked to, the call one whose
    every result is new (sort, topk, a max over a dim: a tuple of new tensors sharing storage with nothing)."""
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return False
    target, value = statement.targets[0].target, statement.value
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, cst.Call) or has_out(value):
        return False
    names = [e.value for e in target.elements]
    if any(isinstance(e, cst.StarredElement) or not isinstance(e.value, cst.Name) for e in target.elements) or \
            sum(n.value == name for n in names) != 1:
        return False
    row = call_effect(value, flow)
    return row is not None and row.result == "fresh"
