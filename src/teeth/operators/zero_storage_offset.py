"""zero_storage_offset: `x.storage_offset()` -> `0`, the gradient read from batch row 0."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, method_call


class ZeroStorageOffset(Operator):
    name = "zero_storage_offset"
    summary = "x.storage_offset() -> 0"
    bug = (
        "A view's geometry is (shape, stride, storage offset). Code that rebuilds one group's "
        "rows of a batched tensor (or its gradient) through as_strided must carry the offset; "
        "forcing it to 0 reads batch row 0 for every group. With identical inputs per group, or "
        "when only the first group is tested, the wrong rows look right."
    )
    killing_test = (
        "Two or more groups of rows with different inputs, one of them not starting at row 0, each asserted "
        "against its own rows (its output, or its gradient read through the rebuilt view)."
    )
    kills = (Check.BEHAVIOUR, Check.BATCH_INVARIANCE)
    node_types = (cst.Call,)

    def mutate(self, node, ctx):
        if method_call(node, "storage_offset") and not node.args:
            yield cst.Integer("0")

    def examples(self):
        return [
            Example(
                "geometry = (t.shape, t.stride(), t.storage_offset())",
                ("geometry = (t.shape, t.stride(), 0)",),
            ),
            Example("offset = grad.storage_offset() - base.storage_offset()",
                    ("offset = 0 - base.storage_offset()", "offset = grad.storage_offset() - 0")),
        ]
