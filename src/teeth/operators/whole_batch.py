"""whole_batch: a narrowing returns the whole tensor."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import Example, Operator, method_call, narrowing_slices, positional, torch_call


class WholeBatch(Operator):
    name = "whole_batch"
    summary = "t.narrow(...) / t[a:b] -> t"
    bug = (
        "Row scoping that falls through serves the whole batch to every invoke: a read sees "
        "every invoke's rows, an in-place edit lands on all of them. nnsight's single shape "
        "test sent every token-flattened activation to every invoke whole."
    )
    killing_test = (
        "Two invokes with different values (or row counts), each asserted to see only its own rows: the shape of "
        "what it reads, and an in-place edit in one that leaves the other's rows unchanged."
    )
    node_types = (cst.Call, cst.Subscript)

    def mutate(self, node, parent=None, kernel=None):
        if isinstance(node, cst.Subscript):
            if narrowing_slices(node):
                yield node.value
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
        ]
