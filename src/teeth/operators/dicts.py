"""Stores into dicts rather than rows: which subscript targets are items of a dict (built here, a `**kwargs`, a
parameter annotated as one, an attribute its class only sets to one) or keyed by text.

Decided from what produced a value and from the class's own assignments, never from a name.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst

from teeth.operators.base import _STRINGS, _str_annotation, method_call
from teeth.operators.dataflow import Flow
from teeth.syntax.functions import Function

DICT_MAKERS = ("dict", "defaultdict", "OrderedDict", "Counter", "ModuleDict", "ParameterDict")
DICT_ANNOTATIONS = ("dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict")


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
