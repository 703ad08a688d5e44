"""Batches grouped by index, read from one function's dataflow: which values are index tensors or masks, which loops
run over groups (and what their first group is), and which subscript stores go into dicts rather than rows.

Everything here is decided from what produced a value (`torch.where`, `nonzero`, `argsort`, a comparison, a list
literal, a loop over `enumerate`/`zip`/`range`), from the function's bindings and from the class's own assignments,
never from a name.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper

from teeth.equivalence import flow as kit
from teeth.syntax.functions import Function
from teeth.operators.base import _STRINGS, _str_annotation, method_call, positional, torch_call
from teeth.operators.context import Context
from teeth.operators.dims import over_dims

# calls whose result is a tensor of indices (or a mask) whatever their input
INDEX_PRODUCERS = ("nonzero", "argwhere", "argsort", "arange", "randperm", "bucketize", "searchsorted")
MASK_PRODUCERS = ("eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "isin", "logical_and",
                  "logical_or", "logical_not", "logical_xor", "bool", "greater", "less", "equal", "not_equal",
                  "any", "all")  # any/all: bool whatever their input (a mask reduced over a dim is a mask)
# calls returning (values, indices): their second item, or `.indices`, is an index tensor
WITH_INDICES = ("sort", "topk", "max", "min", "kthvalue", "mode", "median", "cummax", "cummin")
# methods that keep an index tensor an index tensor
KEEPS_INDEX = ("view", "reshape", "flatten", "squeeze", "unsqueeze", "long", "int", "to", "cpu", "cuda", "t",
               "tolist", "contiguous", "clone", "detach", "repeat_interleave", "expand", "expand_as", "view_as",
               "unique", "flip", "masked_select")
DICT_MAKERS = ("dict", "defaultdict", "OrderedDict", "Counter", "ModuleDict", "ParameterDict")
DICT_ANNOTATIONS = ("dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict")


@dataclass(frozen=True)
class Loop:
    """A `for` over groups: the names its target binds (and nothing else binds), each with its first group's value."""

    node: cst.For
    firsts: dict[str, cst.BaseExpression]


