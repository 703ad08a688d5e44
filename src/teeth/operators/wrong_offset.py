"""wrong_offset: a pointer offset losing a term (`base + row * D + cols` -> `base + cols`)."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator
from teeth.operators.kernel_terms import add_terms, is_pointer_chain, without_term


class WrongOffset(Operator):
    name = "wrong_offset"
    summary = "a term dropped from a kernel's pointer arithmetic"
    bug = (
        "Pointer arithmetic that loses a term reads the wrong rows: every program reads row 0 "
        "(the row term dropped), or a sample's tokens are read from the start of the batch (the "
        "sample's start dropped). Like a view of a group's rows whose storage offset is forced to 0, it "
        "is invisible to a test that only ever runs one row or the first sample."
    )
    killing_test = (
        "More than one row (or sample) with different values in each, and every row's result checked, not only "
        "the first."
    )
    kills = (Check.ACCURACY, Check.BATCH_INVARIANCE)
    kernel_only = True
    node_types = (cst.BinaryOperation,)

    def mutate(self, node, ctx):
        parent = ctx.parent
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add) and parent.left is node:
            return  # only the whole chain, once
        terms = add_terms(node)
        if len(terms) < 2 or not is_pointer_chain(node):
            return
        for index in range(1, len(terms)):
            yield without_term(terms, index)

    def examples(self):
        before = "@triton.jit\ndef k(x_ptr, D):\n    row = tl.program_id(0)\n    x = tl.load(x_ptr + row * D + 1)\n"
        return [Example(before, (before.replace("x_ptr + row * D + 1", "x_ptr + 1"),
                                 before.replace("x_ptr + row * D + 1", "x_ptr + row * D")))]
