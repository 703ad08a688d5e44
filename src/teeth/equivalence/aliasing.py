"""Aliasing rules: a view made into a copy (view_to_copy) is equivalent when no write can land through it; every rule
asks first that the view be a tensor (`is_tensor`): a list's or a tuple's slice has no `.clone()`."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.effects import storage_root
from teeth.equivalence.flow import assigned_value, bindings, uses
from teeth.equivalence.reads import DEPTH
from teeth.equivalence.tensors import is_tensor, masked_index

VIEW = ("view_to_copy",)
# a module of the file held in an attribute of another: `self.scale = Scale()` in `__init__`, called in `forward`
HELD = ("class Scale(nn.Module):\n    def forward(self, t):\n        {forward}\n\n\n"
        "class Net(nn.Module):\n    def __init__(self, scale=None):\n        super().__init__()\n"
        "        {init}\n\n")
# a kernel of the file that stores only into y_ptr: x_ptr and c_ptr are only read
KERNEL = ("@triton.jit\ndef k(x_ptr, c_ptr, y_ptr, n):\n    i = tl.arange(0, 4)\n    v = tl.load(x_ptr + i) * tl.load(c_ptr + i)\n"
          "    tl.store(y_ptr + i, v)\n\n")


@rule
class ViewOnlyRead(Rule):
    name = "view_only_read"
    reason = "the view is only read: nothing writes through it or its base, and it never escapes"
    examples_operators = VIEW
    suppresses = (
        "def splice(full, edited, start, stop):\n    pre = full.narrow(0, 0, start)\n"
        "    post = full.narrow(0, stop, full.shape[0] - stop)\n    return torch.cat([pre, edited, post], dim=0)\n",
        "def f(x, half):\n    x1, x2 = x[..., :half], x[..., half:]\n    return torch.cat((-x2, x1), dim=-1)\n",
        "def lengths(cu: torch.Tensor):\n    return cu[1:] - cu[:-1]\n",
        "def f(x: Tensor, n):\n    head = x[:n]\n    total = head.sum() + head.float().mean()\n"
        "    return total * head.shape[0]\n",
        "def f(x, n):\n    return torch.cat([torch.narrow(x, 0, 0, n), x])\n",
        "def f(x: Tensor, n):\n    rows = x[:n]\n    def total():\n        return rows.sum()\n    return total\n",
    )
    keeps = (
        "def f(full, n):\n    rows = full[:n]\n    rows.zero_()\n    return full\n",  # written through
        "def f(full, n):\n    rows = full[:n]\n    rows += 1\n    return full\n",  # augmented: in place
        "def f(full, n, v):\n    rows = full[:n]\n    rows[0] = v\n    return full\n",  # stored into
        "def f(full, n):\n    return full[:n]\n",  # returned: the caller may write through it
        "def f(self, full, n):\n    self.rows = full[:n]\n",  # stored in an attribute
        "def f(full, n):\n    parts = [full[:n]]\n    return parts\n",  # stored in a container
        "def f(full, n):\n    rows = full[:n]\n    helper(rows)\n",  # an unknown callee may write
        "def f(full, n):\n    rows = full[:n]\n    full.mul_(2)\n    return rows.sum()\n",  # the base written
        "def f(full, n):\n    rows = full[:n]\n    full += 1\n    return rows.sum()\n",  # the base, in place
        "def f(full, n):\n    rows = full[:n]\n    other = full[n:]\n    other.zero_()\n    return rows.sum()\n",
        "def f(full, n):\n    rows = full[:n]\n    alias = rows.view(-1)\n    alias.zero_()\n    return full\n",
        "def f(full, n):\n    rows = full[:n]\n    def g():\n        return rows\n    return g\n",  # returned by a closure
        "def f(full, n):\n    rows = full[:n]\n    torch.add(full, 1, out=rows)\n    return full\n",
        "def f(xs, n):\n    head = xs[:n]\n    return sum(head) + len(head)\n",  # maybe a list: no .clone()
    )
    # ops the table has no row for, by torch's schema of aten::NAME (schemas.py): new results, an alias, a write
    suppresses += (
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return rows.logcumsumexp(0) + torch.diag_embed(rows)\n",
    )
    keeps += (
        "def f(x: Tensor, n):\n    rows = x[:n]\n    t = rows.swapaxes(0, 1)\n    t.exponential_()\n"
        "    return x.sum()\n",  # written through an alias
        "def f(x: Tensor, n):\n    rows = x[:n]\n    rows.exponential_()\n    return x.sum()\n",
    )
    suppresses += (
        KERNEL + "def f(x, c, n):\n    c = c.unsqueeze(0)\n    y = torch.empty_like(x)\n    k[(1,)](x, c, y, n)\n"
        "    return y\n",  # the view goes to a parameter the kernel only loads from
    )

    keeps += (
        KERNEL + "def f(x, c, n):\n    y = x.unsqueeze(0)\n    k[(1,)](x, c, y, n)\n    return x\n",  # stored into
        "from elsewhere import k\n\ndef f(x, c, n):\n    c = c.unsqueeze(0)\n    k[(1,)](x, c, x, n)\n    return x\n",
    )

    # a function of the package only reads the view, or lets it reach only its result (derived from its body)
    suppresses += (
        "def normalised(t):\n    return t / t.sum()\n\ndef f(x: Tensor, n):\n    rows = x[:n]\n"
        "    return normalised(rows)\n",
        "def checked(t):\n    if t.dim() != 2:\n        raise ValueError('2-D')\n    return t\n\n"
        "def f(x: Tensor, n):\n    rows = checked(x[:n])\n    return rows.sum()\n",  # returned by it, then only read
        "def f(x: Tensor, n, size):\n    out = x[:n]\n    if out.shape[0] == size:\n        return out.sum()\n"
        "    out = torch.zeros(size)\n    out[0] = 1\n    return out\n",  # the name's next value is another tensor
        "def f(x, n, b):\n    out = torch.zeros(b, n)\n    for i in range(b):\n        row = x[i, :n]\n"
        "        out[i] = row\n    return out\n",  # a tensor's item assignment copies the row
        "def normalised(t, eps=1e-6):\n    return t / (t.sum() + eps)\n\ndef f(x: Tensor, n):\n"
        "    return normalised(eps=0.1, t=x[:n])\n",
    )
    keeps += (
        "def fill(t):\n    t.zero_()\n\ndef f(x, n):\n    fill(x[:n])\n    return x\n",  # it writes the view
        "def checked(t):\n    return t\n\ndef f(x, n):\n    return checked(x[:n])\n",  # returned on to the caller
        "def g(t):\n    helper(t)\n\ndef f(x, n):\n    g(x[:n])\n    return x\n",  # hands it to an unknown callee
        "@wraps\ndef g(t):\n    return t.sum()\n\ndef f(x, n):\n    return g(x[:n])\n",  # decorated: not its body
        "KEEP = []\n\ndef g(t):\n    KEEP.append(t)\n\ndef f(x, n):\n    g(x[:n])\n    return x\n",  # stores it
        "def g(t, k):\n    return g(t, k - 1) if k else t.sum()\n\ndef f(x, n):\n    return g(x[:n], 2)\n",
        "def g(*ts):\n    ts[0].zero_()\n\ndef f(x, n):\n    g(x[:n])\n    return x\n",  # starred: not told apart
        "def f(x, n, size):\n    out = x[:n]\n    if size:\n        out = torch.zeros(size)\n    out[0] = 1\n"
        "    return x\n",  # on one path the write reaches the view
        "def f(x, n, b):\n    out = [None] * b\n    for i in range(b):\n        out[i] = x[i, :n]\n    return out\n",  # a list
        "def sum(t):\n    t.zero_()\n    return t\n\ndef f(x, n):\n    return sum(x[:n]).item()\n",  # not torch's
    )

    # a callee held in an attribute: `self.NAME = Cls(...)` in `__init__`, the attribute's only binding (callees.py)
    suppresses += (
        HELD.format(forward="return t * 2", init="self.scale = Scale()") +
        "    def forward(self, x: Tensor, n):\n        rows = x[:n]\n        return self.scale(rows)\n",
    )
    keeps += (
        HELD.format(forward="t.mul_(2)\n        return t", init="self.scale = Scale()") +
        "    def forward(self, x: Tensor, n):\n        rows = x[:n]\n        return self.scale(rows).sum()\n",
        HELD.format(forward="return t * 2", init="self.scale = scale") +  # the caller's callee: anything
        "    def forward(self, x: Tensor, n):\n        rows = x[:n]\n        return self.scale(rows).sum()\n",
        HELD.format(forward="return t * 2", init="self.scale = Scale()") +  # rebound by another method
        "    def reset(self, other):\n        self.scale = other\n\n"
        "    def forward(self, x: Tensor, n):\n        rows = x[:n]\n        return self.scale(rows).sum()\n",
        HELD.format(forward="return t * 2", init="if scale is None:\n            self.scale = Scale()") +
        "    def forward(self, x: Tensor, n):\n        rows = x[:n]\n        return self.scale(rows).sum()\n",
        HELD.replace("class Scale(nn.Module)", "class Scale(Base)").format(  # another base: its __call__ unknown
            forward="return t * 2", init="self.scale = Scale()") +
        "    def forward(self, x: Tensor, n):\n        rows = x[:n]\n        return self.scale(rows).sum()\n",
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        root = storage_root(mutant.node)
        if not isinstance(root, cst.Name) or root is mutant.node or not is_tensor(mutant.node, ctx.flow) or \
                not ctx.reads.only_read(mutant.node, set(), DEPTH):
            return False
        return ctx.reads.name_only_read(root, {id(mutant.node)}, set(), DEPTH)


@rule
class ViewReadAtOnce(Rule):
    name = "view_read_at_once"
    reason = ("the view is read once where it is made, by an operation that returns a new value, in a "
              "statement that writes nothing: no write can land between making it and reading it")
    examples_operators = VIEW
    suppresses = (
        "def f(boxes):\n    check(boxes)\n    return (boxes[:, 4:, 2] - boxes[:, :4, 2] + 1)[:, 0]\n",
        "def f(x, order: torch.Tensor):\n    keep = [order[0]]\n    return torch.max(x[0], x[order[1:]]), keep\n",
        "def f(x: torch.Tensor, n):\n    helper(x)\n    return x.narrow(0, 0, n).sum(), torch.cat([x[:n], x])\n",
        "def f(x: Tensor, n):\n    while x[:n].sum() > 0:\n        x = torch.as_tensor(helper(x))\n    return x\n",
        "def scaled(t, k):\n    return t * k\n\ndef f(x: Tensor, n):\n    x[0] = 1\n    y = scaled(x[:n], 2)\n"
        "    return y\n",
        # an optional tensor: slicing None raises before the copy would, in the mutant as in the original
        "def f(src, ptr: Optional[Tensor] = None):\n    if ptr is not None:\n        count = ptr[1:] - ptr[:-1]\n"
        "        return src / count\n    return src\n",
        # an autograd Function's saved tensors, unpacked
        "def backward(ctx, g):\n    size, out = ctx.saved_tensors\n"
        "    return g.sum(-1) / size.to(g.dtype).squeeze(-1)\n",
    )
    keeps = (
        "def f(x, n):\n    return x[:n]\n",  # returned: the caller may write through it
        "def f(x, n):\n    helper(x[:n])\n",  # an unknown callee may write through it
        "def f(x, n):\n    return x[:n] + x.add_(1)\n",  # the base written after the view is made, then read
        "def f(x, n):\n    return x[:n] + helper(x)\n",  # an unknown callee in the same statement
        "def zero(t):\n    t.zero_()\n    return t\n\ndef f(x, n):\n    return x[:n].sum() + zero(x).sum()\n",
        "def f(x, n):\n    x += x[:n]\n",  # read while its base is written in place
        "def f(x, n):\n    torch.add(x[:n], 1, out=x)\n",  # out= writes the base while the view is read
        "def f(x, n):\n    rows = x[:n]\n    helper(x)\n    return rows.sum()\n",  # named: read later
        "def f(x, n):\n    return [r.sum() for r in x[:n]]\n",  # iterated: its rows are views too
        # not known to be a tensor: a list's or a tuple's slice has no .clone(), the copy raises
        "def f(xs):\n    return max(xs[1:]) + len(xs[:-1])\n",  # an unannotated parameter
        "def f(x):\n    dims = (0, 1, 2)\n    return max(dims[1:])\n",  # a tuple
        "def f(x: Tensor):\n    return torch.cat(x.split(2)[1:])\n",  # a tensor's split: a tuple of them
        "def f(x: Tensor):\n    return torch.cat(x.nonzero(as_tuple=True)[1:])\n",  # a tuple of index tensors
        "def backward(ctx, g):\n    size, out = ctx.saved_values\n"
        "    return g.sum(-1) / size.to(g.dtype).squeeze(-1)\n",  # an attribute not known to hold tensors
        "def f(xs: Optional[list] = None):\n    return max(xs[1:])\n",  # annotated, but not a tensor
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        return is_tensor(mutant.node, ctx.flow) and ctx.reads.read_here(mutant.node) and \
            ctx.reads.writes_nothing(ctx.flow.statement_part(mutant.node))


@rule
class ViewOfFresh(Rule):
    name = "view_of_fresh"
    reason = ("the view is of a tensor made in the same expression that nothing else holds: no one else can "
              "see through it, and a copy holds the same values")
    examples_operators = VIEW
    suppresses = (
        "def f(images):\n    return torch.stack(images, dim=0).permute(0, 3, 1, 2)\n",
        "def f(x, h, w):\n    dst = torch.tensor([[0, 0], [w - 1, h - 1]]).expand(x.shape[0], -1, -1)\n"
        "    return crop(x, dst)\n",
        "def f(a, b):\n    return helper((a + b)[:, :4].unsqueeze(0))\n",
        "def f(x):\n    return torch.narrow(x.clone(), 0, 0, 1)\n",
    )
    keeps = (
        "def f(x):\n    return x.permute(1, 0)\n",  # a view of the argument: the caller holds its base
        "def f(x):\n    y = torch.cat([x, x])\n    return y[:2], y\n",  # the base is named and returned too
        "def f(x):\n    return x.float().view(-1)\n",  # .float() may return x itself
        "def f(x):\n    return helper(x).view(-1)\n",  # an unknown callee may return a view of x
        "def f(x):\n    return torch.as_tensor(x).view(-1)\n",  # as_tensor may return x itself
        "def f(x, out):\n    return torch.cat([x, x], out=out)[:2]\n",  # out= returns the caller's tensor
        "def f(xs, ys):\n    return (xs + ys)[1:]\n",  # maybe two lists joined: no .clone()
    )

    suppresses += (  # nonzero's result is a tensor unless as_tuple= says otherwise; a paired unpacking's values
        "def f(m: Tensor):\n    rows = m.nonzero(as_tuple=False).squeeze(1)\n    return rows.repeat(2)\n",
        "def f(a, i):\n    m, k = a.bool(), i\n    rows = m[k].nonzero().squeeze(1)\n    return rows.repeat(2)\n",
    )
    keeps += (
        "def f(a, i):\n    m, k = list(a), i\n    rows = m[k].nonzero().squeeze(1)\n    return rows.repeat(2)\n",
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
    keeps += (
        HELD.format(forward="return t", init="self.scale = Scale()") +  # it hands its argument back
        "    def forward(self, x):\n        return self.scale(x).view(-1)\n",
    )
    keeps += (
        "def same(p):\n    return p\n\ndef f(p):\n    return same(p).view(-1)\n",  # it returns its argument
        "def kept(p):\n    out = p * 2\n    KEEP.append(out)\n    return out\n\ndef f(p):\n"
        "    return kept(p).view(-1)\n",  # something else holds its result
        "def maybe(p, c):\n    if c:\n        return p\n    return p * 2\n\ndef f(p, c):\n"
        "    return maybe(p, c).view(-1)\n",  # one return is its argument
    )

    suppresses += (  # a mask's index is a copy: a new tensor nothing else holds
        "def f(x: Tensor, m: Tensor):\n    return x[~(m > 0)].view(-1)\n",
        "def f(x: Tensor, m: Tensor, n):\n    keep = m.isfinite() & (m > 0)\n    return x[keep].view(n, -1)\n",
        "def f(p: Tensor, n):\n    return p[~torch.eye(n).bool()].view(n, n - 1)\n",
    )
    keeps += (
        "def f(x: Tensor, i: Tensor):\n    return x[i].view(-1)\n",  # maybe an integer index: a 0-dim one selects
        "def f(x: Tensor, m: Tensor):\n    return x[(m > 0).long()].view(-1)\n",  # integers made from a mask
        "def f(x: Tensor, m: Tensor):\n    return x[~m].view(-1)\n",  # `~` of an integer tensor: integers
        "def f(x: Tensor, m):\n    return x[m > 0].view(-1)\n",  # maybe a Python bool: `x[True]` is a view
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
        root = storage_root(mutant.node, lambda e: masked_index(e, ctx.flow))
        return root is not mutant.node and is_tensor(mutant.node, ctx.flow) and ctx.reads.fresh(root)


@rule
class ReturnedViewOfFreshLocal(Rule):
    name = "returned_view_of_fresh_local"
    reason = ("the view is returned and its base is a fresh local nothing else holds: a write through it reaches "
              "nothing else")
    examples_operators = VIEW
    suppresses = (
        "def top(x, k, dim):\n    idx = torch.argsort(x, dim=dim, stable=True).flip(dim)\n"
        "    return idx.narrow(dim, 0, k)\n",
        "def f(n, k):\n    buf = torch.zeros(n, 4)\n    total = buf.sum()\n    return buf[:k]\n",
    )
    keeps = (
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
        flow, node = ctx.flow, mutant.node
        if not isinstance(flow.parent(node), cst.Return) or not is_tensor(node, flow):
            return False
        root = storage_root(node)
        scope = flow.function_scope(root) if isinstance(root, cst.Name) else None
        if scope is None or root.value not in scope.assignments:
            return False
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
        "def f(n):\n    def g():\n        return out\n    out = torch.zeros(n)\n    keep = g()\n    out = out[:2]\n"
        "    return out, keep\n",  # a closure hands the base out
        "def f(xs, ys, n):\n    out = xs + ys\n    out = out[:n]\n    return out\n",  # maybe a list
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
        flow, node = ctx.flow, mutant.node
        base = storage_root(node)
        if not isinstance(base, cst.Name) or base is node or not is_tensor(node, flow):
            return False
        statement = flow.statement(node)
        if not isinstance(statement, cst.Return) and assigned_value(statement, base.value) is None:
            return False  # the old value stays reachable under its name
        return ctx.reads.sole_before(base.value, statement, node, DEPTH)
