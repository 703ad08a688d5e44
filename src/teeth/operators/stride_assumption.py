"""stride_assumption: `t.stride()` -> `t.contiguous().stride()`."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import Example, Operator, method_call


class StrideAssumption(Operator):
    name = "stride_assumption"
    summary = "t.stride() -> t.contiguous().stride()"
    bug = (
        "Geometry taken from a contiguous copy instead of the real tensor assumes row-major "
        "layout. It is right for every contiguous activation and wrong for a transposed or "
        "permuted one, where the batch dim is not the outermost stride."
    )
    killing_test = (
        "Call it with a non-contiguous input (a transposed or permuted tensor, a stepped slice) and compare with "
        "the result on `.contiguous()` of the same input."
    )
    node_types = (cst.Call,)
    rules = (*Operator.rules, "already_contiguous")

    def mutate(self, node, ctx):
        if method_call(node, "stride") and not method_call(node.func.value, "contiguous"):
            receiver = cst.Call(func=cst.Attribute(value=node.func.value, attr=cst.Name("contiguous")))
            yield node.with_changes(func=node.func.with_changes(value=receiver))

    def examples(self):
        return [
            Example("geometry = (t.shape, t.stride(), t.storage_offset())",
                    ("geometry = (t.shape, t.contiguous().stride(), t.storage_offset())",)),
            Example("step = t.stride(0)", ("step = t.contiguous().stride(0)",)),
            Example("step = t.contiguous().stride(0)", ()),
        ]
