"""dropped_store: a kernel's output write (`tl.store(...)`) removed."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator
from teeth.operators.kernel_terms import tl_call


class DroppedStore(Operator):
    name = "dropped_store"
    summary = "tl.store(...) -> pass"
    bug = (
        "A kernel that computes a value and never writes it leaves the output as allocated: zeros "
        "from torch.zeros, or whatever torch.empty's memory held, which on a fresh allocation is "
        "often zeros too. A test whose expected gradient is zero for that tensor, or that never "
        "reads it, passes."
    )
    killing_test = (
        "Assert every output of the kernel, gradients with a nonzero expected value included, written into a "
        "buffer that does not already hold the answer (torch.full(..., nan) rather than zeros)."
    )
    kills = (Check.ACCURACY,)
    kernel_only = True
    node_types = (cst.Expr,)

    def mutate(self, node, ctx):
        if tl_call(node.value, "store"):
            yield cst.Pass()

    def examples(self):
        before = "@triton.jit\ndef k(y_ptr, v):\n    tl.store(y_ptr, v)\n"
        return [Example(before, (before.replace("tl.store(y_ptr, v)", "pass"),))]
