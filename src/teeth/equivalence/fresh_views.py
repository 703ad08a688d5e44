"""Fresh-base rules: a view made into a copy (view_to_copy) is equivalent when nothing but the view reaches its base's
storage: the base is a new tensor no one else holds, made in the same expression or bound to a local that is not
used again. Like the aliasing rules, each asks first that the view be a tensor (`is_tensor`)."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.aliasing import FUNCTION, HELD, KERNEL, TORCH_HELD, VIEW
from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.callees import dense_value
from teeth.equivalence.contiguity import contiguous_at, value_contiguous
from teeth.equivalence.effects import PERMUTING_ATTRIBUTES, relaid_base, self_overlapping, storage_root
from teeth.equivalence.flow import assigned_value, bindings, uses, walk
from teeth.equivalence.reads import DEPTH, writes_no_tensor
from teeth.equivalence.regions import disjoint
from teeth.equivalence.tensors import copying_index, is_tensor


@rule
class ViewOfFresh(Rule):
    name = "view_of_fresh"
    reason = ("the view is of a tensor made in the same expression that nothing else holds: no one else can "
              "see through it, and a copy holds the same values")
    examples_operators = VIEW
    suppresses = (
        "def f(images):\n    return torch.stack(images, dim=0).permute(0, 3, 1, 2)\n",
        "def f(a, b):\n    return helper((a + b).t().unsqueeze(0))\n",
        "def f(x):\n    return torch.transpose(x.clone(), 0, 1)\n",
    )
    keeps = (
        # handed on or returned, a copy of a slice that leaves gaps (or starts later) lies otherwise in memory: a
        # caller's `.view(-1)` raises on the view only, its `stride()`/`storage_offset()` differ
        "def f(a, b):\n    return helper((a + b)[:, :4].unsqueeze(0))\n",
        "def f(x):\n    return torch.narrow(x.clone(), 0, 0, 1)\n",  # `x.clone()` keeps x's strides: maybe gaps
        "def f(x):\n    return x.permute(1, 0)\n",  # a view of the argument: the caller holds its base
        "def f(x: Tensor, n):\n    return (x * 2).expand(n, -1, -1)\n",  # its elements share memory: written, differs
        "def f(x, h, w):\n    dst = torch.tensor([[0, 0], [w - 1, h - 1]]).expand(x.shape[0], -1, -1)\n"
        "    return crop(x, dst)\n",  # an unknown callee may write one element of the expanded rows: all change
        "def f(x: Tensor):\n    return (x * 2).unfold(0, 3, 1)\n",  # overlapping windows
        "def f(x):\n    y = torch.cat([x, x])\n    return y[:2], y\n",  # the base is named and returned too
        "def f(x):\n    return x.float().view(-1)\n",  # .float() may return x itself
        "def f(x):\n    return helper(x).view(-1)\n",  # an unknown callee may return a view of x
        "def f(x):\n    return torch.as_tensor(x).view(-1)\n",  # as_tensor may return x itself
        "def f(x, out):\n    return torch.cat([x, x], out=out)[:2]\n",  # out= returns the caller's tensor
        "def f(xs, ys):\n    return (xs + ys)[1:]\n",  # maybe two lists joined: no .clone()
    )

    suppresses += (  # `torch.from_numpy` shares memory with its array: here a new one an operator made
        "def f(a, w):\n    return torch.from_numpy(a * w).unsqueeze(1).float()\n",
    )
    keeps += (  # the caller's array, or a slice of it: writes through the tensor reach what the caller holds
        "def f(a):\n    return torch.from_numpy(a).unsqueeze(1)\n",
        "def f(a, w):\n    return torch.from_numpy(a[1:] if w else a).unsqueeze(1)\n",
    )
    suppresses += (  # an in-place method returns its receiver: new when the receiver is
        "def f(a: Tensor, b: Tensor):\n    return helper((a / b).rsqrt_().unsqueeze(-1))\n",
    )
    keeps += (
        "def f(a: Tensor, b: Tensor):\n    return helper(a.rsqrt_().unsqueeze(-1))\n",  # the caller's tensor
    )
    suppresses += (  # nonzero's result is a tensor unless as_tuple= says otherwise; a paired unpacking's values
        "def f(m: Tensor):\n    rows = m.nonzero(as_tuple=False).squeeze(1)\n    return rows.repeat(2)\n",
        "def f(a, i):\n    m, k = a.bool(), i\n    rows = m[k].nonzero().squeeze(1)\n    return rows.repeat(2)\n",
    )
    keeps += (
        "def f(a, i):\n    m, k = list(a), i\n    rows = m[k].nonzero().squeeze(1)\n    return rows.repeat(2)\n",
    )
    suppresses += (  # a typed tensor annotation, by the import that binds it; a method only tensors have
        "from torch import BoolTensor\n\ndef f(mask: BoolTensor):\n    return mask.nonzero().squeeze(-1)\n",
        "def f(h, i):\n    return h.gather(-1, i).squeeze(-1)\n",
    )
    keeps += (
        "from numpy import ndarray as BoolTensor\n\ndef f(mask: BoolTensor):\n    return mask.nonzero().squeeze(-1)\n",
        "def f(h, i):\n    return h.take(i).squeeze(-1)\n",  # numpy arrays take too
    )
    suppresses += (  # a torch function imported by name
        "from torch import cat\n\ndef f(x):\n    return cat([x, x]).view(-1)\n",
        "import torch.nn.functional as F\n\ndef f(x):\n    return F.softmax(x, -1).view(-1)\n",
    )
    keeps += (  # a name bound to another module's function: no row of the table is taken by its name
        "from cache import cat\n\ndef f(x):\n    return cat([x, x]).view(-1)\n",
        "import mylib as F\n\ndef f(x):\n    return F.softmax(x, -1).view(-1)\n",
        "def f(x, cat):\n    return cat([x, x]).view(-1)\n",  # a parameter named like a torch function
    )
    suppresses += (  # a function of the package whose every return is a new tensor
        "def scaled(p):\n    return p * 2\n\ndef f(p):\n    return scaled(p).view(-1)\n",
        "def lifted(p):\n    out = torch.cat([p, p])\n    out = out.reshape(2, -1)\n    return out.float()\n\n"
        "def f(p):\n    return lifted(p).view(-1)\n",
    )
    suppresses += (  # a held module whose forward always makes a new tensor
        HELD.format(forward="return t * 2", init="self.scale = Scale()") +
        "    def forward(self, x):\n        return self.scale(x).view(-1)\n",
    )
    suppresses += (  # a module class of torch whose forward makes a new tensor
        TORCH_HELD.format(module="nn.Linear(d, d)").replace("        rows = x[:n]\n", "") +
        "        return self.held(x).view(-1)\n",
    )
    keeps += (
        HELD.format(forward="return t", init="self.scale = Scale()") +  # it hands its argument back
        "    def forward(self, x):\n        return self.scale(x).view(-1)\n",
    )
    suppresses += (  # its every return a new tensor (through a name): dense, so a copy keeps the strides
        "def g(x):\n    out = torch.stack([x, x], -1)\n    return out\n\n"
        "def f(x):\n    return g(x).transpose(-1, -2)\n",
    )
    keeps += (  # a slice with gaps of a new tensor: its transposed copy is compacted, returned with other strides
        "def g(x):\n    return torch.stack([x, x], -1)[..., :1]\n\ndef f(x):\n    return g(x).transpose(-1, -2)\n",
        "def g(x, k):\n    if k:\n        return g(x, k - 1).t()\n    return torch.stack([x, x], -1)[..., :1]\n\n"
        "def f(x):\n    return g(x, 2).transpose(-1, -2)\n",  # the same, through its own calls
    )
    keeps += (
        "def same(p):\n    return p\n\ndef f(p):\n    return same(p).view(-1)\n",  # it returns its argument
        "def kept(p):\n    out = p * 2\n    KEEP.append(out)\n    return out\n\ndef f(p):\n"
        "    return kept(p).view(-1)\n",  # something else holds its result
        "def maybe(p, c):\n    if c:\n        return p\n    return p * 2\n\ndef f(p, c):\n"
        "    return maybe(p, c).view(-1)\n",  # one return is its argument
    )

    suppresses += (  # an element of a call's new pair (values, indices) is a new dense tensor
        "def f(x: Tensor, k):\n    return torch.topk(x, k, dim=-1)[0].permute(1, 0)\n",
        "def f(x: Tensor):\n    return x.sort(-1)[1].t()\n",
    )
    keeps += (
        "def f(x: Tensor, k):\n    return x.split(k)[0].t()\n",  # a piece of x: a view of the argument
        "def f(x: Tensor, k):\n    return x.topk(k)[2].t()\n",  # no third element: not known what it is
    )
    suppresses += (  # a mask's index is a copy: a new tensor nothing else holds
        "def f(x: Tensor, m: Tensor):\n    return x[~(m > 0)].view(-1)\n",
        "def f(x: Tensor, m: Tensor, n):\n    keep = m.isfinite() & (m > 0)\n    return x[keep].view(n, -1)\n",
        "def f(p: Tensor, n):\n    return p[~torch.eye(n).bool()].view(n, n - 1)\n",
    )
    suppresses += (  # an index by an integer tensor of one or more dimensions is a copy too
        "def f(x: Tensor, n):\n    return x[torch.arange(n)].view(-1)\n",
        "def f(x: Tensor, n, k):\n    rows = torch.randint(0, n, (k,))\n    return x[rows, :2].t()\n",
        # nonzero's (n, d) index tensor, as_tuple=False said outright
        "def f(x: Tensor, m: Tensor):\n    return x.reshape(-1)[torch.nonzero(m, as_tuple=False)].view(-1)\n",
    )
    keeps += (
        "def f(x: Tensor):\n    return x[torch.tensor(0)].view(-1)\n",  # a 0-dim index selects: a view of x
        "def f(x: Tensor, i: Tensor):\n    return x[i].view(-1)\n",  # maybe an integer index: a 0-dim one selects
        "def f(x: Tensor, m: Tensor):\n    return x[(m > 0).long()].view(-1)\n",  # integers made from a mask
        "def f(x: Tensor, m: Tensor):\n    return x[~m].view(-1)\n",  # `~` of an integer tensor: integers
        "def f(x: Tensor, m):\n    return x[m > 0].view(-1)\n",  # maybe a Python bool: `x[True]` is a view
        # a tuple of index tensors: one per dimension of m, each 1-D, but m may be 0-dim (an empty tuple: a view)
        "def f(x: Tensor, m: Tensor, flag):\n    return x[torch.nonzero(m, as_tuple=flag)].view(-1)\n",
    )
    suppresses += (  # a paired unpacking is the binding that reaches a use in a loop below it
        "def f(a, b, idx):\n    a, b = a.bool(), b.bool()\n    out = []\n    for i in idx:\n"
        "        rows = a[i].nonzero(as_tuple=False).squeeze(1)\n        out.append(rows.repeat(2))\n    return out\n",
    )
    keeps += (
        "def f(a, b, idx):\n    a, b = b, a.bool()\n    out = []\n    for i in idx:\n"
        "        rows = a[i].nonzero(as_tuple=False).squeeze(1)\n        out.append(rows.repeat(2))\n    return out\n",
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        if self_overlapping(mutant.node, ctx.flow):
            return False  # elements sharing memory: a write through one lands in others, a copy's does not
        root = storage_root(mutant.node, lambda e: copying_index(e, ctx.flow), ctx.flow)
        return (root is not mutant.node or copying_index(root, ctx.flow)) and is_tensor(mutant.node, ctx.flow) and \
            ctx.reads.fresh(root) and layout_unseen(mutant.node, root, ctx)  # a view of a new tensor (or an index
        # that is a copy itself) whose copy lies in memory as it does, or that is only read


def copy_lies_alike(view: cst.BaseExpression, base: cst.BaseExpression, ctx: Context,
                    seen: frozenset = frozenset()) -> bool:
    """Would `view.clone()` lie in memory as `view` does (the same strides, offset 0 as the base's), `view` being taken
    of `base`, a new tensor (dense, at the start of its storage)? Yes when every step from `base` is a permutation of
    axes, a reshape, a squeeze/unsqueeze or a cast (their row keeps contiguity: of a dense tensor they are dense), a
    subscript that only adds or keeps axes (`x[:, None]`, `x[...]`), or, of a tensor known contiguous, one that only
    cuts the first axis from its start (`x[:n]`, `x[0]`); a copy of anything else (`x[:, :k]`, `x[1:]`, `x[..., 0]`)
    is contiguous at offset 0 where the view is not, which `.view(-1)`, `stride()` and kernels can see."""
    node, flow = view, ctx.flow
    for _ in range(64):
        if node is base:
            return _dense_base(base, ctx, seen)
        if isinstance(node, cst.Attribute):
            if node.attr.value not in PERMUTING_ATTRIBUTES:
                return False
            node = node.value
            continue
        if isinstance(node, cst.Subscript):
            if not (_keeps_axes(node) or (_leading_prefix(node) and _known_contiguous(node.value, ctx))):
                return False
            node = node.value
            continue
        node = relaid_base(node, flow)
        if node is None:
            return False
    return False


_NO_TENSOR = (cst.BaseNumber, cst.BaseString, cst.List, cst.Tuple)  # literals: `torch.as_tensor(0.0)` is new and dense


def _dense_base(base: cst.BaseExpression, ctx: Context, seen: frozenset = frozenset()) -> bool:
    """Is the new tensor `base` (or the value of each binding of the name `base` that may reach it, or failing that of
    every binding of it) dense? A function of the package may return a slice with gaps of one it made: such a call is
    dense only when that function's every return is. A binding to a view (`out = out[:, :k]`, the name rebound to a
    view of its earlier value) is dense only when the copy of that view would lie alike (`copy_lies_alike`); the
    bindings it is taken of are judged alike, by induction (`seen`: names and uses judged on the way)."""
    flow = ctx.flow
    values = [base]
    if isinstance(base, cst.Name):
        if base.value in seen or id(base) in seen:
            return True  # by induction: each of its bindings is being judged
        scope = flow.function_scope(base)
        if scope is None or base.value not in scope.assignments:
            return True
        reaching = flow.reaching_bound(base)  # the bindings that may reach it (a parameter, an unpacking: no value)
        if reaching is not None:
            values = reaching
            seen = seen | {id(base)}
        else:  # else every binding of the name, by induction over them all
            values = [assigned_value(flow.statement(a.node), base.value) if isinstance(a.node, cst.Name) else None
                      for a in bindings(scope, base.value, flow)]
            seen = seen | {base.value}
    for value in values:
        if value is None:
            continue
        if isinstance(value, cst.Call) and ctx.callees.function(flow, value) is not None:
            if not dense_value(ctx.reads, value):
                return False
            continue
        root = storage_root(value, lambda e: copying_index(e, flow), flow)
        if root is not value and not isinstance(root, _NO_TENSOR) and not copy_lies_alike(value, root, ctx, seen):
            return False
    return True


def _keeps_axes(node: cst.Subscript) -> bool:
    """`x[:, None]`, `x[...]`, `x[:]`: every element a whole axis, a new axis or an ellipsis."""
    for element in node.slice:
        index = element.slice
        if isinstance(index, cst.Slice):
            if index.lower is not None or index.upper is not None or index.step is not None:
                return False
        elif not (isinstance(index.value, cst.Ellipsis) or
                  (isinstance(index.value, cst.Name) and index.value.value == "None")):
            return False
    return True


def _leading_prefix(node: cst.Subscript) -> bool:
    """`x[:n]`, `x[:n, :]`, `x[0]`: the first axis cut from its start (a slice with no lower bound or step, or the
    index 0), every other element a whole axis."""
    elements = list(node.slice)
    first = elements[0].slice
    if isinstance(first, cst.Slice):
        start = first.lower
        if first.step is not None or not (start is None or (isinstance(start, cst.Integer) and
                                                             start.evaluated_value == 0)):
            return False
    elif not (isinstance(first.value, cst.Integer) and first.value.evaluated_value == 0):
        return False
    rest = node.with_changes(slice=elements[1:]) if len(elements) > 1 else None
    return rest is None or _keeps_axes(rest)


def _known_contiguous(expr: cst.BaseExpression, ctx: Context) -> bool:
    """Is `expr` contiguous, by the binding that reaches a name or by what the expression makes (`contiguity.py`)?"""
    return contiguous_at(ctx, expr, DEPTH) if isinstance(expr, cst.Name) else value_contiguous(ctx, expr, DEPTH)


def layout_unseen(view: cst.BaseExpression, base: cst.BaseExpression, ctx: Context) -> bool:
    """Can nothing tell the view's copy by how it lies in memory? A copy of a slice is contiguous at offset 0 where
    the slice is not (`y[..., :k].view(-1)` raises, its copy's does not): so the copy lies as the view does
    (`copy_lies_alike`), or the view is only read where it goes (never returned, stored or handed on, no layout
    query: `Reads.only_read`)."""
    return copy_lies_alike(view, base, ctx) or ctx.reads.only_read(view, set(), DEPTH)


@rule
class ReturnedViewOfFreshLocal(Rule):
    name = "returned_view_of_fresh_local"
    reason = ("the view is returned and its base is a fresh local nothing else holds: a write through it reaches "
              "nothing else")
    examples_operators = VIEW
    suppresses = (
        "def top(x, k, dim):\n    idx = torch.argsort(x, dim=dim, stable=True).flip(dim)\n"
        "    return idx.movedim(dim, 0)\n",
        "def f(n, k):\n    buf = torch.zeros(n, 4)\n    total = buf.sum()\n    return buf[:k]\n",
    )
    keeps = (
        "def top(x, k, dim):\n    idx = torch.argsort(x, dim=dim, stable=True).flip(dim)\n"
        "    return idx.narrow(dim, 0, k)\n",  # returned: its copy is contiguous where a narrowed axis leaves gaps
        "def f(n, k):\n    buf = torch.zeros(n, 4)\n    total = buf.sum()\n    return buf[k:]\n",  # a later start
        "def g(t: Tensor):\n    return len\n\ndef f(x: Tensor):\n    res = g(x)\n    return res.squeeze(0)\n",  # a builtin
        "def f(x: Tensor, n):\n    ladj = x.sum()\n    return ladj.expand(n, 3)\n",  # one element in n * 3 places
        "def f(x, k):\n    return x[:k]\n",  # the base is the caller's
        "def f(x, k):\n    idx = x.argsort()\n    idx = x\n    return idx[:k]\n",  # bound to the argument too
        "def f(x, k):\n    idx = x.flip(0)\n    keep(idx)\n    return idx[:k]\n",  # handed on: another holder
        "def f(x, k):\n    idx = x.flip(0)\n    v = idx[:k]\n    v.zero_()\n    return idx\n",  # not returned itself
        "def f(x, k):\n    idx = x.view(-1)\n    return idx[:k]\n",  # a view of the argument, not fresh
        "def f(x, k):\n    idx = x.flip(0)\n    def total():\n        return idx.sum()\n    register(total)\n"
        "    return idx[:k]\n",  # read by a closure, maybe after a write through the returned view
        "def f(xs, ys, k):\n    both = xs + ys\n    return both[:k]\n",  # maybe a list: no .clone()
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        if self_overlapping(mutant.node, ctx.flow):
            return False  # elements sharing memory: a write through one lands in others, a copy's does not
        flow, node = ctx.flow, mutant.node
        if not isinstance(flow.parent(node), cst.Return) or not is_tensor(node, flow):
            return False
        root = storage_root(node, flow=flow)
        scope = flow.function_scope(root) if isinstance(root, cst.Name) else None
        if scope is None or root.value not in scope.assignments or not layout_unseen(node, root, ctx):
            return False  # not a local's view, or one whose copy a caller can tell by its layout
        for assignment in bindings(scope, root.value, flow):
            statement = flow.parent(assignment.node)
            if assignment.scope is not scope or not isinstance(statement, cst.AssignTarget) or \
                    not ctx.reads.fresh(flow.parent(statement).value):
                return False
        for use in uses(scope, root.value, flow):
            if flow.within(use.node, {id(node)}):
                continue
            if flow.scopes.get(use.node) is not scope or not isinstance(use.node, cst.Name) or \
                    not ctx.reads.only_read(use.node, set(), DEPTH):
                return False  # read from a nested function (maybe after the return), or handed on
        return True


@rule
class ViewOfFreshLocal(Rule):
    name = "view_of_fresh_local"
    reason = ("the view is of a local made fresh in this function (only written into or read since) "
              "whose name the view's statement rebinds or returns: only the view reaches its storage")
    examples_operators = VIEW
    suppresses = (
        "def f(x, idx, n):\n    out = x.new_zeros(n + 1, 4)\n    out[idx] = x\n    out = out[:n]\n    return out\n",
        "def f(x, b, n):\n    mask = torch.zeros(b * n + 1, dtype=torch.bool)\n    mask[x] = 1\n"
        "    mask = mask[:b * n]\n    mask = mask.view(b, n)\n    return mask\n",
        "def f(x, size):\n    out = torch.as_tensor(0.0)\n    out = out.repeat(size)\n    out.fill_(1)\n"
        "    out = out.view(2, -1)\n    return out\n",
        "def f(a, b, n):\n    hits = (a == b).nonzero()\n    hits = hits.view(-1)[:n]\n    return hits\n",
    )
    keeps = (
        "def f(x, n):\n    return x[:n]\n",  # a view of a parameter: the caller holds the base
        "def f(n):\n    out = torch.zeros(n)\n    keep = out\n    out = out[:2]\n    return out, keep\n",  # aliased
        "def f(n):\n    out = torch.zeros(n)\n    head = out[:2]\n    out.fill_(1)\n    return head\n",  # base used
        "def f(x, n):\n    out = helper(x)\n    out = out[:n]\n    return out\n",  # not known to be fresh
        "def f(x, n):\n    out = x.to(torch.float32)\n    out = out[:n]\n    return out\n",  # `to` may return x
        "def f(n):\n    out = torch.zeros(n)\n    register(out)\n    out = out[:2]\n    return out\n",  # escaped
        "def f(n, c):\n    out = torch.zeros(n)\n    if c:\n        keep.append(out)\n    out = out[:2]\n"
        "    return out\n",  # escaped on one path
        "def f(x, n):\n    out = x\n    out = out[:n]\n    return out\n",  # the parameter under another name
        "def f(n):\n    out = torch.zeros(n); keep = out\n    out = out[:2]\n    return out, keep\n",  # one line
        "def f(n):\n    def g():\n        return out\n    out = torch.zeros(n)\n    keep = g()\n    out = out[:2]\n"
        "    return out, keep\n",  # a closure hands the base out
        "def f(xs, ys, n):\n    out = xs + ys\n    out = out[:n]\n    return out\n",  # maybe a list
    )

    suppresses += (  # the new tensor an autograd Function's `forward` returns
        FUNCTION.format(base="Function", forward="return x * w", more="") +
        "def f(x: torch.Tensor, w):\n    out = Scale.apply(x, w)\n    out = out.view(-1)\n    return out\n",
    )
    keeps += (  # `forward` hands back its input: `apply` returns a view of the caller's tensor
        FUNCTION.format(base="Function", forward="return x", more="") +
        "def f(x: torch.Tensor, w):\n    out = Scale.apply(x, w)\n    out = out.view(-1)\n    return out\n",
    )
    suppresses += (  # its name never used again after the view's statement: as good as rebinding it
        "def f(x: Tensor, w: Tensor):\n    y = x @ w\n    out = y.transpose(0, 1).reshape(-1)\n    return out\n",
    )
    keeps += (
        "def f(x: Tensor, w: Tensor):\n    y = x @ w\n    out = y.transpose(0, 1)\n    y.add_(1)\n    return out\n",
        "def f(x: Tensor, w: Tensor, n):\n    y = x @ w\n    for _ in range(n):\n        out = y.transpose(0, 1)\n"
        "        out.add_(1)\n    return out\n",  # the next round's view sees the write through this one
    )
    suppresses += (  # rebound to its view in a branch of an `if`, made before it: what ran before the `if` counts
        "def f(x: Tensor, dim):\n    res = x * 2\n    if dim is not None:\n        res = res.squeeze(dim)\n"
        "    return res\n",
        "def f(x: Tensor, n):\n    res = x * 2\n    if res.dim() > 2:\n        res = res.flatten(0, 1)\n"
        "    elif n:\n        res = res.unsqueeze(0)\n    return res\n",
    )
    keeps += (
        "def f(x: Tensor, dim):\n    res = x * 2\n    if keep(res):\n        res = res.squeeze(dim)\n"
        "    return res\n",  # the test hands the base on
        "def f(x: Tensor, dim):\n    res = x * 2\n    other = res\n    if dim is not None:\n"
        "        res = res.squeeze(dim)\n    return res, other\n",  # another name holds it
        "def f(x: Tensor, n):\n    res = x * 2\n    for _ in range(n):\n        res = res.squeeze(0)\n"
        "    return res\n",  # a loop: what its earlier round did is not followed
    )
    suppresses += (  # made new on each branch of an `if` (a cast of a new tensor too), or the branch leaves
        "def f(a: Tensor, c):\n    if c:\n        w = torch.inverse(a)\n    else:\n"
        "        w = torch.inverse(a.double()).type(a.dtype)\n    w = w.view(*w.size(), 1, 1)\n    return w\n",
        "def f(a: Tensor, c):\n    if c:\n        w = torch.zeros(3, 3)\n    elif a is None:\n        raise ValueError()\n"
        "    else:\n        w = torch.zeros(3, 3).to(a)\n        w[0] = 1\n    w = w.view(-1)\n    return w\n",
    )
    keeps += (
        "def f(a: Tensor, c):\n    w = a\n    if c:\n        w = torch.inverse(a)\n    w = w.view(-1)\n"
        "    return w\n",  # no `else`: maybe the argument
        "def f(a: Tensor, c):\n    if c:\n        w = torch.inverse(a)\n        keep(w)\n    else:\n"
        "        w = torch.zeros(3, 3)\n    w = w.view(-1)\n    return w\n",  # handed on in one branch
        "def f(a: Tensor, c):\n    if w.sum() > 0:\n        w = torch.inverse(a)\n    else:\n"
        "        w = torch.zeros(3, 3)\n    w = w.view(-1)\n    return w\n",  # named by a test
    )
    keeps += (  # returned, the base an earlier slice with gaps of the new tensor: the copy's strides differ
        "def f(n):\n    w = torch.zeros(n, n)\n    w = w[:, :2]\n    w = w.t()\n    return w\n",
        "def f(a: Tensor, c):\n    if c:\n        w = torch.inverse(a)\n    else:\n        w = torch.zeros(3, 3)\n"
        "        w = w[:, :2]\n    w = w.t()\n    return w\n",
    )
    suppresses += (  # a tensor however deeply its arithmetic nests: an expression's own operands are walked whole
        "def f(x: Tensor, a, b):\n"
        "    out = ((((((x / 2 + a) * 3 - b) ** 2 + a) / 4 - b) * a + 1) ** 0.5 - b) ** a - 1\n"
        "    out = out.transpose(0, 1)\n    return out\n",
    )
    keeps += (  # the same of an unannotated parameter: maybe a numpy array, which has no `.clone()`
        "def f(x, a, b):\n    out = ((((((x / 2 + a) * 3 - b) ** 2 + a) / 4 - b) * a + 1) ** 0.5 - b) ** a - 1\n"
        "    out = out.transpose(0, 1)\n    return out\n",
    )
    suppresses += (  # a function of torch.linalg (torch.special, torch.fft) by its ATen operator's schema: new
        "def f(a: Tensor, b: Tensor):\n    x = torch.linalg.solve_triangular(a, b, upper=False)\n    x = x.t()\n"
        "    return x\n",
        "from torch import linalg\n\ndef f(a: Tensor, b: Tensor):\n    x = linalg.solve_triangular(a, b, upper=False)\n"
        "    x = x.t()\n    return x\n",  # by the file's import
    )
    keeps += (
        "def f(a: Tensor, b: Tensor):\n    x = torch.linalg.diagonal(a)\n    x = x.t()\n    return x\n",  # a view of a
        "from mylib import linalg\n\ndef f(a: Tensor, b: Tensor):\n    x = linalg.solve_triangular(a, b, upper=False)\n"
        "    x = x.t()\n    return x\n",  # another library's module of that name
    )
    suppresses += (  # in a `try`: made before it, or on every path through it (its body, each handler)
        "def f(x: Tensor, a: Tensor):\n    y = x - 1\n    try:\n        y = torch.linalg.solve_triangular(a, y.t(), "
        "upper=False)\n    except RuntimeError:\n        y = torch.zeros(3)\n    return y\n",
        "def f(x: Tensor, a: Tensor):\n    y = x - 1\n    try:\n        y = torch.linalg.solve_triangular(a, y, "
        "upper=False)\n    except RuntimeError:\n        y, _ = torch.triangular_solve(y, a, upper=False)\n"
        "    y = y.t()\n    return y\n",
    )
    keeps += (
        # the statement writes through the view, then raises: the handler returns the base, written or not
        "def f(x: Tensor):\n    y = x * 2\n    try:\n        y = y.t().add_(1) / check(2)\n    except ValueError:\n"
        "        return y\n    return y\n",
        # the name is not used after the view's statement in the body, but in the handler, or in the `finally`
        "def f(x: Tensor, w: Tensor):\n    try:\n        y = x @ w\n        out = y.transpose(0, 1)\n"
        "        out.add_(1)\n        check(out)\n    except ValueError:\n        return y\n    return out\n",
        "def f(x: Tensor, w: Tensor):\n    try:\n        y = x @ w\n        out = y.transpose(0, 1)\n"
        "        out.add_(1)\n        check(out)\n    finally:\n        log(y)\n    return out\n",
        "def f(x: Tensor, a: Tensor):\n    y = x - 1\n    try:\n        y = torch.linalg.solve_triangular(a, y, "
        "upper=False)\n    except RuntimeError:\n        y = x\n    y = y.t()\n    return y\n",  # a handler's
        # a `with` body runs under its context: a view made in `no_grad` raises when written in place after it
        "def f(x: Tensor, w: Tensor):\n    y = x @ w\n    with torch.no_grad():\n        y = y.t()\n    return y\n",
    )
    suppresses += (  # a local unpacked from a call whose every result is new (a sort's values and indices)
        "def f(x: Tensor, k):\n    vals, idx = x.sort(dim=-1)\n    vals = vals.t()\n    return vals, idx\n",
    )
    keeps += (  # returned: the copy of `vals[:, :k]` is contiguous where the view leaves gaps
        "def f(x: Tensor, k):\n    vals, idx = x.sort(dim=-1)\n    vals = vals[:, :k]\n    return vals, idx\n",
    )
    suppresses += (  # unpacked from a function of the package (or an autograd Function) whose results are all new
        "def _pair(x: Tensor):\n    y = x * 2\n    return y + 1, torch.zeros(3)\n\n"
        "def f(x: Tensor):\n    a, b = _pair(x)\n    a = a.t()\n    return a, b\n",
        FUNCTION.format(base="Function", forward="return x * w, x + w", more="") +
        "def f(x: torch.Tensor, w):\n    a, b = Scale.apply(x, w)\n    a = a.t()\n    return a, b\n",
    )
    keeps += (
        "def _same(x: Tensor):\n    y = x * 2\n    return y, y\n\n"
        "def f(x: Tensor):\n    a, b = _same(x)\n    a = a.t()\n    return a, b\n",  # the two share storage
        "def _gap(x: Tensor):\n    y = x * 2\n    return y[:, :2], torch.zeros(3)\n\n"
        "def f(x: Tensor):\n    a, b = _gap(x)\n    a = a.t()\n    return a, b\n",  # a slice with gaps
        "def _arg(x: Tensor):\n    return x, torch.zeros(3)\n\n"
        "def f(x: Tensor):\n    a, b = _arg(x)\n    a = a.t()\n    return a, b\n",  # the caller's tensor
    )
    keeps += (  # unpacked from a split: views of the argument
        "def f(x: Tensor, k):\n    vals, rest = x.split(2)\n    vals = vals[:, :k]\n    return vals\n",
    )
    suppresses += (  # the view is made after the last write to its base, a kernel's store, and returned
        KERNEL + "def f(x, c, n, shape):\n    y = torch.empty_like(x)\n    k[(1,)](x, c, y, n)\n"
        "    return y.view(*shape)\n",
    )
    keeps += (
        KERNEL + "def f(x, c, n, shape):\n    y = torch.empty_like(x)\n    k[(1,)](x, c, y, n)\n"
        "    keep(y)\n    return y.view(*shape)\n",  # handed to an unknown callee as well
        KERNEL + "def f(x, c, n, shape):\n    k[(1,)](c, c, x, n)\n    return x.view(*shape)\n",  # the caller's
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        """The view's base is a local made fresh in the same block (only written into, or read, since) whose name
        the view's statement rebinds or returns: no other reference to the storage exists."""
        if self_overlapping(mutant.node, ctx.flow):
            return False  # elements sharing memory: a write through one lands in others, a copy's does not
        flow, node = ctx.flow, mutant.node
        base = storage_root(node, flow=flow)
        if not isinstance(base, cst.Name) or base is node or not is_tensor(node, flow) or \
                not layout_unseen(node, base, ctx):
            return False
        statement = flow.statement(node)
        if not isinstance(statement, cst.Return) and assigned_value(statement, base.value) is None and \
                not _unused_after(flow, statement, base.value):
            return False  # the old value stays reachable under its name
        if flow.guarded(statement) and not writes_no_tensor(ctx.reads, statement):
            return False  # raising after a write through the view, the handler sees the old value written
        return ctx.reads.sole_before(base.value, statement, node, DEPTH)


def _unused_after(flow, statement: cst.CSTNode, name: str) -> bool:
    """Is `name` named in no statement that may run after `statement` (a loop's next round included)?"""
    return not any(isinstance(n, cst.Name) and n.value == name for later in flow.after(statement) for n in walk(later))


@rule
class DisjointViewsOfFreshLocal(Rule):
    name = "disjoint_views_of_fresh_local"
    reason = ("the view is one of views of disjoint regions of a local made fresh in this function, taken in one "
              "statement after which that value is never used: a write through one cannot reach another, and "
              "nothing else holds their base")
    examples_operators = VIEW
    suppresses = (
        "def f(x: Tensor, w: Tensor, k):\n    mixed = x @ w\n    head, rest = mixed[..., :k], mixed[..., k:]\n"
        "    return torch.cat((rest, head), -1)\n",  # only read: how the views lie is not seen
    )
    keeps = (
        # the views returned or handed on: a copy of `y[..., :k]` is contiguous where the view is not (a caller's
        # `.view(-1)` raises on the view only), a copy of `y[k:]` starts its storage where the view does not
        "def f(x: Tensor, w: Tensor, k):\n    mixed = x @ w\n    head, rest = mixed[..., :k], mixed[..., k:]\n"
        "    rest.mul_(2)\n    return head, rest\n",
        "def f(x: Tensor, branch):\n    y = torch.einsum('bij,bjk->bik', x, x)\n"
        "    first, others = y[..., 0, :], y[..., 1:, :]\n    return branch(first), others\n",
        "def f(a: Tensor, b: Tensor, gate):\n    s = a + b\n    s, last = s[:-1], s[-1]\n    gate(s)\n"
        "    return s, last\n",
        "def f(x: Tensor, k):\n    y = x * 2\n    a, b = y[:k + 1], y[k:]\n    b.zero_()\n    return a\n",  # overlap
        "def f(x: Tensor, k):\n    y = x * 2\n    a, b = y[:k], y[k:]\n    b.zero_()\n    return a, y\n",  # base used
        "def f(y: Tensor, k):\n    a, b = y[:k], y[k:]\n    b.zero_()\n    return a\n",  # the caller's base
        "def f(x: Tensor, i, j):\n    y = x * 2\n    a, b = y[:i], y[j:]\n    b.zero_()\n    return a\n",  # j < i?
        "def f(x: Tensor, k):\n    y = x * 2\n    a, b = y[:k], y\n    b.zero_()\n    return a\n",  # the whole base
        "def f(x: Tensor, k):\n    y = x * 2\n    a, b = y[:k], y[k:]\n    y.zero_()\n    return a\n",  # written after
        "def f(x: Tensor, w: Tensor, k):\n    y = x @ w\n    a, b = y[..., :k], y[..., k:]\n    b.mul_(2)\n"
        "    y = torch.cat((a, y), -1)\n    return y\n",  # the rebinding reads the old value
        "def f(x: Tensor, w: Tensor, k, n):\n    for i in range(n):\n        y = x @ w\n        if i:\n"
        "            out = y\n        a, b = y[..., :k], y[..., k:]\n        b.mul_(2)\n        if i:\n"
        "            continue\n        y = a\n    return out, a\n",  # used before the views, in the next round
        "def f(x: Tensor, k, n):\n    y = x * 2\n    out = []\n    for _ in range(n):\n        a, b = y[:k], y[k:]\n"
        "        out.append(a.add_(1))\n    return out\n",  # the same region again in the next iteration
        "def f(x: Tensor, k):\n    y = helper(x)\n    a, b = y[:k], y[k:]\n    b.zero_()\n    return a\n",  # not fresh
        "from elsewhere import einsum\n\ndef f(x: Tensor, k):\n    y = einsum('ij->ij', x)\n    a, b = y[..., :k], y[..., k:]\n"
        "    b.zero_()\n    return a\n",  # another module's function, named like torch's
        "def f(x: Tensor, k):\n    y = x * 2\n    a, b = y[::2], y[1::2]\n    b.zero_()\n    return a, y\n",
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        if self_overlapping(mutant.node, ctx.flow):
            return False  # elements sharing memory: a write through one lands in others, a copy's does not
        flow, node = ctx.flow, mutant.node
        if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name) or not is_tensor(node, flow) or \
                not layout_unseen(node, node.value, ctx):
            return False
        base, statement = node.value, flow.statement(node)
        scope = flow.function_scope(base)
        reached = flow.reaching(base)
        if statement is None or scope is None or reached is None or reached.statement is None:
            return False
        line, bound_line = flow.parent(statement), flow.parent(reached.statement)
        body = list(getattr(flow.parent(line), "body", ()))
        if line not in body or bound_line not in body:
            return False  # sole_before asks the same: the base made fresh in the view's own block
        views = []
        first, kill = body.index(bound_line), _killed_after(body, body.index(line), base.value)
        for use in uses(scope, base.value, flow):
            if use.node is base:
                continue
            if flow.within(use.node, {id(statement)}):  # in the view's statement: a view of a disjoint region
                view = flow.parent(use.node)
                if not isinstance(view, cst.Subscript) or view.value is not use.node or not disjoint(node, view):
                    return False
                views.append(view)
                continue
            held = _line_in(flow, use.node, body)
            if held is not None and first < body.index(held) < body.index(line):
                continue  # between the binding and the views: sole_before judges it
            if kill is not None and (held is None or body.index(held) >= kill or body.index(held) < first):
                continue  # once the views are made, the name is rebound before any use
            seen = flow.reaching(use.node) if isinstance(use.node, cst.Name) else None
            if seen is None or seen.statement is reached.statement:
                return False  # maybe this value, used after the views are made (a loop's next iteration, a branch)
        return ctx.reads.sole_before(base.value, statement, node, DEPTH, also=views)


def _line_in(flow, node: cst.CSTNode, body: list):
    """The statement of `body` that holds `node`, or None."""
    while node is not None and node not in body:
        node = flow.parent(node)
    return node


def _killed_after(body: list, index: int, name: str) -> int | None:
    """The index of the statement after `body[index]` that rebinds `name` without reading it, when every statement
    between is a simple one that neither names it nor leaves the block for its next round (`continue`, `break`):
    whatever runs after `body[index]`, the old value is never seen again. None when there is no such statement."""
    for position in range(index + 1, len(body)):
        line = body[position]
        if not isinstance(line, cst.SimpleStatementLine) or \
                any(isinstance(small, (cst.Continue, cst.Break)) for small in line.body):
            return None
        named = any(isinstance(n, cst.Name) and n.value == name for n in walk(line))
        if not named:
            continue
        small = line.body[0] if len(line.body) == 1 else None
        value = assigned_value(small, name)
        return position if value is not None and not any(
            isinstance(n, cst.Name) and n.value == name for n in walk(value)) else None
    return None
