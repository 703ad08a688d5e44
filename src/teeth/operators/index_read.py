"""index_read: a read by index (`x[idx]`, `index_select`, `gather`) -> the whole batch, or another group's index."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, method_call, positional, replace_arg, slices_no_rows, torch_call
from teeth.operators.dataflow import flow_of
from teeth.operators.groups import group_index, is_index

# (name, where the index argument is after the tensor) for `torch.NAME(x, ...)` and `x.NAME(...)`
INDEX_READS = {"index_select": 1, "gather": 1, "take_along_dim": 0, "masked_select": 0, "take": 0}


def is_store(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    """`node` is written, not read: the target of `=`, `+=`, an annotated assignment or `del`."""
    return isinstance(parent, cst.AssignTarget) or (
        isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node) or isinstance(parent, cst.Del)


def index_elements(node: cst.Subscript, flow) -> list[int]:
    """The positions of a subscript's elements that are index tensors, masks or lists (not scalars, not slices)."""
    return [i for i, e in enumerate(node.slice)
            if isinstance(e.slice, cst.Index) and not e.slice.star and is_index(e.slice.value, flow)]


def with_element(node: cst.Subscript, i: int, value: cst.BaseExpression) -> cst.Subscript:
    elements = list(node.slice)
    elements[i] = elements[i].with_changes(slice=elements[i].slice.with_changes(value=value))
    return node.with_changes(slice=elements)


def other_groups(node: cst.Subscript, positions: list[int], flow):
    """The subscript with one per-group index replaced by the first group's."""
    for i in positions:
        first = group_index(node.slice[i].slice.value, flow)
        if first is not None:
            yield with_element(node, i, first)


class IndexRead(Operator):
    name = "index_read"
    summary = "x[idx] / x[mask] / index_select / gather -> x; a group's index -> the first group's"
    bug = (
        "Batched code that groups rows by index reads each group's rows with an index tensor, a mask or a list "
        "(`x[idx]`, `x[mask]`, `x.index_select(0, idx)`, `torch.gather`). A read that loses its index serves the "
        "whole batch to every group; one that takes another group's index (`idx[0]` for `idx[i]`) computes every "
        "group from the same rows. Both give tensors of the right dtype, often of a shape that still broadcasts."
    )
    killing_test = (
        "A batch of at least two groups with different rows (and different sizes), each group's output compared "
        "with the same computation run on that group's rows alone."
    )
    kills = (Check.BEHAVIOUR, Check.BATCH_INVARIANCE)
    node_types = (cst.Subscript, cst.Call)

    def mutate(self, node, ctx):
        flow = flow_of(ctx)
        if isinstance(node, cst.Subscript):
            if is_store(node, ctx.parent) or slices_no_rows(node, ctx):
                return
            positions = index_elements(node, flow)
            if positions:
                yield node.value
                yield from other_groups(node, positions, flow)
            return
        for name, after in INDEX_READS.items():
            if torch_call(node, name):
                base, index = positional(node, 0), positional(node, 1 + after, "index" if after else "mask")
            elif method_call(node, name):
                base, index = cst.Arg(node.func.value), positional(node, after, "index" if after else "mask")
            else:
                continue
            if base is not None:
                yield base.value
            if index is not None and (first := group_index(index.value, flow)) is not None:
                yield replace_arg(node, index, first)
            return

    def examples(self):
        moe = ("def f(x, mask, expert):\n"
               "    idx, top_x = torch.where(mask)\n"
               "    return expert(x[None, top_x])\n")
        groups = ("def f(x, idx, deltas):\n"
                  "    for i, delta in enumerate(deltas):\n"
                  "        sub = x[idx[i]]\n")
        return [
            Example("def f(x, y):\n    return x[y > 0]\n", ("def f(x, y):\n    return x\n",)),
            Example("def f(x, lengths):\n    return x[torch.arange(4) < lengths]\n",
                    ("def f(x, lengths):\n    return x\n",)),
            Example("rows = x[[0, 2, 3]]", ("rows = x",)),
            Example("def f(x, s):\n    order = torch.argsort(s)\n    return x[order]\n",
                    ("def f(x, s):\n    order = torch.argsort(s)\n    return x\n",)),
            Example("def f(x, m):\n    keep = m.nonzero().squeeze(1)\n    return x[keep, :]\n",
                    ("def f(x, m):\n    keep = m.nonzero().squeeze(1)\n    return x\n",)),
            Example(moe, (moe.replace("x[None, top_x]", "x"),)),
            Example("def f(x, off):\n    idx = torch.arange(4) + off\n    return x[idx]\n",
                    ("def f(x, off):\n    idx = torch.arange(4) + off\n    return x\n",)),
            Example(groups, (groups.replace("x[idx[i]]", "x"), groups.replace("x[idx[i]]", "x[idx[0]]"))),
            Example("rows = x.index_select(0, idx)", ("rows = x",)),
            Example("rows = torch.index_select(x, 0, idx)", ("rows = x",)),
            Example("rows = torch.gather(x, 1, idx)", ("rows = x",)),
            Example("rows = x.masked_select(mask)", ("rows = x",)),
            Example("def f(x, idx):\n    for i in range(len(idx)):\n        y = x.index_select(0, idx[i])\n",
                    ("def f(x, idx):\n    for i in range(len(idx)):\n        y = x\n",
                     "def f(x, idx):\n    for i in range(len(idx)):\n        y = x.index_select(0, idx[0])\n")),
            # a list of positions built by appends under an annotation; a mask reduced over a dim (any/all)
            Example("def f(x, scores):\n    keep: List[int] = []\n    keep.append(0)\n    return scores[keep]\n",
                    ("def f(x, scores):\n    keep: List[int] = []\n    keep.append(0)\n    return scores\n",)),
            Example("def f(a, p, ids):\n    hit = torch.any(p.unsqueeze(1) == ids, dim=1)\n    return a[hit]\n",
                    ("def f(a, p, ids):\n    hit = torch.any(p.unsqueeze(1) == ids, dim=1)\n    return a\n",)),
            Example("def f(x, m):\n    rows = m.all(dim=-1)\n    return x[rows]\n",
                    ("def f(x, m):\n    rows = m.all(dim=-1)\n    return x\n",)),
            # not reads by index: a scalar position, a loop counter, a slice, a string key, a store
            Example("def f(t, i):\n    return t[i]\n", ()),
            Example("def f(t, n):\n    for i in range(n):\n        y = t[i]\n", ()),
            Example("rows = t[0]", ()),
            Example("rows = t[:, 1:]", ()),
            Example("v = kwargs['k']", ()),
            Example("def f(self, data, splits):\n    out = {}\n    for name in splits:\n"
                    "        out[name] = self.embed(data[name])\n", ()),  # `name` keys a dict: no group's index
            Example("def f(out, y):\n    out[y > 0] = 0\n", ()),
        ]
