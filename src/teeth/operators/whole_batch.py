"""whole_batch: a narrowing returns the whole tensor."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import (Example, Operator, method_call, narrowing_slices, positional, slices_no_rows,
                                  torch_call)
from teeth.operators.pieces import split_pick


class WholeBatch(Operator):
    name = "whole_batch"
    summary = "t.narrow(...) / t[a:b] / t.split(...)[i] -> t"
    bug = (
        "Taking a group's rows (a narrow, a slice, a split) that falls through serves the whole batch to "
        "every group of rows: a read "
        "sees every group's rows, an in-place edit lands on all of them. A test that checks "
        "shapes with one group in the batch cannot tell."
    )
    killing_test = (
        "Two groups of rows with different values (or row counts), each asserted to see only its own rows: the "
        "shape of "
        "what it reads, and an in-place edit in one that leaves the other's rows unchanged."
    )
    node_types = (cst.Call, cst.Subscript)
    # `zip(ts[:-1], ts[1:])` -> `zip(ts, ts[1:])`; `for s in sizes[1:]: if s != sizes[0]: raise` -> `sizes`
    rules = (*Operator.rules, "zip_stops_at_shorter", "first_compared_with_itself")

    def mutate(self, node, ctx):
        if isinstance(node, cst.Subscript):
            if slices_no_rows(node, ctx):
                return
            if narrowing_slices(node):
                yield node.value
            elif (pick := split_pick(node, ctx.bindings)) is not None:
                yield pick[0]  # the piece picked for a group -> the tensor split
        elif torch_call(node, "narrow"):
            first = positional(node, 0)
            if first is not None:
                yield first.value
        elif method_call(node, "narrow"):
            yield node.func.value

    def examples(self):
        return [
            Example("rows = t.narrow(0, start, size)", ("rows = t",)),
            Example("rows = torch.narrow(t, 0, start, size)", ("rows = t",)),
            Example("rows = t[start:stop]", ("rows = t",)),
            Example("scaled = x * rstd[:, None]", ()),
            # a piece of a split picked per group
            Example("rows = torch.split(x, sizes)[i]", ("rows = x",)),
            Example("rows = x.split(sizes, dim=0)[i]", ("rows = x",)),
            Example("rows = x.chunk(n)[i]", ("rows = x",)),
            Example("rows = torch.tensor_split(x, bounds)[i]", ("rows = x",)),
            Example("def f(x, sizes, i):\n    pieces = x.split(sizes)\n    return pieces[i]\n",
                    ("def f(x, sizes, i):\n    pieces = x.split(sizes)\n    return x\n",)),
            # not a split piece: a str split, a list, a name bound twice
            Example("head = name.split('.')[0]", ()),
            Example("def f(pieces, i):\n    return pieces[i]\n", ()),
            Example("def f(x, n, i, pieces):\n    if pieces is None:\n        pieces = x.chunk(n)\n    return pieces[i]\n",
                    ()),  # `pieces` may be the caller's
        ]
