"""Which part of a batched tensor an expression is: rows [lo, hi) along a dim, one picked row, one split piece.

A splice (`torch.cat([pre, edited, post])`) and a per-group pick (`x.split(sizes)[i]`) are recognised from these,
through the enclosing function's bindings (`pre = full.narrow(0, 0, start)`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from teeth.syntax.bindings import Bindings
from teeth.operators.base import is_zero, method_call, positional, torch_call

SPLITS = ("split", "chunk", "tensor_split")
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


@dataclass(frozen=True)
class Rows:
    """Rows [lo, hi) of `base` along `dim`; lo None: from the start, hi None: to the end."""

    base: cst.BaseExpression
    dim: int
    lo: cst.BaseExpression | None
    hi: cst.BaseExpression | None

    @property
    def from_start(self) -> bool:
        return self.lo is None or is_zero(self.lo)


@dataclass(frozen=True)
class Row:
    """Row `index` of `base` along dim 0."""

    base: cst.BaseExpression
    index: cst.BaseExpression


def _dim(arg: cst.Arg | None) -> int | None:
    """A dim given as a non-negative integer literal (absent: 0); None for anything else."""
    if arg is None:
        return 0
    return arg.value.evaluated_value if isinstance(arg.value, cst.Integer) else None


def _full(element: cst.SubscriptElement) -> bool:
    sl = element.slice
    return isinstance(sl, cst.Slice) and sl.lower is None and sl.upper is None and sl.step is None


def _operand(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr`, parenthesised where it would not survive as an operand of `+` / `-`."""
    arithmetic = isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC)
    if isinstance(expr, _ATOMS) or arithmetic or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _binary(left: cst.BaseExpression, op: cst.BaseBinaryOp, right: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(left, cst.Integer) and isinstance(right, cst.Integer):
        total = left.evaluated_value + (right.evaluated_value if isinstance(op, cst.Add) else -right.evaluated_value)
        if total >= 0:
            return cst.Integer(str(total))
    right = _operand(right)
    if isinstance(op, cst.Subtract) and isinstance(right, cst.BinaryOperation) and not right.lpar:
        right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    space = cst.SimpleWhitespace(" ")
    return cst.BinaryOperation(left=_operand(left), operator=op.with_changes(whitespace_before=space,
                                                                            whitespace_after=space), right=right)


def plus(left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BaseExpression:
    return right if is_zero(left) else _binary(left, cst.Add(), right)


def minus(left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BaseExpression:
    return _binary(left, cst.Subtract(), right)


def _terms(expr: cst.BaseExpression, op: type[cst.BaseBinaryOp]) -> list[cst.BaseExpression]:
    """`a + b + c` -> [a, b, c] for op Add (a parenthesised sum counts as one term of a difference)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, op) and not expr.lpar:
        return [*_terms(expr.left, op), expr.right]
    return [expr]


def _to_end(base: cst.BaseExpression, dim: int, start: cst.BaseExpression, length: cst.BaseExpression) -> bool:
    """`length` is `base.shape[dim] - start` (or `base.size(dim)`, `len(base)`; `start` a sum `a + b` may be
    subtracted term by term): the narrow runs to the end."""
    size, *taken = _terms(length, cst.Subtract)
    if not taken:
        return False
    if len(taken) == 1:
        taken = _terms(taken[0].with_changes(lpar=[], rpar=[]), cst.Add)
    if sorted(map(code, taken)) != sorted(map(code, _terms(start, cst.Add))):
        return False
    sizes = {f"{code(base)}.shape[{dim}]", f"{code(base)}.size({dim})"} | ({f"len({code(base)})"} if dim == 0 else set())
    return code(size) in sizes


def rows_of(expr: cst.BaseExpression, bindings: Bindings) -> Rows | None:
    """`B[lo:hi]` (after any `:`s), `B.narrow(d, start, length)`, `torch.narrow(B, ...)`, or a name bound to one."""
    expr = bindings.resolve(expr)
    if isinstance(expr, cst.Subscript):
        elements = list(expr.slice)
        narrowing = [i for i, e in enumerate(elements) if not _full(e)]
        if len(narrowing) != 1:
            return None
        (dim,) = narrowing
        sl = elements[dim].slice
        if not isinstance(sl, cst.Slice) or sl.step is not None:
            return None
        return Rows(expr.value, dim, sl.lower, sl.upper)
    base, rest = _base_of(expr, "narrow")
    if rest is None:
        return None
    dim = _dim(positional(expr, rest, "dim"))
    start, length = positional(expr, rest + 1, "start"), positional(expr, rest + 2, "length")
    if base is None or dim is None or start is None or length is None:
        return None
    if _to_end(base, dim, start.value, length.value):
        return Rows(base, dim, start.value, None)
    return Rows(base, dim, start.value, plus(start.value, length.value))


def _base_of(expr: cst.BaseExpression, name: str) -> tuple[cst.BaseExpression | None, int | None]:
    """`torch.NAME(B, ...)` or `B.NAME(...)`: B, and where the arguments after it start; (None, None) otherwise."""
    if torch_call(expr, name):
        base, rest = positional(expr, 0), 1
    elif method_call(expr, name):
        base, rest = expr.func.value, 0
    else:
        return None, None
    return (base.value if isinstance(base, cst.Arg) else base), rest


def row_of(expr: cst.BaseExpression, bindings: Bindings) -> Row | None:
    """`B[i]`, `B.select(0, i)`, `torch.select(B, 0, i)`, or a name bound to one."""
    expr = bindings.resolve(expr)
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) and not expr.slice[0].slice.star:
            return Row(expr.value, expr.slice[0].slice.value)
        return None
    base, rest = _base_of(expr, "select")
    if rest is None:
        return None
    index = positional(expr, rest + 1, "index")
    if base is None or index is None or _dim(positional(expr, rest, "dim")) != 0:
        return None
    return Row(base, index.value)


def split_base(expr: cst.BaseExpression, bindings: Bindings) -> cst.BaseExpression | None:
    """The tensor `expr` splits into pieces: `torch.split(x, ...)`, `x.chunk(n)`, ... (or a name bound to one).
    A method `split` with no argument or a string argument is str.split, not a tensor's."""
    expr = bindings.resolve(expr)
    if torch_call(expr, *SPLITS):
        first = positional(expr, 0)
        return first.value if first is not None else None
    if method_call(expr, *SPLITS) and not torch_call(expr, *SPLITS):
        args = [a for a in expr.args if a.keyword is None]
        if not args or any(isinstance(a.value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))
                           for a in expr.args):
            return None
        return expr.func.value
    return None


def split_pick(node: cst.CSTNode, bindings: Bindings) -> tuple[cst.BaseExpression, cst.Index] | None:
    """`pieces[i]` where `pieces` is a tensor split: (the split tensor, the index picked)."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or index.star:
        return None
    base = split_base(node.value, bindings)
    return (base, index) if base is not None else None
