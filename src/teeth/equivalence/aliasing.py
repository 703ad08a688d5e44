"""Aliasing rules: a view made into a copy (view_to_copy) is equivalent when no write can land through it; every rule
asks first that the view be a tensor (`is_tensor`): a list's or a tuple's slice has no `.clone()`."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.effects import storage_root
from teeth.equivalence.reads import DEPTH, Reads, function_of, writes_no_tensor
from teeth.equivalence.flow import walk as cst_walk
from teeth.equivalence.tensors import is_tensor

VIEW = ("view_to_copy",)
# a module of the file held in an attribute of another: `self.scale = Scale()` in `__init__`, called in `forward`
HELD = ("class Scale(nn.Module):\n    def forward(self, t):\n        {forward}\n\n\n"
        "class Net(nn.Module):\n    def __init__(self, scale=None):\n        super().__init__()\n"
        "        {init}\n\n")
# a module of torch held in an attribute, called in a method with a view of its argument
TORCH_HELD = ("import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self, d):\n"
              "        super().__init__()\n        self.held = {module}\n\n    def run(self, x: torch.Tensor, n):\n"
              "        rows = x[:n]\n")
# an autograd Function of the file: `Scale.apply(x, w)` runs `forward(ctx, x, w)`
FUNCTION = ("import torch\nfrom torch.autograd import Function\n\n\nclass Scale({base}):\n    @staticmethod\n"
            "    def forward(ctx, x, w):\n        {forward}\n\n    @staticmethod\n    def backward(ctx, g):\n"
            "        return g, None\n{more}\n\n")
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
        "def f(x: Tensor, half):\n    x1, x2 = x[..., :half], x[..., half:]\n    return torch.cat((-x2, x1), dim=-1)\n",
        "def lengths(cu: torch.Tensor):\n    return cu[1:] - cu[:-1]\n",
        "def f(x: Tensor, n):\n    head = x[:n]\n    total = head.sum() + head.float().mean()\n"
        "    return total * head.shape[0]\n",
        "def f(x, n):\n    return torch.cat([torch.narrow(x, 0, 0, n), x])\n",
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
        # read by a closure the caller may call after writing the base: `t = f(x, 2); x.add_(1); t()` differs
        "def f(x: Tensor, n):\n    rows = x[:n]\n    def total():\n        return rows.sum()\n    return total\n",
        "def f(full, n):\n    rows = full[:n]\n    torch.add(full, 1, out=rows)\n    return full\n",
        "def f(xs, n):\n    head = xs[:n]\n    return sum(head) + len(head)\n",  # maybe a list: no .clone()
    )
    # ops the table has no row for, by torch's schema of aten::NAME (schemas.py): new results, an alias, a write
    suppresses += (
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return rows.logcumsumexp(0) + torch.diag_embed(rows)\n",
    )
    suppresses += (  # a schema TorchScript alone adds (`aten::cos.int`) is no overload Python's `torch.cos` has
        "def f(x: Tensor, n):\n    c = torch.cos(x)\n    return torch.stack([c[:n], -c[-n:].flip(-1)], -1)\n",
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

    # a loop over the view: its elements (views of the base) bound to the loop's name, which is only read
    suppresses += (
        "def f(x: Tensor):\n    out = []\n    for v in x[:-1]:\n        out.append(v * 2)\n    return out\n",
    )
    keeps += (
        "def f(x: Tensor):\n    for v in x[:-1]:\n        v.mul_(2)\n    return x\n",  # written through an element
        "def f(x: Tensor):\n    s = 0\n    for v in x[:-1]:\n        s = s + v\n        x[-1] += 1\n    return s\n",
        "def f(x: Tensor):\n    s = 0\n    for v in x[:-1]:\n        s = s + v\n    x.add_(1)\n    return s + v\n",
    )  # the base written while the elements are read: in the loop, or after it, the last element read then
    suppresses += (  # followed through `.contiguous()` (the view itself, or a copy) to a `view` of it, which cannot
        # raise for its layout: only read either way
        "def f(x: Tensor, k):\n    y = x.permute(1, 0)\n    z = y.contiguous().view(-1)\n    return torch.topk(z, k)[0]\n",
    )
    keeps += (
        "def f(x: Tensor):\n    y = x.permute(1, 0)\n    z = y.contiguous().view(-1)\n    z[0] = 1\n    return x\n",
        # written: `contiguous()` hands back the view itself when it already is (x of shape (n, 1)), so x changes
    )
    suppresses += (  # a comprehension over the view: its name only read
        "def f(x: Tensor):\n    return sum(v * 2 for v in x[:-1])\n",
    )
    keeps += (
        "def f(x: Tensor):\n    return [v for v in x[:-1]]\n",  # the elements, views of `x`, handed on
        "def f(x: Tensor):\n    [v.mul_(2) for v in x[:-1]]\n    return x\n",  # written through them
    )
    suppresses += (  # a loop over `zip`/`enumerate` of views: each element goes to its place in the target
        "def f(x: Tensor):\n    out = []\n    for a, b in zip(x[:-1], x[1:]):\n        out.append(b - a)\n"
        "    return torch.stack(out)\n",
        "def f(x: Tensor):\n    for i, a in enumerate(x[1:]):\n        if a > 0:\n            return i\n    return -1\n",
        "def f(x: Tensor):\n    return all(a < b for a, b in zip(x[:-1], x[1:]))\n",  # a comprehension's `for`
    )
    suppresses += (  # appended to a list the function made, which is only stacked (copied into a new tensor) or counted
        "def f(x: Tensor, n):\n    out = []\n    for i in range(n):\n        out.append(x[i].squeeze(0))\n"
        "    return torch.stack(out) if len(out) else None\n",
    )
    keeps += (
        "def f(x: Tensor, n):\n    out = []\n    for i in range(n):\n        out.append(x[i:])\n    return out\n",
        "def f(x: Tensor, n):\n    out = []\n    for i in range(n):\n        out.append(x[i:])\n    x.zero_()\n"
        "    return torch.stack(out)\n",  # the base written before the list is read
        "def f(x: Tensor, y: Tensor, n):\n    out = []\n    out.append(x[:n])\n    y.add_(1)\n"
        "    return torch.cat(out)\n",  # y may be x
        "def f(x: Tensor, n):\n    out = []\n    out.append(x[:n])\n    return out[0]\n",  # an element handed on
        "def f(x: Tensor, n):\n    out = []\n    out.append(x[:n])\n    helper(out)\n    return x\n",
        "def f(x: Tensor, out, n):\n    out.append(x[:n])\n    return torch.stack(out)\n",  # the caller's list
        "def f(x: Tensor, n):\n    out = []\n    out.append(x[:n])\n    return max(out)\n",  # Python's max: an element
    )
    # what runs before the view exists (the call that makes its base) cannot tell the view from its copy
    suppresses += (
        "def f(dist, n):\n    x = torch.movedim(dist.sample((n,)), 0, -1)\n    return torch.sort(x, dim=-1).values\n",
    )
    keeps += (
        "def f(dist, n):\n    x = torch.movedim(dist.sample((n,)), 0, -1)\n    dist.step()\n    return x.sum()\n",
    )
    keeps += (
        "def f(x: Tensor):\n    return [b.sub_(a) for a, b in zip(x[:-1], x[1:])]\n",
        "def f(x: Tensor):\n    return [(a, b) for a, b in zip(x[:-1], x[1:])]\n",  # the elements make the result
        "def f(x: Tensor):\n    for a, b in zip(x[:-1], x[1:]):\n        b.sub_(a)\n    return x\n",
        "def f(x: Tensor):\n    for i, a in enumerate(x[1:]):\n        if a > 0:\n            return a\n    return x\n",
        "from elsewhere import zip\n\ndef f(x: Tensor):\n    out = []\n    for a, b in zip(x[:-1], x[1:]):\n"
        "        out.append(b - a)\n    return torch.stack(out)\n",  # another library's zip: it may keep them
    )

    # a function of the package only reads the view, or lets it reach only its result (derived from its body)
    suppresses += (
        "def normalised(t):\n    return t / t.sum()\n\ndef f(x: Tensor, n):\n    rows = x[:n]\n"
        "    return normalised(rows)\n",
        "def checked(t):\n    if t.dim() != 2:\n        raise ValueError('2-D')\n    return t\n\n"
        "def f(x: Tensor, n):\n    rows = checked(x[:n])\n    return rows.sum()\n",  # returned by it, then only read
        "def f(x: Tensor, n, size):\n    out = x[:n]\n    if out.shape[0] == size:\n        return out.sum()\n"
        "    out = torch.zeros(size)\n    out[0] = 1\n    return out\n",  # the name's next value is another tensor
        "def f(x: Tensor, n, b):\n    out = torch.zeros(b, n)\n    for i in range(b):\n        row = x[i, :n]\n"
        "        out[i] = row\n    return out\n",  # a tensor's item assignment copies the row
        "def normalised(t, eps=1e-6):\n    return t / (t.sum() + eps)\n\ndef f(x: Tensor, n):\n"
        "    return normalised(eps=0.1, t=x[:n])\n",
    )
    suppresses += (  # TorchScript compiles the body as written: the same operators on the same tensors
        "import torch\n\n@torch.jit.script\ndef g(t):\n    return t.sum()\n\ndef f(x: Tensor, n):\n    return g(x[:n])\n",
    )
    suppresses += (  # a function that calls itself: what each call does to its arguments, by induction on the depth
        "def g(t, k):\n    return g(t, k - 1) if k else t.sum()\n\ndef f(x: Tensor, n):\n    return g(x[:n], 2)\n",
        "def dct(x: Tensor, dim=-1):\n    if dim != -1:\n        y = x.transpose(dim, -1)\n"
        "        return dct(y, -1)\n    return torch.cat([x * 2, x.flip(-1)], -1)\n",
    )
    keeps += (
        "def fill(t):\n    t.zero_()\n\ndef f(x, n):\n    fill(x[:n])\n    return x\n",  # it writes the view
        "def checked(t):\n    return t\n\ndef f(x, n):\n    return checked(x[:n])\n",  # returned on to the caller
        "def g(t):\n    helper(t)\n\ndef f(x, n):\n    g(x[:n])\n    return x\n",  # hands it to an unknown callee
        "@wraps\ndef g(t):\n    return t.sum()\n\ndef f(x, n):\n    return g(x[:n])\n",  # decorated: not its body
        "import torch\n\n@torch.jit.script\ndef g(t):\n    t.add_(1)\n    return t.sum()\n\n"
        "def f(x: Tensor, n):\n    return g(x[:n]) + x.sum()\n",  # compiled, its body writes the view
        "import mylib as torch\n\n@torch.jit.script\ndef g(t):\n    return t.sum()\n\n"
        "def f(x: Tensor, n):\n    return g(x[:n])\n",  # another library's decorator of that name
        "KEEP = []\n\ndef g(t):\n    KEEP.append(t)\n\ndef f(x, n):\n    g(x[:n])\n    return x\n",  # stores it
        "def g(t, k):\n    return g(t, k - 1) if k else t.zero_()\n\ndef f(x: Tensor, n):\n    g(x[:n], 2)\n"
        "    return x\n",  # it calls itself, and its last call writes the view
        "def g(t, k):\n    return h(t[1:], k)\n\ndef h(t, k):\n    if k:\n        return g(t, k - 1)\n    t.add_(1)\n"
        "    return t.sum()\n\ndef f(x: Tensor, n):\n    return g(x[:n], 2) + x.sum()\n",  # through another function
        "def g(t, k):\n    if k:\n        r = g(t, k - 1)\n        r.zero_()\n        return r.sum()\n    return t\n\n"
        "def f(x: Tensor, n):\n    g(x[:n], 2)\n    return x\n",  # its own call's result, the view itself, written
        "def g(*ts):\n    ts[0].zero_()\n\ndef f(x, n):\n    g(x[:n])\n    return x\n",  # starred: not told apart
        "def f(x, n, size):\n    out = x[:n]\n    if size:\n        out = torch.zeros(size)\n    out[0] = 1\n"
        "    return x\n",  # on one path the write reaches the view
        "def f(x, n, b):\n    out = [None] * b\n    for i in range(b):\n        out[i] = x[i, :n]\n    return out\n",  # a list
        "def sum(t):\n    t.zero_()\n    return t\n\ndef f(x, n):\n    return sum(x[:n]).item()\n",  # not torch's
    )

    suppresses += (  # a tensor by every binding that reaches the view (`Flow.reaching_sites`): a branch that raises
        # reaches nothing; a parameter checked a tensor before the view, rebound to tensors on some paths
        "import torch.nn.functional as F\n\ndef f(X, h, ch, mode):\n    if mode == 's':\n        X = F.conv2d(X, h)\n"
        "    else:\n        raise NotImplementedError(mode)\n    return torch.stack((X[:, ch:], X[:, :ch]), dim=-2)\n",
        "def f(x, r, c):\n    n = x.dim()\n    if r:\n        x = torch.cat((x, x[:, -1:]), dim=1)\n    if c:\n"
        "        x = torch.cat((x, x[:, :, -1:]), dim=2)\n    return x\n",
        "def f(x, xs, mode):\n    if mode:\n        x = torch.zeros(3, 3)\n    else:\n        x = xs\n"
        "        raise ValueError(mode)\n    ys = [x for x in xs]\n    return torch.cat((x, x[:, -1:]), dim=1), ys\n",
        "def f(x, k):\n    n = x.dim()\n    for i in range(k):\n        if i % n:\n            x = torch.exp(x)\n"
        "        x = torch.cat((x[:, :1], x), dim=1)\n    return x\n",  # a later round sees its own bindings
    )
    keeps += (  # a binding on one path is not known a tensor: a numpy array takes `x[:, -1:]` but has no `.clone()`
        "def f(x, h, r):\n    if r:\n        x = torch.conv1d(x, h)\n    return torch.cat((x, x[:, -1:]), dim=1)\n",
        "def f(x, r):\n    if r:\n        x = torch.zeros(3, 3)\n    elif x is None:\n        raise ValueError()\n"
        "    return torch.cat((x, x[:, -1:]), dim=1)\n",
        "def f(x, r):\n    if r:\n        x = torch.zeros(3, 3)\n    y = torch.cat((x, x[:, -1:]), dim=1)\n"
        "    n = x.dim()\n    return y\n",  # checked only after the view
        "def f(t, xs, k):\n    if k:\n        xs = (None,) * k + xs\n    else:\n        xs = xs + (None,)\n"
        "    return any(a is None for a in xs[1:])\n",  # each binding made of the parameter before it: a tuple
        "def f(x, g):\n    try:\n        g()\n    except ValueError:\n        y = torch.cat((x, x[:, -1:]), dim=1)\n"
        "    n = x.dim()\n    return y\n",  # checked only after the view, in a handler
        "def f(x, k):\n    x = torch.zeros(k)\n    while k:\n        y = x[1:] + 1\n        x = x.tolist()\n"
        "        k -= 1\n    return y\n",  # a later round sees a list
        "def f(x, vs):\n    x = torch.zeros(3)\n    for v in vs:\n        y = x[1:] + 1\n        if v:\n"
        "            x = v.tolist()\n            continue\n        x = torch.exp(x)\n    return y\n",  # after `continue`
        "def f(x, k):\n    x = torch.zeros(k)\n    try:\n        x = g(x)\n    except ValueError:\n        pass\n"
        "    return x[1:] + 1\n",  # a `try` that binds it
    )

    suppresses += (  # a view handed to an autograd Function whose `forward` only reads that parameter
        FUNCTION.format(base="Function", forward="return x * w", more="") +
        "def f(x: torch.Tensor, w, n):\n    return Scale.apply(x[:n], w)\n",
        FUNCTION.format(base="torch.autograd.Function", forward="ctx.save_for_backward(w)\n        return x * w",
                        more="") + "def f(x: torch.Tensor, w, n):\n    return Scale.apply(x[:n], w).sum()\n",
    )
    keeps += (
        FUNCTION.format(base="Function", forward="ctx.save_for_backward(x)\n        return x * w", more="") +
        "def f(x: torch.Tensor, w, n):\n    return Scale.apply(x[:n], w)\n",  # kept for backward: a later write shows
        FUNCTION.format(base="Function", forward="ctx.mark_dirty(x)\n        return x.mul_(w)", more="") +
        "def f(x: torch.Tensor, w, n):\n    Scale.apply(x[:n], w)\n    return x\n",  # written in place
        FUNCTION.format(base="Function", forward="ctx.held.save_for_backward(w)\n        return x * w", more="") +
        "def f(x: torch.Tensor, w, n):\n    return Scale.apply(x[:n], w)\n",  # some object's method, not the context's
        FUNCTION.format(base="Function", forward="return x * w", more="\n    @staticmethod\n"
                        "    def setup_context(ctx, inputs, output):\n        ctx.save_for_backward(*inputs)\n") +
        "def f(x: torch.Tensor, w, n):\n    return Scale.apply(x[:n], w)\n",  # its context set up elsewhere
        FUNCTION.format(base="Function", forward="return x * w", more="").replace(
            "from torch.autograd import Function", "from mylib import Function") +
        "def f(x: torch.Tensor, w, n):\n    return Scale.apply(x[:n], w)\n",  # another library's Function
    )

    suppresses += (  # written in place: a cast or view of a new tensor, which no other name can hold
        "def f(t: Tensor, e: Tensor, c):\n    scores = torch.zeros(3, c, c).type_as(e)\n"
        "    scores[:, 0] += t.view(1, c)\n    scores[:, 1] += t.view(1, c)\n    return scores\n",
    )
    keeps += (  # the view is of that tensor itself, written after the view is made
        "def f(t: Tensor, e: Tensor, c):\n    scores = torch.zeros(3, c).to(e)\n    v = scores.view(-1)\n"
        "    scores.add_(t)\n    return v.sum()\n",
    )

    suppresses += (  # a view of the function's own tensor, other names holding it: no tensor written while it is read
        "def f(labels: Tensor, n):\n    out = []\n    p = torch.where(labels > 0)[0]\n    rows = p.expand((n, len(p)))\n"
        "    out.append(p)\n    return rows.sum(), out\n",  # appending to a list of its own writes no tensor
    )
    keeps += (  # that tensor written in place while the view may still be read
        "def f(labels: Tensor, n):\n    p = torch.where(labels > 0)[0]\n    keep = p\n    rows = p.expand((n, len(p)))\n"
        "    p.add_(1)\n    return rows.sum() + keep\n",
    )

    suppresses += (  # `x.new(sizes)` makes a new tensor: the writes into it reach no view of `x`
        "def f(a: Tensor, b: Tensor, n):\n    c = a.new(a.shape)\n    re = a[..., 0].view(-1, n)\n"
        "    c[..., 0] = re * b\n    c[..., 1] = re * b\n    return c\n",
        "def f(a: Tensor, b: Tensor, n, k):\n    size = (*a.shape[:-1], 2)\n    if k:\n        size = [b.size(0), len(b)]\n"
        "    c = a.new(size)\n    re = a[..., 0].view(-1, n)\n    c[..., 0] = re * b\n"
        "    c[..., 1] = re * b\n    return c\n",
    )
    keeps += (  # given a tensor (or storage), `x.new(t)` shares its memory: the writes may reach the view
        "def f(a: Tensor, b: Tensor, n):\n    c = a.new(a)\n    re = a[..., 0].view(-1, n)\n"
        "    c[..., 0] = re * b\n    c[..., 1] = re * b\n    return c\n",
        "def f(a: Tensor, b: Tensor, n, k):\n    size = a.shape\n    if k:\n        size = a.untyped_storage()\n"
        "    c = a.new(size)\n    re = a[..., 0].view(-1, n)\n    c[..., 0] = re * b\n"
        "    c[..., 1] = re * b\n    return c\n",
    )

    suppresses += (  # a transposed convolution, a pseudo-inverse: new tensors, their operands only read
        "def f(x: Tensor, w: Tensor, n):\n    y = F.conv_transpose1d(x[:, :n], w)\n    return torch.pinverse(y[0])\n",
    )

    suppresses += (  # an einsum of two tensors makes a new one
        "def f(x: Tensor, w: Tensor, n):\n    rows = x[:n]\n    return torch.einsum('ij,jk->ik', rows, w)\n",
    )
    keeps += (  # an einsum of one tensor is a view of it (a permutation, a diagonal), returned
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return torch.einsum('ij->ji', rows)\n",
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return torch.einsum('ii->i', [rows])\n",
    )
    keeps += (  # a function of a module is no tensor method (`torch.autograd.grad` is not `t.grad`): unknown
        "import torch\n\ndef f(x: Tensor, y: Tensor, n):\n    v = y[:n]\n    g, = torch.autograd.grad(x, y, v)\n"
        "    return g\n",
    )
    keeps += (  # Python's max returns one of its arguments itself: maybe the view
        "def f(x: Tensor, y: Tensor, n):\n    return max(x[:n], y)\n",
    )
    # how the view lies in memory, not what it holds: its copy's layout differs (contiguous, its own storage)
    keeps += (
        "def f(x: Tensor, n):\n    rows = x[:, :n]\n    return rows.is_contiguous()\n",
        "def f(x: Tensor, n):\n    return x[:, :n].stride(0)\n",
        "def f(x: Tensor, n):\n    return x.t().data_ptr() == x.data_ptr()\n",
        "def f(x: Tensor, n):\n    return x[:, :n].view(-1)\n",  # raises for the slice, not for its copy
        "def f(x: Tensor, n):\n    rows = x[:, :n]\n    return torch.as_strided(rows, (n,), (1,))\n",
    )
    suppresses += (  # the name rebound to its own view: the old value's `.view` is the view made, not a use of it
        "def f(boxes: Tensor):\n    boxes = boxes.view(-1, 4, 2)\n    return boxes[..., 0].sum()\n",
    )
    # a function of torch the table has no row for, whose schema writes none of its arguments (a composite one may
    # hand an argument back: its result is followed like the view's)
    suppresses += (
        "import torch.nn.functional as F\n\ndef f(x: Tensor, y: Tensor, n):\n    rows = x[:, :n]\n"
        "    loss = F.cosine_similarity(rows, y)\n    return loss.mean()\n",
        "import torch\n\ndef f(a: Tensor, b: Tensor, n):\n    return torch.linalg.solve(a[:n, :n], b).sum()\n",
    )
    keeps += (
        "import torch.nn.functional as F\n\ndef f(x: Tensor, y: Tensor, n):\n    rows = x[:, :n]\n"
        "    return F.cosine_similarity(rows, y)\n",  # returned: maybe the view itself, for all the schema says
        "import torch\n\ndef f(x: Tensor, i: Tensor, v: Tensor, n):\n    rows = x[:n]\n"
        "    torch.index_put_(rows, (i,), v)\n    return x\n",  # its schema writes its first argument
    )
    # a torch function told to write its input in place (its `inplace` parameter, read from its signature)
    suppresses += (
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return F.relu(rows, inplace=False).sum() + F.silu(rows).sum()\n",
    )
    keeps += (
        "def f(x: Tensor, n, flag):\n    rows = x[:n]\n    y = F.silu(rows, inplace=flag)\n    return y.sum()\n",
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return F.relu(rows, True).sum()\n",  # by position
        "def f(x: Tensor, n):\n    rows = x[:n]\n    return F.dropout(rows, 0.1, False, True).sum()\n",
    )

    # an index by an integer tensor of one or more dimensions copies: the view is only read by it
    suppresses += (
        "def f(x: Tensor, n, k):\n    rows = x.expand(n, k)\n    pick = torch.randint(0, k, (n,))\n"
        "    return rows[torch.arange(n), pick]\n",
        "def f(x: Tensor, n):\n    rows = x.unsqueeze(0)\n    idx = (x > 0).nonzero().flatten()\n    return rows[:, idx]\n",
    )
    keeps += (  # a 0-dim integer tensor selects: a view that escapes
        "def f(x: Tensor, n, k):\n    rows = x.expand(n, k)\n    pick = torch.randint(0, k, ())\n"
        "    return rows[pick]\n",
        "def f(x: Tensor, n, k, shape):\n    rows = x.expand(n, k)\n    pick = torch.ones(shape, dtype=torch.long)\n"
        "    return rows[pick]\n",  # `shape` may be (): 0-dim
        "def f(x: Tensor, n, idx: Tensor):\n    rows = x.expand(n, 4)\n    return rows[idx]\n",
    )

    # a module class of torch held in an attribute: its own forward, read from torch's source (callees.py)
    suppresses += (
        TORCH_HELD.format(module="nn.Linear(d, d)") + "        return self.held(rows)\n",
        TORCH_HELD.format(module="nn.GELU()") + "        return self.held(rows).sum()\n",
    )
    keeps += (
        TORCH_HELD.format(module="nn.Dropout(0.1)") + "        return self.held(rows).sum()\n",  # maybe in place
        TORCH_HELD.format(module="nn.Identity()") + "        return self.held(rows)\n",  # hands its input back
        TORCH_HELD.replace("from torch import nn", "import mylib as nn").format(module="nn.Linear(d, d)") +
        "        return self.held(rows)\n",  # another module's class, named like torch's
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

    # a view of a tensor the function was given sees writes into it through any name: another argument may be the
    # same tensor (`f(x, x)`), a callee may hold it; a copy sees none of them (`Reads.quiet_after`)
    keeps += (
        "def f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n    other.zero_()\n    return rows.sum()\n",
        "def f(full: Tensor, other, n):\n    rows = full[:n]\n    other[0] = 1\n    return rows.sum()\n",
        "def f(full: Tensor, other, n):\n    rows = full[:n]\n    helper(other)\n    return rows.sum()\n",
        "def f(self, full: Tensor, n):\n    rows = full[:n]\n    self.reset()\n    return rows.sum()\n",
        "def f(x: Tensor, n):\n    full = x.t()\n    rows = full[:n]\n    x.zero_()\n    return rows.sum()\n",
        "def f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n    kept = rows.view(-1)\n    other.zero_()\n"
        "    return kept.sum()\n",  # read after the write through a name it was handed on to
        "def g(t):\n    t.zero_()\n    return 1\n\ndef f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n"
        "    g(other)\n    return rows.sum()\n",  # a function of the package writing its argument
        "def f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n    try:\n        raise Oops(other)\n"
        "    except Oops:\n        pass\n    return rows.sum()\n",  # an exception caught: the function goes on
    )
    # the base handed on or written elsewhere: a tensor the function did not make, nothing writing such a tensor
    # while the view is read
    suppresses += (
        "def f(x: Tensor, k, self):\n    self.kept = x\n    head = x[:, :k]\n    return torch.cat([head, x], 1)\n",
        "def f(self, n):\n    d = torch.diagonal(self.L)\n    return d.abs().log().sum()\n",
    )
    keeps += (
        "def f(x: Tensor, k):\n    out = torch.zeros(3, 3)\n    head = out[:, :k]\n    out[0] = 1\n"
        "    return head.sum()\n",  # a write into the function's own tensor: this one
        "def f(self, x: Tensor, k):\n    head = self.buf[:, :k]\n    self.buf.zero_()\n    return head.sum()\n",
    )
    suppresses += (
        "def f(full: Tensor, n, m):\n    rows = full[:n]\n    out = torch.zeros(m)\n    out[0] = 1\n    out += 2\n"
        "    return rows.sum() + out\n",  # writes only into what the function made
        "def f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n    s = rows.sum()\n    other.zero_()\n"
        "    return s\n",  # the write comes after the last read of the view
        "def f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n    if n < 0:\n        raise Oops(other)\n"
        "    return rows.sum()\n",  # an exception not caught here ends the function
        "import torch\n\ndef f(full: Tensor, a: Tensor, b: Tensor, n):\n    rows = full[:n]\n"
        "    if not torch.jit.is_scripting():\n        sol = torch.linalg.solve(a, b)\n    return rows.sum() + sol\n",
        "def g(t):\n    return t * 2\n\ndef f(full: Tensor, other: Tensor, n):\n    rows = full[:n]\n"
        "    y = g(other)\n    return rows.sum() + y\n",  # a function of the package that writes nothing
        "def f(x: Tensor, k):\n    vals, idx = x.sort()\n    top = idx[:, :k]\n    helper(x)\n"
        "    return top.sum()\n",  # a view of a new tensor nothing else holds: no other name can write it
        "def f(x: Tensor, k):\n    rows = x[:k]\n    vals, idx = x.sort()\n    vals.mul_(2)\n"
        "    return rows.sum() + vals\n",  # a write into a new tensor unpacked from a call
    )
    keeps += (
        "def f(x: Tensor, k, pair):\n    rows = x[:k]\n    vals, idx = pair\n    vals.mul_(2)\n"
        "    return rows.sum() + vals\n",  # unpacked from what the caller gave: maybe x
    )

    # an argument of a tensor's method that writes nothing is only read (`index_select`'s index, `gather`'s, `mul`'s
    # operand); the receiver must be a tensor (a method only tensors have, or one known to be), and `backward` may keep
    # the gradient it is given
    suppresses += (
        "def f(x: Tensor, i: Tensor):\n    return x.index_select(0, i.view(-1))\n",
        "def f(x, i: Tensor):\n    return x.gather(0, i.unsqueeze(-1))\n",
        "def f(x: Tensor, v: Tensor):\n    w = v.unsqueeze(-1)\n    return x.mul(w)\n",
        # a callee of the package that only reads its parameter on each of its paths
        "def g(rhs):\n    if rhs.ndimension() == 1:\n        return rhs.sum(-1)\n    return rhs.sum(-2)\n\n"
        "def f(x: Tensor):\n    return g(x.t())\n",
    )
    keeps += (
        "def f(x, v: Tensor):\n    w = v.unsqueeze(-1)\n    return x.mul(w)\n",  # anything's `mul`: it may keep w
        "def f(x: Tensor, v: Tensor):\n    w = v[1:]\n    x.copy_(w)\n    return x\n",  # x may be v
        "def f(x: Tensor, v: Tensor):\n    y = x * 2\n    y.backward(v[1:])\n    return x.grad\n",
    )
    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        node = mutant.node
        root = storage_root(node, flow=ctx.flow)
        if root is node or not is_tensor(node, ctx.flow) or not ctx.reads.only_read(node, set(), DEPTH):
            return False
        if isinstance(root, cst.Name) and ctx.reads.name_only_read(root, {id(node)}, set(), DEPTH):
            return ctx.reads.made_fresh(root) or ctx.reads.quiet_from(node, made=True)
        # the base's names hand it on or write it: fine when nothing may write such a tensor while the view is read:
        # for a tensor the function did not make, no write but into the function's own tensors; for one of its own
        # (which such a write may be into), no tensor write at all
        return ctx.reads.quiet_from(node, made=True, strict=ctx.reads.own_storage(root))


@rule
class ViewReturnedToReaders(Rule):
    name = "view_returned_to_readers"
    reason = ("the view is returned by a private or nested function or method whose every call in the package only "
              "reads the result, and nothing writes a tensor after the view is made until those reads are over")
    examples_operators = VIEW
    suppresses = (
        "def _parts(x: Tensor):\n    return x[..., :1], x[..., 1:]\n\n"
        "def f(x: Tensor):\n    a, b = _parts(x)\n    return a.sum() + b.mean()\n",
        "def _head(x: Tensor, n):\n    h = x[:n]\n    return h\n\n"
        "def f(x: Tensor):\n    return torch.cat([_head(x, 2), x]) * _head(x, 1).sum()\n",
        # a method: every `obj._split(...)` of the package, whatever `obj`, only read
        "class Net:\n    def _split(self, x: Tensor):\n        return x[:, :2], x[:, 2:]\n\n"
        "    def forward(self, x: Tensor):\n        a, b = self._split(x)\n        return a * b.sum()\n",
        # a view of the callee's own new tensor: the caller may write its own tensors meanwhile
        "def _top(x: Tensor, k):\n    idx = torch.argsort(x, dim=1).flip(1)\n    return idx.narrow(1, 0, k)\n\n"
        "def f(x: Tensor, k):\n    out = torch.zeros_like(x)\n    out.scatter_(1, _top(x, k), 1.0)\n    return out\n",
        # a function nested in another: its calls are those of its name there
        "def f(x: Tensor):\n    def head(t: Tensor):\n        return t[:2]\n    return head(x).sum() + head(x * 2).mean()\n",
    )
    keeps = (
        "def _head(x: Tensor, n):\n    return x[:n]\n\ndef f(x: Tensor):\n    h = _head(x, 2)\n    h.zero_()\n"
        "    return x\n",  # a caller writes through it
        "def _head(x: Tensor, n):\n    return x[:n]\n\ndef f(x: Tensor):\n    h = _head(x, 2)\n    x.add_(1)\n"
        "    return h.sum()\n",  # a caller writes its base while it is read
        "def _head(x: Tensor, n):\n    return x[:n]\n\ndef f(x: Tensor):\n    return _head(x, 2)\n",  # handed on
        "def f(x: Tensor):\n    def head(t: Tensor):\n        return t[:2]\n    return head(x)\n",
        "def _head(n):\n    buf = torch.zeros(n)\n    h = buf[:2]\n    buf.fill_(1)\n    return h\n\n"
        "def f(n):\n    return _head(n).sum()\n",  # its base written after it is made
        "def _head(n):\n    buf = torch.zeros(n)\n    h = buf[:2]\n    buf[0] = 1\n    return h\n\n"
        "def f(n):\n    return _head(n).sum()\n",
        "def head(x: Tensor, n):\n    return x[:n]\n\ndef f(x: Tensor):\n    return head(x, 2).sum()\n",  # public
        "def _head(x: Tensor, n):\n    return x[:n]\n\ndef f(x: Tensor, g=_head):\n    return g(x, 2).sum()\n",
        "def _head(x: Tensor, n):\n    return x[:n]\n\ndef f(x: Tensor):\n    return _head(x, 2).stride(0)\n",  # layout
        "def _head(x: Tensor, n):\n    return x[:n]\n\ndef f(n):\n    buf = torch.zeros(n)\n    h = _head(buf, 2)\n"
        "    buf.fill_(1)\n    return h.sum()\n",  # the caller writes its own tensor, the view's base
        "class Net:\n    def _split(self, x: Tensor):\n        return x[:, :2], x[:, 2:]\n\n"
        "    def forward(self, x: Tensor):\n        a, b = self._split(x)\n        return a * b.sum()\n\n"
        "    def step(self, x: Tensor):\n        return self._split(x)\n",  # one caller hands it on
        "class Net:\n    def _split(self, x: Tensor):\n        return x[:, :2], x[:, 2:]\n\n"
        "    def forward(self, x: Tensor):\n        a, b = getattr(self, '_split')(x)\n        return a * b.sum()\n",
        "class Net:\n    def _split(self, x: Tensor):\n        return x[:, :2], x[:, 2:]\n\n"
        "    def forward(self, x: Tensor, f=None):\n        f = f or self._split\n        a, b = f(x)\n"
        "        return a * b.sum()\n",  # called through another name
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        node, flow = mutant.node, ctx.flow
        if storage_root(node, flow=flow) is node or not is_tensor(node, flow):
            return False
        function = function_of(flow, node)
        if function is None or any(isinstance(n, (cst.Yield, cst.Await)) for n in cst_walk(function.body)):
            return False
        calls = ctx.callees.calls(flow, function)
        if not calls or not Reads(flow, ctx.callees, returns_of=function).only_read(node, set(), DEPTH):
            return False
        statement = flow.statement(node) or flow.statement_part(node)
        if statement is None or not writes_no_tensor(ctx.reads, statement, after=node) or \
                not all(writes_no_tensor(ctx.reads, later) for later in flow.after(statement)):
            return False
        root = storage_root(node, flow=flow)
        own = isinstance(root, cst.Name) and ctx.reads.made_fresh(root) and \
            ctx.reads.name_only_read(root, {id(node)}, set(), DEPTH)  # a base no caller can hold
        return all(_result_only_read(ctx.callees.reads_of(caller), call, own) for caller, call in calls)


def _result_only_read(reads: Reads | None, call: cst.Call, own: bool) -> bool:
    """Is the result of `call` only read where it goes (a tuple unpacked to names that are each only read), and
    nothing written while it may still be read: no tensor the caller did not make, or, unless the view's base is
    the callee's `own` new tensor, no tensor at all (the caller may have passed its own tensor, the view's base)?"""
    if reads is None:
        return False
    flow = reads.flow
    parent = flow.parent(call)
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1 and \
            isinstance(parent.targets[0].target, (cst.Tuple, cst.List)):
        elements = parent.targets[0].target.elements
        if not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in elements) or \
                not all(reads.name_only_read(e.value, set(), set(), DEPTH, after=parent) for e in elements):
            return False
    elif not reads.only_read(call, set(), DEPTH):
        return False
    return reads.quiet_from(call, made=True, strict=not own)


@rule
class ViewReadAtOnce(Rule):
    name = "view_read_at_once"
    reason = ("the view is read once where it is made, by an operation that returns a new value, in a "
              "statement that writes nothing: no write can land between making it and reading it")
    examples_operators = VIEW
    suppresses = (
        "def f(boxes: Tensor):\n    check(boxes)\n    return (boxes[:, 4:, 2] - boxes[:, :4, 2] + 1)[:, 0]\n",
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
        "def jvp(ctx, dx):\n    u, v = ctx.saved_for_forward\n    return (u.transpose(-1, -2) @ dx) @ v\n",
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
        "def f(x, dims):\n    return max(dims[1:])\n",  # maybe a tuple
        "def f(x: Tensor):\n    return torch.cat(x.split(2)[1:])\n",  # a tensor's split: a tuple of them
        "def f(x: Tensor):\n    return torch.cat(x.nonzero(as_tuple=True)[1:])\n",  # a tuple of index tensors
        "def backward(ctx, g):\n    size, out = ctx.saved_values\n"
        "    return g.sum(-1) / size.to(g.dtype).squeeze(-1)\n",  # an attribute not known to hold tensors
        "def f(xs: Optional[list] = None):\n    return max(xs[1:])\n",  # annotated, but not a tensor
    )

    suppresses += (  # a jaxtyping annotation of torch's tensor type
        "from jaxtyping import Float\nfrom torch import Tensor\n\ndef f(x: Float[Tensor, 'b n'], n):\n"
        "    return torch.cat([x[:n], x])\n",
    )
    suppresses += (  # `import torch.jit` binds `torch` again, to the same package
        "import torch\nimport torch.jit\n\ndef f(x: torch.Tensor, n):\n    return torch.cat([x[:n], x])\n",
    )
    keeps += (  # a `Tensor` of another library
        "from tensorflow import Tensor\n\ndef f(x: Tensor, n):\n    return torch.cat([x[:n], x])\n",
    )

    # a function of torch the table lacks whose schema returns a tensor: its result is one
    suppresses += (
        "import torch\n\ndef f(a: Tensor, n):\n    return torch.linalg.cholesky(a).diagonal().log().sum()\n",
    )
    keeps += (
        "import torch\n\ndef f(a: Tensor, n):\n    return len(torch.linalg.qr(a)[1:])\n",  # a tuple's slice
        "import torch\n\ndef f(a: Tensor, n):\n    return len(torch.linalg.eigh(a)[:1])\n",
    )
    suppresses += (  # the elements of a tuple of tensors a torch function returns, by its schema
        "import torch\n\ndef f(a: Tensor):\n    w, v = torch.linalg.eigh(a)\n"
        "    return v @ torch.diag_embed(w) @ v.transpose(-1, -2)\n",
    )
    # a parameter the function made sure is a tensor before the view, on every path (a type guard, or a method only
    # tensors have called on it): any other value raises there, in the mutant as in the original
    suppresses += (
        "import torch\n\ndef f(t):\n    assert isinstance(t, torch.Tensor), 't'\n    return len(t[1:])\n",
        "import torch\n\ndef f(t):\n    if not torch.is_tensor(t):\n        raise TypeError('t')\n"
        "    return len(t[1:])\n",
        "def f(t, n):\n    d = t.dim()\n    return len(t[:n]) * d\n",
        "import torch\n\ndef f(t, n):\n    assert n > 0 and isinstance(t, torch.Tensor)\n    for i in range(n):\n"
        "        total = len(t[i:])\n    return total\n",
    )
    keeps += (
        "import torch\n\ndef f(t, flag):\n    if flag:\n        assert isinstance(t, torch.Tensor)\n"
        "    return len(t[1:])\n",  # made sure on one path only
        "def f(t, flag):\n    n = flag and t.dim()\n    return len(t[1:])\n",  # a method called on some runs only
        "import numpy as np\n\ndef f(t):\n    assert isinstance(t, np.ndarray)\n    return len(t[1:])\n",
        "import torch\n\ndef f(t):\n    if not isinstance(t, torch.Tensor):\n        print('t')\n"
        "    return len(t[1:])\n",  # a check that does not stop the run
        "import torch\n\ndef f(t):\n    assert isinstance(t, torch.Tensor) or t is None\n    return len(t[1:])\n",
        "def f(t, n):\n    return len(t[:n]) * t.dim()\n",  # the method runs after the view
    )

    # what runs after the read, in the same statement, cannot reach the view: only what the reading expression
    # evaluates (its other operands, arguments) must write nothing
    suppresses += (
        "def f(x: Tensor, u: Tensor):\n    return u - x @ helper(x.transpose(-1, -2) @ u)\n",
    )
    keeps += (
        "def f(x: Tensor, u: Tensor):\n    return helper(x.transpose(-1, -2) @ helper(x))\n",  # before the read
        "def f(x: Tensor, u: Tensor):\n    return torch.cat([x.t(), helper(x)])\n",  # a later element
        "def f(x: Tensor, u: Tensor):\n    return (x.t() if u.any() else u) @ helper(u)\n",
    )
    # a local name bound to torch functions by their names is a call of one of them
    suppresses += (
        "def f(x: Tensor, flag):\n    fn = torch.sum if flag else torch.mean\n    return fn(x[:, 1:])\n",
        "import torch.nn.functional as F\n\ndef f(x: Tensor, y, flag):\n    fn = F.l1_loss if flag else F.mse_loss\n"
        "    return fn(x[:, 1:], y) * 2\n",
    )
    keeps += (
        "import torch.nn.functional as F\n\ndef f(x: Tensor, y, flag, g):\n    fn = F.l1_loss if flag else g\n"
        "    return fn(x[:, 1:], y) * 2\n",  # or the caller's function
        "import torch.nn.functional as F\n\ndef f(x: Tensor, flag):\n    fn = F.relu if flag else F.dropout\n"
        "    return fn(x[:, 1:], inplace=flag) * 2\n",  # told to write in place
        "def f(x: Tensor, flag, g):\n    fn = torch.sum\n    if flag:\n        fn = g\n    return fn(x[:, 1:])\n",
        "from mylib import total\n\ndef f(x: Tensor, flag):\n    fn = torch.sum if flag else total\n"
        "    return fn(x[:, 1:])\n",  # another library's
    )
    # what Python evaluates before the view is made (a left operand, an earlier argument) cannot write into it
    suppresses += (
        "def f(x: Tensor, u: Tensor):\n    return x @ helper(u) @ x.transpose(-1, -2)\n",
        "def f(x: Tensor, u: Tensor):\n    return torch.cat([helper(u), x.t()])\n",
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        if not is_tensor(mutant.node, ctx.flow):
            return False
        consumer = ctx.reads.consumer(mutant.node)
        return consumer is not None and ctx.reads.writes_nothing(consumer, after=mutant.node)
