"""What host operators need to know about the code around a node: the names its function binds once, and to what.

`pre = full.narrow(0, 0, start)` ... `torch.cat([pre, edited, post])`: an operator that looks at the `cat` sees only
`pre`; the function's bindings say that `pre` is a narrowed piece of `full`.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

import libcst as cst


@dataclass
class Bindings:
    """Names bound exactly once in one function's own body (not in nested functions, classes or lambdas), each
    by a plain `name = value` (or `name: T = value`); a name bound twice, in a loop target, by unpacking or as a
    parameter is absent. `every` holds each name that only plain assignments bind (once or more), with all their
    values."""

    values: dict[str, cst.BaseExpression] = field(default_factory=dict)
    bound: dict[str, int] = field(default_factory=dict)  # how often each name is bound there, parameters included
    assigned: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)  # every `name = value` of each name

    @functools.cached_property
    def every(self) -> dict[str, list[cst.BaseExpression]]:
        """The names bound only by `name = value`, with all their values."""
        return {name: values for name, values in self.assigned.items() if len(values) == self.bound.get(name)}

    def resolve(self, expr: cst.BaseExpression, depth: int = 4) -> cst.BaseExpression:
        """`expr`, or the value a name is bound to (followed through up to `depth` names)."""
        while depth and isinstance(expr, cst.Name) and expr.value in self.values:
            expr, depth = self.values[expr.value], depth - 1
        return expr


NO_BINDINGS = Bindings()


class _Collect(cst.CSTVisitor):
    def __init__(self, root: cst.CSTNode):
        super().__init__()
        self.root = root
        self.count: Counter[str] = Counter()
        self.plain: dict[str, cst.BaseExpression] = {}
        self.values: dict[str, list[cst.BaseExpression]] = {}  # every plain `name = value` of each name

    def _bound(self, target: cst.CSTNode) -> None:
        for name in _names(target):
            self.count[name] += 1

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is not self.root and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self.count[node.name.value] += 1
            return False
        if isinstance(node, cst.Param):
            self.count[node.name.value] += 1
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                self._bound(target.target)
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.values.setdefault(target.target.value, []).append(node.value)
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                self.plain[node.targets[0].target.value] = node.value
        elif isinstance(node, cst.AnnAssign):  # `keep: List[int] = []` binds as `keep = []` does
            self._bound(node.target)
            if node.value is not None and isinstance(node.target, cst.Name):
                self.plain[node.target.value] = node.value
                self.values.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            self._bound(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._bound(node.asname.name)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            for item in node.names:
                self.count[item.name.value] += 2
        return True


def _names(target: cst.CSTNode) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def bindings_of(function: cst.FunctionDef) -> Bindings:
    collect = _Collect(function)
    function.visit(collect)
    return Bindings({name: value for name, value in collect.plain.items() if collect.count[name] == 1},
                    dict(collect.count),
                    dict(collect.values))
