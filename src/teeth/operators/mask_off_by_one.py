"""mask_off_by_one: `<` <-> `<=` and `>` <-> `>=` in a kernel's masks and bounds."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator

_SWAP = {cst.LessThan: cst.LessThanEqual, cst.LessThanEqual: cst.LessThan,
         cst.GreaterThan: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.GreaterThan}

KERNEL = """@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    tl.store(y_ptr + cols, tl.load(x_ptr + cols, mask={load}), mask={store})
"""


class MaskOffByOne(Operator):
    name = "mask_off_by_one"
    summary = "< <-> <=, > <-> >= in kernel masks and bounds"
    bug = (
        "A tile's mask keeps lanes inside the tensor. `cols <= n` reads and writes one element past "
        "the row (the next row's first element, or out of bounds); `cols < n - 1` style slips drop "
        "the last one. Shapes that are powers of two never exercise the mask, so only a test whose "
        "hidden size is not a multiple of the block catches it."
    )
    killing_test = (
        "A size that is not a multiple of the block (6 with BLOCK=4), every element compared, the last included; "
        "on an interpreter profile the bounds check fails any access past the tensor (check `bounds`)."
    )
    kills = (Check.ACCURACY, Check.BOUNDS)
    kernel_only = True
    node_types = (cst.ComparisonTarget,)

    def mutate(self, node, ctx):
        swapped = _SWAP.get(type(node.operator))
        if swapped is not None:
            yield node.with_changes(operator=swapped(whitespace_before=node.operator.whitespace_before,
                                                     whitespace_after=node.operator.whitespace_after))

    def examples(self):
        return [Example(KERNEL.format(load="cols < n", store="cols < n"), (
            KERNEL.format(load="cols <= n", store="cols < n"),
            KERNEL.format(load="cols < n", store="cols <= n"),
        ))]
