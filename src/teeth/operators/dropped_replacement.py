"""dropped_replacement: a splice or replacement computed and then discarded."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import Example, Operator, method_call, positional, torch_call
from teeth.operators.dataflow import flow_of
from teeth.operators.dicts import dict_store
from teeth.operators.pieces import code, minus, plus, row_of, rows_of

IN_PLACE_SPLICES = ("copy_", "index_copy_", "index_put_", "scatter_", "masked_scatter_", "put_", "set_",
                    "index_add_", "scatter_add_", "scatter_reduce_", "index_reduce_")
OUT_OF_PLACE_SPLICES = ("index_copy", "index_put", "scatter", "masked_scatter", "slice_scatter",
                        "select_scatter", "diagonal_scatter", "index_add", "scatter_add", "scatter_reduce",
                        "index_reduce")
CONCATENATIONS = ("cat", "concat", "concatenate")


def _elements(node: cst.Call) -> list[cst.BaseExpression] | None:
    """The tensors a cat/stack joins, when given as a list or tuple literal without `*`."""
    seq = positional(node, 0, "tensors")
    if seq is None or not isinstance(seq.value, (cst.List, cst.Tuple)):
        return None
    if any(isinstance(e, cst.StarredElement) for e in seq.value.elements):
        return None
    return [e.value for e in seq.value.elements]


def _replace_element(node: cst.Call, index: int, value: cst.BaseExpression) -> cst.Call:
    seq = positional(node, 0, "tensors")
    elements = list(seq.value.elements)
    elements[index] = elements[index].with_changes(value=value)
    return node.with_changes(args=[a.with_changes(value=seq.value.with_changes(elements=elements)) if a is seq else a
                                   for a in node.args])


def _rows(base: cst.BaseExpression, dim: int, lo, hi) -> cst.Subscript:
    """`base[lo:hi]`, after `dim` leading `:`s."""
    full = [cst.SubscriptElement(cst.Slice(lower=None, upper=None)) for _ in range(dim)]
    return cst.Subscript(value=base, slice=[*full, cst.SubscriptElement(cst.Slice(lower=lo, upper=hi))])


class DroppedReplacement(Operator):
    name = "dropped_replacement"
    summary = "a splice or replacement computed and then discarded"
    bug = (
        "New values for some rows of a batch (a group's, a slice's) must be spliced back into the batch: written "
        "in place, scattered by index or concatenated with the rows around them. When the splice is computed but "
        "the original whole value is returned or kept, the edit silently does nothing: every test that only "
        "compares shapes, or edits nothing, still passes."
    )
    killing_test = (
        "Replace some rows of the batch with values that differ from the original (zeros, a constant) and assert "
        "that the output changes for those rows, and only for them."
    )
    node_types = (cst.Expr, cst.Assign, cst.Call)
    rules = (*Operator.rules, "dead_store")  # a write dropped into a local nothing reads again

    def mutate(self, node, ctx):
        if isinstance(node, cst.Expr) and method_call(node.value, *IN_PLACE_SPLICES):
            yield cst.Pass()
        elif isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Subscript) for t in node.targets):
            flow = flow_of(ctx)
            if not all(dict_store(t.target, flow) for t in node.targets if isinstance(t.target, cst.Subscript)):
                yield cst.Pass()  # a store into a dict (`d[name] = v`, `kwargs["k"] = v`) splices no rows
        elif isinstance(node, cst.Call):
            yield from self._kept_original(node, ctx.parent)
            if torch_call(node, *CONCATENATIONS):
                yield from self._cat_spliced(node, ctx.bindings)
            elif torch_call(node, "stack"):
                yield from self._stack_spliced(node, ctx.bindings)

    def _kept_original(self, node: cst.Call, parent):
        if torch_call(node, *OUT_OF_PLACE_SPLICES):
            first = positional(node, 0)
            if first is not None:
                yield first.value
        elif torch_call(node, "where"):
            kept = positional(node, 2)
            if kept is not None:
                yield kept.value
        elif method_call(node, *OUT_OF_PLACE_SPLICES):
            yield node.func.value
        elif method_call(node, *IN_PLACE_SPLICES) and not isinstance(parent, cst.Expr):
            yield node.func.value  # an in-place splice used as a value: the target, never written

    def _cat_spliced(self, node: cst.Call, bindings):
        """`torch.cat([pre, edited, post], dim)` with pre/post rows of one tensor around the edited slot: the slot
        gets the original rows back, or the call becomes the whole tensor where the pieces run end to end."""
        elements = _elements(node)
        dim_arg = positional(node, 1, "dim")
        if not elements or (dim_arg is not None and not isinstance(dim_arg.value, cst.Integer)):
            return
        dim = dim_arg.value.evaluated_value if dim_arg is not None else 0
        pieces = [rows_of(e, bindings) for e in elements]
        bases = {code(p.base) for p in pieces if p is not None}
        if len(bases) != 1 or any(p is not None and p.dim != dim for p in pieces):
            return
        edited = [i for i, p in enumerate(pieces) if p is None]
        slots = []
        for i in edited:
            before = pieces[i - 1] if i > 0 else None
            after = pieces[i + 1] if i + 1 < len(pieces) else None
            if (i > 0 and before is None) or (after is None and i + 1 < len(pieces)) or (before is after is None):
                return  # two edited pieces side by side, or nothing of the tensor around: not a splice
            if (before is not None and before.hi is None) or (after is not None and after.from_start):
                return  # a neighbour that runs to the end before it, or starts at row 0 after it
            slots.append((i, before.hi if before else None, after.lo if after else None))
        if not slots:
            return
        base = next(p.base for p in pieces if p is not None)
        first, last = pieces[0], pieces[-1]
        whole = (first is None or first.from_start) and (last is None or last.hi is None)
        if whole and len(slots) == 1:
            yield base
            return
        for i, lo, hi in slots:
            yield _replace_element(node, i, _rows(base, dim, lo, hi))

    def _stack_spliced(self, node: cst.Call, bindings):
        """`torch.stack([full[0], edited, full[2]])`: the edited slot gets the original row back."""
        elements = _elements(node)
        dim_arg = positional(node, 1, "dim")
        if not elements or not (dim_arg is None or (isinstance(dim_arg.value, cst.Integer)
                                                    and dim_arg.value.evaluated_value == 0)):
            return
        rows = [row_of(e, bindings) for e in elements]
        bases = {code(r.base) for r in rows if r is not None}
        if len(bases) != 1:
            return
        for i, row in enumerate(rows):
            if row is not None:
                continue
            before = rows[i - 1] if i > 0 else None
            after = rows[i + 1] if i + 1 < len(rows) else None
            if before is not None:
                yield _replace_element(node, i, cst.Subscript(before.base, [cst.SubscriptElement(cst.Index(
                    plus(before.index, cst.Integer("1"))))]))
            elif after is not None:
                yield _replace_element(node, i, cst.Subscript(after.base, [cst.SubscriptElement(cst.Index(
                    minus(after.index, cst.Integer("1"))))]))

    def examples(self):
        widen = ("def widen(full, edited, start, size, n):\n"
                 "    pre = full.narrow(0, 0, start)\n"
                 "    post = full.narrow(0, start + size, n)\n"
                 "    return torch.cat([pre, edited, post], dim=0)\n")
        widen_issue = ("def widen(full, edited, start, size):\n"
                       "    pre = full.narrow(0, 0, start)\n"
                       "    post = full.narrow(0, start + size, full.shape[0] - start - size)\n"
                       "    return torch.cat([pre, edited, post], dim=0)\n")
        widen_rest = ("def widen(full, edited, start, stop):\n"
                      "    pre = full.narrow(0, 0, start)\n"
                      "    post = full.narrow(0, stop, full.shape[0] - stop)\n"
                      "    return torch.cat([pre, edited, post], dim=0)\n")
        widen_sum = ("def widen(full, edited, start, size):\n"
                     "    pre = full.narrow(0, 0, start)\n"
                     "    post = full.narrow(0, start + size, full.size(0) - (start + size))\n"
                     "    return torch.cat([pre, edited, post], dim=0)\n")
        return [
            # in-place splices removed
            Example("full.narrow(0, start, size).copy_(edited)", ("pass",)),
            Example("out[start:stop] = edited", ("pass",)),
            Example("out.index_copy_(0, rows, edited)", ("pass",)),
            Example("out.index_put_((rows,), edited)", ("pass",)),
            Example("out.scatter_(0, index, edited)", ("pass",)),
            Example("out.index_add_(0, top_x, edited)", ("pass",)),
            Example("out.scatter_add_(0, index, edited)", ("pass",)),
            Example("out.scatter_reduce_(0, index, edited, 'sum')", ("pass",)),
            Example("result = torch.scatter_add(full, 0, index, edited)", ("result = full",)),
            Example("result = full.index_add(0, rows, edited)", ("result = full",)),
            # stores into dicts splice no rows: a text key, a dict made here, **kwargs, a dict attribute
            Example("cache['rows'] = edited", ()),
            Example("def f(x, **kwargs):\n    kwargs['offsets'] = x\n", ()),
            Example("def f(name: str, v):\n    d = {}\n    d[name] = v\n", ()),
            Example("def f(name: str, v, out):\n    out[name] = v\n", ()),
            Example("def f(key, v):\n    d = dict()\n    d[key] = v\n", ()),
            Example("class A:\n    def __init__(self):\n        self.cache = {}\n"
                    "    def put(self, key, t):\n        self.cache[key] = t\n", ()),
            Example("class A:\n    def __init__(self):\n        self.r = nn.ModuleDict()\n"
                    "    def put(self, key, r):\n        self.r[key] = r\n", ()),
            # ... but a store into rows, or into an attribute the class also makes a tensor, is a splice
            Example("def f(key, v, out):\n    out[key] = v\n", ("def f(key, v, out):\n    pass\n",)),
            Example("class A:\n    def __init__(self, n):\n        self.cache = torch.zeros(n)\n"
                    "    def put(self, key, t):\n        self.cache[key] = t\n",
                    ("class A:\n    def __init__(self, n):\n        self.cache = torch.zeros(n)\n"
                     "    def put(self, key, t):\n        pass\n",)),
            Example("out.masked_scatter_(mask, edited)", ("pass",)),
            Example("result = out.index_copy_(0, rows, edited)", ("result = out",)),
            # out-of-place splices: the original kept
            Example("result = full.index_copy(0, rows, edited)", ("result = full",)),
            Example("result = torch.index_copy(full, 0, rows, edited)", ("result = full",)),
            Example("result = torch.index_put(full, (rows,), edited)", ("result = full",)),
            Example("result = torch.scatter(full, 0, index, edited)", ("result = full",)),
            Example("result = full.masked_scatter(mask, edited)", ("result = full",)),
            Example("y = torch.where(mask, edited, full)", ("y = full",)),
            # cat splices: the edited slot gets the original rows, or the call becomes the whole tensor
            Example("y = torch.cat([full[:start], edited, full[stop:]])", ("y = full",)),
            Example("y = torch.cat((full[:, :start], edited, full[:, stop:]), dim=1)", ("y = full",)),
            Example(widen, (widen.replace("torch.cat([pre, edited, post], dim=0)",
                                          "torch.cat([pre, full[start:start + size], post], dim=0)"),)),
            Example(widen_issue, (widen_issue.replace("torch.cat([pre, edited, post], dim=0)", "full"),)),
            Example(widen_rest, (widen_rest.replace("torch.cat([pre, edited, post], dim=0)", "full"),)),
            Example(widen_sum, (widen_sum.replace("torch.cat([pre, edited, post], dim=0)", "full"),)),
            Example("y = torch.cat([full[:a], e1, full[b:c], e2, full[d:]], 0)",
                    ("y = torch.cat([full[:a], full[a:b], full[b:c], e2, full[d:]], 0)",
                     "y = torch.cat([full[:a], e1, full[b:c], full[c:d], full[d:]], 0)")),
            Example("y = torch.concat([full[a:b], edited])", ("y = torch.concat([full[a:b], full[b:]])",)),
            # not splices: unrelated tensors, pieces of two tensors, another dim, no edited slot, a comprehension
            Example("y = torch.cat([a, b], dim=0)", ()),
            Example("y = torch.cat([x[:start], edited, y[stop:]])", ()),
            Example("y = torch.cat([full[:start], edited, full[stop:]], dim=1)", ()),
            Example("y = torch.cat([full[1:], full[:1]])", ()),
            Example("y = torch.cat([e1, e2, full[stop:]])", ()),
            Example("y = torch.cat([inv.rows for inv in given])", ()),
            Example("def f(full, edited, start, stop, pre):\n    if pre is None:\n        pre = full[:start]\n"
                    "    return torch.cat([pre, edited, full[stop:]])\n", ()),  # `pre` may be the caller's
            # stack splices
            Example("y = torch.stack([full[0], edited, full[2]])", ("y = torch.stack([full[0], full[1], full[2]])",)),
            Example("y = torch.stack([edited, full.select(0, i)])",
                    ("y = torch.stack([full[i - 1], full.select(0, i)])",)),
            Example("y = torch.stack([a, b])", ()),
            Example("y = torch.stack([x[0], edited, y[2]])", ()),
            Example("y = torch.stack([full[0], edited], dim=1)", ()),
        ]
