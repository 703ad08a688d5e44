"""wrong_slice_start: a slice or narrow start -> 0, start +/- 1, and `start * k` -> `start`."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import (Example, Operator, is_zero, method_call, positional, replace_arg, slices_no_rows,
                                  torch_call)
from teeth.operators.pieces import split_pick

_SAFE_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)


def _shifted(expr: cst.BaseExpression, op: cst.BaseBinaryOp) -> cst.BinaryOperation:
    safe = isinstance(expr, _ATOMS) or (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _SAFE_OPS))
    left = expr if safe or expr.lpar else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(left=left, operator=op, right=cst.Integer("1"))


def start_variants(start: cst.BaseExpression):
    """Every wrong start for a start expression."""
    if not is_zero(start):
        yield cst.Integer("0")
    yield _shifted(start, cst.Add(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")))
    yield _shifted(start, cst.Subtract(whitespace_before=cst.SimpleWhitespace(" "),
                                       whitespace_after=cst.SimpleWhitespace(" ")))
    yield from multiple_dropped(start)


def multiple_dropped(expr: cst.BaseExpression | None):
    """`start * k` -> `start`: a token-flattened multiple forced to 1."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        yield expr.left


class WrongSliceStart(Operator):
    name = "wrong_slice_start"
    summary = "narrow/slice start, split piece index -> 0, start+1, start-1; start*k -> start"
    bug = (
        "A group's rows are [start, start+size) of the batch, or [start*k, (start+size)*k) "
        "when a layer flattens tokens into the leading dim ((batch*seq, hidden)). A start of 0, "
        "an off-by-one, or a dropped multiple k serves a neighbour's rows: a plausible tensor "
        "of the right dtype, often of the right shape."
    )
    killing_test = (
        "Groups of rows with distinct values in every row (not identical inputs), each asserted to read and write "
        "exactly its own rows [start, start+size), the second and later groups included; where a layer flattens "
        "tokens into the leading dim, a sequence length above 1."
    )
    kills = (Check.BEHAVIOUR, Check.BATCH_INVARIANCE)
    node_types = (cst.Call, cst.Subscript)
    rules = (*Operator.rules, "first_compared_with_itself")  # `for s in sizes[1:]: if s != sizes[0]: ...` -> `[0:]`

    def mutate(self, node, ctx):
        if isinstance(node, cst.Subscript):
            if slices_no_rows(node, ctx):
                return
            yield from self._subscript(node)
            if (pick := split_pick(node, ctx.bindings)) is not None:  # pieces[i]: a neighbour's piece
                index = pick[1]
                for value in start_variants(index.value):
                    yield node.with_changes(slice=[node.slice[0].with_changes(slice=index.with_changes(value=value))])
            return
        if method_call(node, "narrow") and not torch_call(node, "narrow"):
            start, length = positional(node, 1, "start"), positional(node, 2, "length")
        elif torch_call(node, "narrow"):
            start, length = positional(node, 2, "start"), positional(node, 3, "length")
        else:
            return
        if start is not None:
            for value in start_variants(start.value):
                yield replace_arg(node, start, value)
        if length is not None:
            for value in multiple_dropped(length.value):
                yield replace_arg(node, length, value)

    def _subscript(self, node: cst.Subscript):
        for i, element in enumerate(node.slice):
            sl = element.slice
            if not isinstance(sl, cst.Slice):
                continue

            def rebuilt(new_slice):
                elements = list(node.slice)
                elements[i] = element.with_changes(slice=new_slice)
                return node.with_changes(slice=elements)

            if sl.lower is not None:
                for value in start_variants(sl.lower):
                    yield rebuilt(sl.with_changes(lower=value))
            for value in multiple_dropped(sl.upper):
                yield rebuilt(sl.with_changes(upper=value))

    def examples(self):
        return [
            Example(
                "rows = t.narrow(0, start, size)",
                ("rows = t.narrow(0, 0, size)", "rows = t.narrow(0, start + 1, size)",
                 "rows = t.narrow(0, start - 1, size)"),
            ),
            Example(
                "rows = t.narrow(0, start * k, size * k)",
                ("rows = t.narrow(0, 0, size * k)", "rows = t.narrow(0, start * k + 1, size * k)",
                 "rows = t.narrow(0, start * k - 1, size * k)", "rows = t.narrow(0, start, size * k)",
                 "rows = t.narrow(0, start * k, size)"),
            ),
            Example(
                "rows = t[lo:hi]",
                ("rows = t[0:hi]", "rows = t[lo + 1:hi]", "rows = t[lo - 1:hi]"),
            ),
            # a piece of a split picked per group
            Example("rows = x.split(sizes)[i]",
                    ("rows = x.split(sizes)[0]", "rows = x.split(sizes)[i + 1]", "rows = x.split(sizes)[i - 1]")),
            Example("rows = torch.chunk(x, n, dim=0)[0]",
                    ("rows = torch.chunk(x, n, dim=0)[0 + 1]", "rows = torch.chunk(x, n, dim=0)[0 - 1]")),
            Example("def f(x, bounds, i):\n    pieces = x.tensor_split(bounds)\n    return pieces[i]\n",
                    tuple(f"def f(x, bounds, i):\n    pieces = x.tensor_split(bounds)\n    return pieces[{v}]\n"
                          for v in ("0", "i + 1", "i - 1"))),
            # not a split piece: a row of a tensor, a str split, a parameter
            Example("row = t[i]", ()),
            Example("head = name.split('.')[i]", ()),
            Example("def f(pieces, i):\n    return pieces[i]\n", ()),
        ]