@dataclass
class Flow:
    """One function's dataflow facts for grouped batches."""

    function: Function
    unpacked: dict[str, tuple[cst.BaseExpression, int]] = field(default_factory=dict)  # bound once by unpacking
    loops: dict[int, list[Loop]] = field(default_factory=dict)  # id(node) -> the loops whose body holds it
    params: dict[str, cst.Param] = field(default_factory=dict)
    keys: set[str] | None = None  # the names that key stores into dicts (dict_keys), found once
    _kit: kit.Flow | None = None  # the equivalence kit's metadata of the function alone, made on first use

    @property
    def values(self) -> dict[str, cst.BaseExpression]:
        return self.function.bindings.values

    def once(self, name: str) -> bool:
        return self.function.bindings.bound.get(name) == 1

    def reaching(self, use: cst.Name) -> kit.Reaching | None:
        """The one binding of `use`'s name that reaches it on every path within the function (the equivalence
        kit's), or None when several may."""
        if self._kit is None:
            module = cst.Module(body=[self.function.node])  # the function's own nodes: no copy
            self._kit = kit.Flow(MetadataWrapper(module, unsafe_skip_copy=True))
        return self._kit.reaching(use)

    def loop_first(self, node: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """The first group's value of `name` where `name` is the group of a loop whose body holds `node`."""
        for loop in reversed(self.loops.get(id(node), [])):
            if name in loop.firsts:
                return loop.firsts[name]
        return None


_FLOWS: weakref.WeakKeyDictionary[Function, Flow] = weakref.WeakKeyDictionary()


def flow_of(ctx: Context) -> Flow | None:
    """The dataflow facts of the function around the node (None at module level), computed once per function."""
    function = ctx.function
    if function is None:
        return None
    if function not in _FLOWS:
        _FLOWS[function] = _build(function)
    return _FLOWS[function]


def _next_of(seq: cst.BaseExpression) -> cst.BaseExpression:
    """`next(iter(seq))`: the first group of any iterable (a list, a tensor's rows, a dict's keys)."""
    return cst.Call(cst.Name("next"), [cst.Arg(cst.Call(cst.Name("iter"), [cst.Arg(seq)]))])


def _plain(expr: cst.BaseExpression) -> bool:
    """A name or attribute chain: evaluating it again reads the same thing and runs nothing."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


def _first(it: cst.BaseExpression):
    """The first item a loop over `it` binds: an expression, a list (for a tuple of items), or None (unknown)."""
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and not any(a.star for a in it.args):
        args = [a for a in it.args if a.keyword is None]
        name = it.func.value
        if name == "enumerate" and args:
            start = positional(it, 1, "start")
            return [start.value if start is not None else cst.Integer("0"), _first(args[0].value)]
        if name == "zip" and args:
            return [_first(a.value) for a in args]
        if name == "range" and args:
            return cst.Integer("0") if len(args) == 1 else args[0].value
        return None
    if method_call(it, "items", "keys", "values") and not it.args and _plain(it.func.value):
        keys = _next_of(it.func.value)
        values = _next_of(cst.Call(cst.Attribute(it.func.value, cst.Name("values"))))
        return {"items": [keys, values], "keys": keys, "values": values}[it.func.attr.value]
    if _plain(it):
        return _next_of(it)
    return None


def _bind(target: cst.BaseExpression, first, out: dict[str, cst.BaseExpression]) -> None:
    if first is None:
        return
    if isinstance(target, cst.Name):
        if not isinstance(first, list):
            out[target.value] = first
    elif isinstance(target, (cst.Tuple, cst.List)):
        elements = [e.value for e in target.elements]
        if isinstance(first, list):
            if len(first) == len(elements):
                for element, item in zip(elements, first):
                    _bind(element, item, out)
        else:
            for j, element in enumerate(elements):
                _bind(element, cst.Subscript(first, [cst.SubscriptElement(cst.Index(cst.Integer(str(j))))]), out)


class _Walk(cst.CSTVisitor):
    def __init__(self, flow: Flow, root: cst.FunctionDef):
        super().__init__()
        self.flow, self.root = flow, root
        self.stack: list[Loop] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is not self.root and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if self.stack:
            self.flow.loops[id(node)] = list(self.stack)
        if isinstance(node, cst.Param):
            self.flow.params[node.name.value] = node
        elif isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)):
                for j, element in enumerate(target.elements):
                    if isinstance(element.value, cst.Name) and self.flow.once(element.value.value):
                        self.flow.unpacked[element.value.value] = (node.value, j)
        elif isinstance(node, cst.For):
            firsts: dict[str, cst.BaseExpression] = {}
            if not over_dims(node, self.flow.values):
                _bind(node.target, _first(node.iter), firsts)
            firsts = {name: value for name, value in firsts.items() if self.flow.once(name)}
            node.iter.visit(self)  # the iterable runs outside the loop's body
            node.target.visit(self)
            self.stack.append(Loop(node, firsts))
            node.body.visit(self)
            self.stack.pop()
            if node.orelse is not None:
                node.orelse.visit(self)
            return False
        return True


def _build(function: Function) -> Flow:
    flow = Flow(function)
    function.node.visit(_Walk(flow, function.node))
    return flow


def group_first(node: cst.CSTNode, flow: Flow | None) -> cst.Subscript | None:
    """`seq[k]` where `k` is the group of a loop around it: the same lookup for the loop's first group."""
    if flow is None or not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or index.star or not isinstance(index.value, cst.Name):
        return None
    first = flow.loop_first(node, index.value.value)
    if first is None:
        return None
    return node.with_changes(slice=[node.slice[0].with_changes(slice=index.with_changes(value=first))])


def is_index(expr: cst.BaseExpression, flow: Flow | None, depth: int = 6) -> bool:
    """Does `expr` hold indices or a mask (a list, an index or bool tensor), not one scalar position?"""
    if depth == 0:
        return False
    again = lambda e: is_index(e, flow, depth - 1)  # noqa: E731
    if isinstance(expr, (cst.List, cst.ListComp)):
        return True
    if isinstance(expr, cst.Comparison):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return again(expr.left) or again(expr.right)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply,
                                                                            cst.FloorDivide, cst.Modulo)):
        return again(expr.left) or again(expr.right)  # positions shifted or scaled: `arange(n) - ptr[batch]`
    if isinstance(expr, cst.Call):
        if torch_call(expr, "where"):
            return False  # one argument: a tuple of index tensors; three: values
        if torch_call(expr, *INDEX_PRODUCERS, *MASK_PRODUCERS) or method_call(expr, *INDEX_PRODUCERS,
                                                                                 *MASK_PRODUCERS):
            return True
        if torch_call(expr, "tensor", "as_tensor", "cat", "concat", "stack", "unique"):
            first = positional(expr, 0)
            return first is not None and (again(first.value) or isinstance(first.value, (cst.List, cst.Tuple))
                                          and any(again(e.value) for e in first.value.elements))
        if method_call(expr, *KEEPS_INDEX) and not torch_call(expr, *KEEPS_INDEX):
            return again(expr.func.value)
        return False
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "indices" and _with_indices(expr.value)
    if group_index(expr, flow) is not None:
        return True
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            item = expr.slice[0].slice.value
            return isinstance(item, cst.Integer) and (
                _where(expr.value) or (item.evaluated_value == 1 and _with_indices(expr.value)))
        return any(isinstance(e.slice, cst.Slice) for e in expr.slice) and again(expr.value)  # rows of indices
    if isinstance(expr, cst.Name) and flow is not None:
        name = expr.value
        if name in flow.values:
            return again(flow.values[name])
        if name in flow.unpacked:
            value, j = flow.unpacked[name]
            return _where(value) or (j == 1 and _with_indices(value))
    return False


