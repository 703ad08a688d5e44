"""One function's dataflow as the group operators read it: the values its names are bound to once, the loops over
groups that hold a node (and what their first group is), the reaching definition of a use.

Decided from what produced a value (a loop over `enumerate`/`zip`/`range`, an unpacking) and from the function's
bindings, never from a name.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper

from teeth.equivalence import flow as kit
from teeth.operators.base import method_call, positional
from teeth.operators.context import Context
from teeth.operators.dims import over_dims
from teeth.syntax.functions import Function


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
