"""dropped_replacement: a splice or replacement computed and then discarded."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import Example, Operator, method_call, positional, torch_call

IN_PLACE_SPLICES = ("copy_", "index_copy_", "index_put_", "scatter_", "masked_scatter_", "put_", "set_")
OUT_OF_PLACE_SPLICES = ("index_copy", "index_put", "scatter", "masked_scatter", "slice_scatter",
                        "select_scatter", "diagonal_scatter")


class DroppedReplacement(Operator):
    name = "dropped_replacement"
    summary = "a splice or replacement computed and then discarded"
    bug = (
        "A replacement of an invoke's rows must be spliced back into the batch (widen). When "
        "the splice is computed but the original whole value is returned or kept, the edit "
        "silently does nothing: nnsight's _widen_tensor returned `full` and discarded `edited` "
        "for every token-flattened activation until the scoping fix."
    )
    killing_test = (
        "Replace an invoke's value with one that differs from the original (zeros, a constant) and assert that "
        "the output changes for that invoke's rows, and only for them."
    )
    node_types = (cst.Expr, cst.Assign, cst.Call)

    def mutate(self, node, parent=None, kernel=None):
        if isinstance(node, cst.Expr) and method_call(node.value, *IN_PLACE_SPLICES):
            yield cst.Pass()
        elif isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Subscript) for t in node.targets):
            yield cst.Pass()
        elif isinstance(node, cst.Call):
            yield from self._kept_original(node)

    def _kept_original(self, node: cst.Call):
        if torch_call(node, *OUT_OF_PLACE_SPLICES):
            first = positional(node, 0)
            if first is not None:
                yield first.value
        elif torch_call(node, "where"):
            kept = positional(node, 2)
            if kept is not None:
                yield kept.value
        elif method_call(node, *OUT_OF_PLACE_SPLICES):
            yield node.func.value

    def examples(self):
        return [
            Example("full.narrow(0, start, size).copy_(edited)", ("pass",)),
            Example("out[start:stop] = edited", ("pass",)),
            Example("return full.index_copy(0, rows, edited)", ("return full",)),
            Example("y = torch.where(mask, edited, full)", ("y = full",)),
        ]