def group_index(expr: cst.BaseExpression, flow: Flow | None) -> cst.BaseExpression | None:
    """Where `expr` is one group's index taken from a per-group sequence inside a loop over the groups (`idx[i]`
    for `i` the loop's counter, or `idx` for the loop's item of a sequence): the first group's index instead."""
    if flow is None:
        return None
    if isinstance(expr, cst.Subscript):
        picked = group_first(expr, flow)
        return picked if picked is not None and _per_group(expr.value, flow) else None
    if isinstance(expr, cst.Name):
        if expr.value in dict_keys(flow):
            return None  # it keys a dict here: a name or text, not a group's rows
        first = flow.loop_first(expr, expr.value)
        if (isinstance(first, cst.Call) and isinstance(first.func, cst.Name) and first.func.value == "next"
                and _per_group(first.args[0].value.args[0].value, flow)):
            return first
    return None


def dict_keys(flow: Flow) -> set[str]:
    """Names the function uses as the key of a store into a dict (`out[name] = v` with `out = {}`)."""
    if flow.keys is None:
        found: set[str] = set()
        for assign in _assignments(flow.function.node):
            for target, _ in assign:
                if (isinstance(target, cst.Subscript) and len(target.slice) == 1
                        and isinstance(target.slice[0].slice, cst.Index)
                        and isinstance(target.slice[0].slice.value, cst.Name) and is_dict(target.value, flow)):
                    found.add(target.slice[0].slice.value.value)
        flow.keys = found
    return flow.keys


def _per_group(seq: cst.BaseExpression, flow: Flow) -> bool:
    """Can `seq` be a sequence of per-group indices: a list built here, or a parameter or attribute (the caller's
    groups)? A name bound once to anything else is not: an item of an index tensor is one position, a group's key."""
    if isinstance(seq, cst.Attribute):
        return True
    if not isinstance(seq, cst.Name):
        return False
    if seq.value in flow.values:
        return isinstance(flow.values[seq.value], (cst.List, cst.ListComp))
    return True


def _where(expr: cst.BaseExpression) -> bool:
    """`torch.where(cond)` (one argument) or `nonzero(as_tuple=True)`: a tuple of index tensors."""
    if torch_call(expr, "where"):
        return len([a for a in expr.args if a.keyword is None]) == 1
    return (torch_call(expr, "nonzero") or method_call(expr, "nonzero")) and any(
        a.keyword is not None and a.keyword.value == "as_tuple" for a in expr.args)


def _with_indices(expr: cst.BaseExpression) -> bool:
    return torch_call(expr, *WITH_INDICES) or (method_call(expr, *WITH_INDICES) and bool(expr.args))


