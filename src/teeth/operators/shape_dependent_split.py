"""shape_dependent_split: a kernel launch's block size made to depend on the batch or token count."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, positional


def _launch(node: cst.CSTNode) -> bool:
    """`kernel[grid](...)`."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript)


class ShapeDependentSplit(Operator):
    name = "shape_dependent_split"
    summary = "kernel[grid](..., BLOCK_X=b) -> BLOCK_X=next_power_of_2(first_arg.shape[0])"
    bug = (
        "A tile or split size chosen from the number of rows (split-K for small batches, rows per "
        "program for large ones) changes the order of every reduction over the tiled dim with the "
        "batch: each result is accurate, and a sample's bits differ between B=1 and B=N."
    )
    killing_test = (
        "Compute one sample alone (B=1) and inside batches large enough to change the split (B=N), and compare "
        "its result bitwise, not with allclose."
    )
    kills = (Check.BATCH_INVARIANCE, Check.CHUNK_INVARIANCE)
    node_types = (cst.Call,)

    def mutate(self, node, ctx):
        if not _launch(node):
            return
        first = positional(node, 0)
        if first is None:
            return
        rows = cst.parse_expression(f"triton.next_power_of_2({cst.Module([]).code_for_node(first.value)}.shape[0])")
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value.upper().startswith("BLOCK"):
                yield node.with_changes(args=[a.with_changes(value=rows) if a is arg else a for a in node.args])

    def examples(self):
        return [Example("_k[(n,)](x, y, n, BLOCK_D=block)",
                        ("_k[(n,)](x, y, n, BLOCK_D=triton.next_power_of_2(x.shape[0]))",))]
