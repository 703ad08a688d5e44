"""index_write: a write-back by index (`out[idx] += y`, `index_add_`, `scatter_add_`) dropped, its accumulation
lost (`+=` -> `=`), or aimed at another group's index."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, method_call, positional, replace_arg, torch_call
from teeth.operators.dataflow import flow_of
from teeth.operators.dicts import dict_store
from teeth.operators.groups import group_index
from teeth.operators.index_read import index_elements, other_groups

# in-place writes by index: (where the index argument is, its keyword), and the write that drops the accumulation
INDEX_WRITES = {"index_add_": (1, "index"), "index_copy_": (1, "index"), "index_put_": (0, "indices"),
                "index_reduce_": (1, "index"), "index_fill_": (1, "index"), "scatter_": (1, "index"),
                "scatter_add_": (1, "index"), "scatter_reduce_": (1, "index"), "masked_scatter_": (0, "mask"),
                "masked_fill_": (0, "mask"), "put_": (0, "index")}
OVERWRITES = {"index_add_": "index_copy_", "scatter_add_": "scatter_", "index_add": "index_copy",
              "scatter_add": "scatter"}
ACCUMULATE = {"index_put_": ("accumulate", "True"), "index_put": ("accumulate", "True"),
              "put_": ("accumulate", "True"), "scatter_reduce_": ("include_self", None),
              "scatter_reduce": ("include_self", None), "index_reduce_": ("include_self", None)}


def _keyword(node: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in node.args if a.keyword is not None and a.keyword.value == name), None)


class IndexWrite(Operator):
    name = "index_write"
    summary = "out[idx] += y dropped or -> out[idx] = y; index_add_ -> index_copy_; a group's index -> the first's"
    bug = (
        "Batched code that groups rows by index writes each group's result back by index: `out[idx] += y`, "
        "`out.index_add_(0, idx, y)`, `scatter_add_`, `index_put_(..., accumulate=True)`. A write-back that is "
        "computed and dropped leaves the group's rows as they were; one that overwrites instead of accumulating "
        "loses the rows' base value (or another group's contribution to the same rows); one aimed at another "
        "group's index lands the result on the neighbour's rows."
    )
    killing_test = (
        "At least two groups whose results differ, written into a base that is not zero, with rows that more than "
        "one group (or more than one index entry) adds to: assert every row equals its base plus exactly its own "
        "groups' contributions."
    )
    kills = (Check.BEHAVIOUR, Check.BATCH_INVARIANCE)
    node_types = (cst.AugAssign, cst.Assign, cst.Call)
    # `+= -> pass` into a local nothing reads again; `+= 1 -> = 1` into zeros nothing has touched yet
    rules = (*Operator.rules, "dead_store", "accumulated_into_zeros")

    def mutate(self, node, ctx):
        flow = flow_of(ctx)
        if isinstance(node, (cst.AugAssign, cst.Assign)):
            targets = [node.target] if isinstance(node, cst.AugAssign) else [t.target for t in node.targets]
            if len(targets) != 1 or not isinstance(targets[0], cst.Subscript) or dict_store(targets[0], flow):
                return
            target = targets[0]
            positions = index_elements(target, flow)
            if not positions:
                return
            if isinstance(node, cst.AugAssign):
                yield cst.Pass()
                yield cst.Assign(targets=[cst.AssignTarget(target)], value=node.value)
            for moved in other_groups(target, positions, flow):
                yield (node.with_changes(target=moved) if isinstance(node, cst.AugAssign)
                       else node.with_changes(targets=[node.targets[0].with_changes(target=moved)]))
            return
        name = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        out_of_place = name is not None and name + "_" in INDEX_WRITES and torch_call(node, name)
        if name not in INDEX_WRITES and not out_of_place:
            return
        if not method_call(node, name):
            return
        shift = 1 if torch_call(node, name) else 0  # torch.index_add(out, dim, index, y): the tensor comes first
        place, keyword = INDEX_WRITES[name if name in INDEX_WRITES else name + "_"]
        if name in OVERWRITES:
            yield node.with_changes(func=node.func.with_changes(attr=cst.Name(OVERWRITES[name])))
        if name in ACCUMULATE:
            flag, value = ACCUMULATE[name]
            arg = _keyword(node, flag)
            if arg is not None and (value is None or (isinstance(arg.value, cst.Name) and arg.value.value == value)):
                kept = [a for a in node.args if a is not arg]
                yield node.with_changes(args=[*kept[:-1], kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        index = positional(node, place + shift, keyword)
        if index is not None and (first := group_index(index.value, flow)) is not None:
            yield replace_arg(node, index, first)

    def examples(self):
        adapters = ("def f(x, idx, deltas):\n"
                    "    out = x.clone()\n"
                    "    for i, delta in enumerate(deltas):\n"
                    "        out[idx[i]] += delta(x[idx[i]])\n"
                    "    return out\n")
        moe = ("def f(h, out, mask, expert):\n"
               "    idx, top_x = torch.where(mask)\n"
               "    out.index_add_(0, top_x, expert(h[top_x]))\n")
        return [
            Example("def f(out, y, m):\n    out[m > 0] += y\n",
                    ("def f(out, y, m):\n    pass\n", "def f(out, y, m):\n    out[m > 0] = y\n")),
            Example(adapters, (adapters.replace("out[idx[i]] += delta(x[idx[i]])", "pass"),
                               adapters.replace("out[idx[i]] += ", "out[idx[i]] = "),
                               adapters.replace("out[idx[i]] += ", "out[idx[0]] += "))),
            Example("def f(out, idx, ys):\n    for i, y in enumerate(ys):\n        out[idx[i]] = y\n",
                    ("def f(out, idx, ys):\n    for i, y in enumerate(ys):\n        out[idx[0]] = y\n",)),
            Example(moe, (moe.replace("index_add_", "index_copy_"),)),
            Example("out.scatter_add_(0, index, src)", ("out.scatter_(0, index, src)",)),
            Example("out = torch.scatter_add(base, 0, index, src)", ("out = torch.scatter(base, 0, index, src)",)),
            Example("out.index_put_((rows,), y, accumulate=True)", ("out.index_put_((rows,), y)",)),
            Example("out.scatter_reduce_(0, index, src, 'amax', include_self=False)",
                    ("out.scatter_reduce_(0, index, src, 'amax')",)),
            Example("def f(out, idx, ys):\n    for i in range(len(ys)):\n        out.index_copy_(0, idx[i], ys[i])\n",
                    ("def f(out, idx, ys):\n    for i in range(len(ys)):\n        out.index_copy_(0, idx[0], ys[i])\n",)),
            # not write-backs by index: a slice (dropped_replacement's), a scalar row, dict stores
            Example("out[a:b] += y", ()),
            Example("def f(out, i, y):\n    out[i] += y\n", ()),
            Example("def f(x, **kwargs):\n    kwargs['offsets'] += x\n", ()),
            Example("def f(d: dict, name, v):\n    d[name] = v\n", ()),
        ]