def is_text(expr: cst.BaseExpression, flow: Flow | None, depth: int = 4) -> bool:
    """Does `expr` hold text: a string literal, `str(...)`, `"...".format(...)`, a name bound to one, or a
    parameter annotated `str` that the function never rebinds?"""
    if isinstance(expr, _STRINGS):
        return True
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Name) and expr.func.value in ("str", "repr"):
            return True
        return method_call(expr, "format", "join", "lower", "upper", "strip") and isinstance(expr.func.value,
                                                                                              _STRINGS)
    if isinstance(expr, cst.Name) and flow is not None and depth:
        if expr.value in flow.values:
            return is_text(flow.values[expr.value], flow, depth - 1)
        param = flow.params.get(expr.value)
        return (param is not None and param.annotation is not None and flow.once(expr.value)
                and _str_annotation(param.annotation.annotation))
    return False


def _dict_value(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return True
    if isinstance(expr, cst.Call):
        func = expr.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) \
            else None
        return name in DICT_MAKERS
    return False


def _dict_annotation(annotation: cst.BaseExpression) -> bool:
    if isinstance(annotation, cst.Subscript):
        annotation = annotation.value
    name = annotation.value if isinstance(annotation, cst.Name) else annotation.attr.value if isinstance(
        annotation, cst.Attribute) else None
    return name in DICT_ANNOTATIONS


def is_dict(expr: cst.BaseExpression, flow: Flow | None) -> bool:
    """Is `expr` a dict: a name whose every binding that can reach it makes one (`{}`, `dict(...)`,
    `defaultdict(...)`, `nn.ModuleDict(...)`, a dict comprehension), the `**kwargs` parameter, a parameter annotated
    `dict`/`Mapping`, or an attribute of `self` that its class only sets to one?"""
    if flow is None:
        return False
    if isinstance(expr, cst.Name):
        name = expr.value
        if name in flow.values:
            return _dict_value(flow.values[name])
        every = flow.function.bindings.every.get(name)
        if every is not None and all(_dict_value(v) for v in every):
            return True  # whichever binding reaches makes a dict
        if flow.function.bindings.bound.get(name, 0) > 1:
            reaching = flow.reaching(expr)  # bound to a dict on this path, to something else on another
            return reaching is not None and reaching.value is not None and _dict_value(reaching.value)
        node = flow.function.node
        star = node.params.star_kwarg
        if star is not None and star.name.value == name:
            return flow.once(name)
        param = flow.params.get(name)
        return (param is not None and param.annotation is not None and flow.once(name)
                and _dict_annotation(param.annotation.annotation))
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        return _class_dict(flow.function, expr.value.value, expr.attr.value)
    return False


def _self_name(method: cst.FunctionDef) -> str | None:
    """The first parameter of a method (the instance), unless it is a staticmethod."""
    if any(isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
           for d in method.decorators):
        return None
    params = [*method.params.posonly_params, *method.params.params]
    return params[0].name.value if params else None


def _class_dict(function: Function, instance: str, attribute: str) -> bool:
    """`self.attribute` in a method, where every assignment `self.attribute = ...` in the class's methods makes a
    dict (and there is at least one)."""
    owner = function.owner
    if owner is None or _self_name(function.node) != instance:
        return False
    values = _instance_attributes(owner).get(attribute, [])
    return bool(values) and all(_dict_value(v) for v in values)


@lru_cache(maxsize=32)  # per class (libcst nodes hash by identity): each of its methods' stores asks again
def _instance_attributes(owner: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
    """Every value the class's methods assign to an attribute of their instance (`self.name = value`), by name."""
    values: dict[str, list[cst.BaseExpression]] = {}
    for method in owner.body.body:
        if not isinstance(method, cst.FunctionDef) or (me := _self_name(method)) is None:
            continue
        for assign in _assignments(method):
            for target, value in assign:
                if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                        and target.value.value == me):
                    values.setdefault(target.attr.value, []).append(value)
    return values


def _assignments(method: cst.FunctionDef):
    found: list[list[tuple[cst.BaseExpression, cst.BaseExpression]]] = []

    class Visit(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            found.append([(t.target, node.value) for t in node.targets])

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                found.append([(node.target, node.value)])

    method.visit(Visit())
    return found


def dict_store(target: cst.BaseExpression, flow: Flow | None) -> bool:
    """Is `target` (the target of a store) an item of a dict, keyed by text or held in a dict: no rows at all?"""
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
        return False
    key = target.slice[0].slice
    if isinstance(key, cst.Index) and is_text(key.value, flow):
        return True
    return is_dict(target.value, flow)
