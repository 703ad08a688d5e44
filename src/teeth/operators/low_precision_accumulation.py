"""low_precision_accumulation: an accumulator's fp32 upcast removed."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, method_call, positional

FP32 = ("float32",)


def _is_fp32(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value in FP32 and isinstance(node.value, cst.Name) \
        and node.value.value in ("tl", "torch")


class LowPrecisionAccumulation(Operator):
    name = "low_precision_accumulation"
    summary = "x.to(tl.float32) / x.float() -> x; tl.zeros(..., dtype=tl.float32) -> bfloat16"
    bug = (
        "Sums of bf16 values must accumulate in fp32. Dropping the upcast (or allocating the "
        "accumulator in bf16) loses low bits at every step, so the result depends on the length "
        "and order of the reduction. On fp32 inputs the upcast is a no-op, so a profile running bf16 (its "
        "dtype) is the one expected to kill these mutants; on an fp32 profile they are skipped where the cast was "
        "seen to change nothing, and run as any mutant where it changed a value (a float64 or integer operand)."
    )
    killing_test = (
        "bf16 inputs with a long reduction (a hidden size in the thousands), compared with an fp32 reference "
        "under a tolerance tighter than a bf16 accumulation's error, on a bf16 profile."
    )
    kills = (Check.ACCURACY, Check.BATCH_INVARIANCE)
    dtypes = ("bfloat16", "float16")
    node_types = (cst.Call,)

    def mutate(self, node, ctx):
        if method_call(node, "float") and not node.args:
            yield node.func.value
        elif method_call(node, "to") and len(node.args) == 1 and _is_fp32(node.args[0].value):
            yield node.func.value
        elif method_call(node, "zeros", "full", "empty"):
            dtype = positional(node, 99, "dtype")
            if dtype is not None and _is_fp32(dtype.value):
                low = dtype.value.with_changes(attr=cst.Name("bfloat16"))
                yield node.with_changes(args=[a.with_changes(value=low) if a is dtype else a for a in node.args])

    def examples(self):
        return [
            Example("x = tl.load(p).to(tl.float32)", ("x = tl.load(p)",)),
            Example("xf = x.float()", ("xf = x",)),
            Example("acc = tl.zeros([BLOCK], dtype=tl.float32)", ("acc = tl.zeros([BLOCK], dtype=tl.bfloat16)",)),
        ]
