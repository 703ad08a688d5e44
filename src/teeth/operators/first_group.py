"""first_group: inside a loop over groups, a lookup keyed by the loop's group -> the first group's."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, sizes, slices_no_rows
from teeth.operators.dataflow import flow_of
from teeth.operators.groups import group_first
from teeth.operators.index_read import is_store


class FirstGroup(Operator):
    name = "first_group"
    summary = "in a loop over groups, params[i] / self.weights[key] -> the first group's"
    bug = (
        "A batch that holds several groups (requests with their own adapters, experts, classes, graphs) runs a "
        "loop over the groups and looks up each one's parameters or rows by the loop's group (`params[i]`, "
        "`self.weights[key]`, `mask[e]`). A lookup that always takes the first group's runs every group with the "
        "first one's weights or inputs: right whenever a test has one group, or groups that share their values."
    )
    killing_test = (
        "A batch of at least two groups whose parameters (and inputs) differ, each group's output compared with "
        "that group run alone; the first group alone is not enough."
    )
    kills = (Check.BEHAVIOUR, Check.BATCH_INVARIANCE)
    node_types = (cst.Subscript,)

    def mutate(self, node, ctx):
        if is_store(node, ctx.parent) or sizes(node.value) or slices_no_rows(node, ctx):
            return
        first = group_first(node, flow_of(ctx))
        if first is not None:
            yield first

    def examples(self):
        adapters = ("def forward(self, x, groups):\n"
                    "    for i, key in enumerate(groups):\n"
                    "        y = x @ self.weights[key] * self.scales[i]\n")
        moe = ("def f(self, h, mask, hit):\n"
               "    for e in hit:\n"
               "        expert = self.experts[e]\n")
        return [
            Example(adapters, (adapters.replace("self.weights[key]", "self.weights[next(iter(groups))]"),
                               adapters.replace("self.scales[i]", "self.scales[0]"))),
            Example("def f(x, params, n):\n    for i in range(1, n):\n        x = x * params[i]\n",
                    ("def f(x, params, n):\n    for i in range(1, n):\n        x = x * params[1]\n",)),
            Example(moe, (moe.replace("self.experts[e]", "self.experts[next(iter(hit))]"),)),
            Example("def f(ws, xs):\n    for w, x in zip(ws, xs):\n        y = table[w]\n",
                    ("def f(ws, xs):\n    for w, x in zip(ws, xs):\n        y = table[next(iter(ws))]\n",)),
            Example("def f(d):\n    for k, v in d.items():\n        y = d[k]\n",
                    ("def f(d):\n    for k, v in d.items():\n        y = d[next(iter(d))]\n",)),
            # not a lookup by the loop's group: outside the loop, a store, sizes, a name the loop body rebinds
            Example("def f(params, i):\n    return params[i]\n", ()),
            Example("def f(out, n):\n    for i in range(n):\n        out[i] = 0\n", ()),
            Example("def f(x):\n    for d in range(x.dim()):\n        n = x.shape[d]\n", ()),
            # loops over dims, not groups: the iterable counts or lists sizes, or the body uses the name as a dim
            Example("def f(x, pads):\n    for d in range(x.dim()):\n        p = pads[d]\n", ()),
            Example("def f(x, w):\n    for i, n in enumerate(x.shape):\n        y = w[i] * n\n", ()),
            Example("def f(x, ks, scale):\n    for k in ks:\n        x = x.sum(dim=k) * scale[k]\n", ()),
            Example("def f(x, stride, n):\n    for d in range(n):\n        m = x.size(d) * stride[d]\n", ()),
            Example("def f(ps, n):\n    for i in range(n):\n        i = i + 1\n        y = ps[i]\n", ()),
        ]
