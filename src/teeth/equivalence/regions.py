"""Which elements of its base a basic index selects, axis by axis: enough to prove two views of one tensor disjoint.

A basic index (`x[..., :k]`, `x[0, 1:]`, `x[:, a:b]`) selects, on each axis it names, an interval of positions: a slice
`a:b` (no step) the positions from `a` up to `b`, an integer `c` the one position `c`. Python and torch normalise a
bound the same way wherever it stands (a negative one counts from the end, an out-of-range one is clipped), so an
interval that stops where another starts, at the same bound, never overlaps it: `x[..., :k]` and `x[..., k:]`,
`x[0]` and `x[1:]`, `x[:-1]` and `x[-1]`. Two bounds are known equal or ordered only when they are the same expression
free of calls (a name, an attribute, a literal, arithmetic of them: evaluated twice in one statement, it gives the
same value) or two integer literals of the same sign. Anything else (a tensor index, `None`, a step, an unknown
order) proves nothing.
"""

from __future__ import annotations

import libcst as cst

_ELLIPSIS = object()


def _integer(expr: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, negated ones included (`-1`)."""
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
            isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return None


def _plain(expr: cst.BaseExpression) -> bool:
    """An expression without calls, subscripts or walruses: evaluated twice in one statement, the same value."""
    if isinstance(expr, (cst.Name, cst.Integer)):
        return True
    if isinstance(expr, cst.Attribute):
        return _plain(expr.value)
    if isinstance(expr, cst.UnaryOperation):
        return _plain(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return _plain(expr.left) and _plain(expr.right)
    return False


def _interval(index: cst.BaseSlice):
    """(start, stop) of one axis's selection, each an expression or None (the axis's start, its end); _ELLIPSIS; or
    None when it is not a basic index of one axis."""
    if isinstance(index, cst.Slice):
        if index.step is not None or any(b is not None and not _plain(b) for b in (index.lower, index.upper)):
            return None
        return index.lower, index.upper
    value = index.value
    if isinstance(value, cst.Ellipsis):
        return _ELLIPSIS
    position = _integer(value)
    if position is None:
        return None  # a name may hold a tensor (an advanced index) or an int: not told apart here
    return value, (None if position == -1 else cst.Integer(str(position + 1)) if position >= 0 else
                   cst.UnaryOperation(cst.Minus(), cst.Integer(str(-position - 1))))


def _axes(view: cst.Subscript):
    """The intervals before an ellipsis (axes 0, 1, ...) and after it (..., -2, -1; None without one)."""
    intervals = [_interval(element.slice) for element in view.slice]
    if any(i is None for i in intervals) or intervals.count(_ELLIPSIS) > 1:
        return None
    if _ELLIPSIS not in intervals:
        return intervals, None
    cut = intervals.index(_ELLIPSIS)
    return intervals[:cut], intervals[cut + 1:]


def _at_most(stop: cst.BaseExpression | None, start: cst.BaseExpression | None) -> bool:
    """Is the interval ending at `stop` provably ended where the one from `start` begins, or before?"""
    if stop is None or start is None:
        return False  # the end of the axis, or its start: nothing is known to lie between
    low, high = _integer(stop), _integer(start)
    if low is not None and high is not None:
        return (low >= 0) == (high >= 0) and low <= high
    return _plain(stop) and stop.deep_equals(start)


def _apart(one, other) -> bool:
    return _at_most(one[1], other[0]) or _at_most(other[1], one[0])


def disjoint(one: cst.Subscript, other: cst.Subscript) -> bool:
    """Do two basic indexes of the same tensor provably select no element in common: on some axis both name, their
    intervals do not overlap?"""
    axes, others = _axes(one), _axes(other)
    if axes is None or others is None:
        return False
    if any(_apart(a, b) for a, b in zip(axes[0], others[0])):
        return True
    if axes[1] is None or others[1] is None:
        return False
    return any(_apart(a, b) for a, b in zip(reversed(axes[1]), reversed(others[1])))
