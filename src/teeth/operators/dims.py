"""Loops over a tensor's dims rather than over groups of its rows, told from the loop's iterable and body."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import method_call, sizes

DIM_KEYWORDS = ("dim", "dims", "axis", "dim0", "dim1", "start_dim", "end_dim")
DIM_METHODS = ("size", "stride", "dim", "ndimension")


def _sizes_like(expr: cst.BaseExpression, values: dict[str, cst.BaseExpression], depth: int = 3) -> bool:
    """Sizes, not rows: `x.shape`, `x.size()`, `x.stride()`, `x.dim()`, `x.ndim`, `len(<sizes>)`, or a name bound
    once to one of those."""
    if sizes(expr) or (isinstance(expr, cst.Attribute) and expr.attr.value == "ndim"):
        return True
    if method_call(expr, *DIM_METHODS) and not expr.args:
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len" and expr.args:
        return _sizes_like(expr.args[0].value, values, depth)
    if isinstance(expr, cst.Name) and expr.value in values and depth:
        return _sizes_like(values[expr.value], values, depth - 1)
    return False


def over_dims(loop: cst.For, values: dict[str, cst.BaseExpression]) -> bool:
    """Does the loop run over a tensor's dims, not over groups of its rows? Its iterable counts or lists sizes
    (`range(x.dim())`, `enumerate(x.shape)`, `zip(x.size(), ...)`), or its body uses the loop's names as a dim
    (`dim=d`, `x.size(d)`, `x.shape[d]`)."""
    it = loop.iter
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value in ("range", "enumerate", "zip"):
        if any(_sizes_like(a.value, values) for a in it.args if a.keyword is None):
            return True
    elif _sizes_like(it, values):
        return True
    names = set(_target_names(loop.target))
    if not names:
        return False
    found = False

    class UsesAsDim(cst.CSTVisitor):
        def visit_Arg(self, node: cst.Arg) -> None:
            nonlocal found
            if node.keyword is not None and node.keyword.value in DIM_KEYWORDS and _mentions(node.value, names):
                found = True

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            if method_call(node, "size", "stride") and node.args and _mentions(node.args[0].value, names):
                found = True

        def visit_Subscript(self, node: cst.Subscript) -> None:
            nonlocal found
            if sizes(node.value) and any(_mentions(e.slice, names) for e in node.slice):
                found = True

    loop.body.visit(UsesAsDim())
    return found


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    return []


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    found = False

    class Visit(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            nonlocal found
            found = found or name.value in names

    node.visit(Visit())
    return found
