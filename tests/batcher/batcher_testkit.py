"""Tiny float64 models, distinct per-invoke inputs, and plain-torch references (solo forward, reference_grad)."""

import torch
from torch import nn

D = 4
T = 3
EXPERTS = 4
DTYPE = torch.float64


def rows(n, seed, *trailing):
    """n distinct input rows of shape (n, *trailing) (default (n, D)), fixed by seed."""
    g = torch.Generator().manual_seed(1000 + seed)
    return torch.randn(n, *(trailing or (D,)), generator=g, dtype=DTYPE)


def tokens(n, seed):
    """n distinct sequences of T tokens: shape (n, T, D)."""
    return rows(n, seed, T, D)


def same(actual, expected):
    """Exact-enough float64 equality, shapes included."""
    torch.testing.assert_close(actual, expected, atol=1e-10, rtol=0)


def differs(a, b):
    """True when two tensors differ in shape or by more than round-off."""
    return a.shape != b.shape or not torch.allclose(a, b, atol=1e-6, rtol=0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Linear(D, D, dtype=DTYPE)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.mlp(x))


class MLP(nn.Module):
    """layers.0 / layers.1 (each .mlp, .act), then head; forward(x, scale=1.0)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(D, 3, dtype=DTYPE)

    def forward(self, x, scale=1.0):
        for block in self.layers:
            x = block(x)
        return self.head(x) * scale


class Strided(nn.Module):
    """Returns a non-contiguous view: batch dim not outermost (stride (1, N)) and storage offset N."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D + 1, dtype=DTYPE)

    def forward(self, x):
        return self.lin(x).t().contiguous().t()[:, 1:]


class StridedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(D, D, dtype=DTYPE)
        self.odd = Strided()
        self.head = nn.Linear(D, 3, dtype=DTYPE)

    def forward(self, x):
        return self.head(torch.tanh(self.odd(torch.tanh(self.first(x)))))


class FlatNet(nn.Module):
    """(B, T, D) -> embed -> flat (B*T, D) -> mix -> unflat (B, T, D) -> head."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(D, D, dtype=DTYPE)
        self.flat = nn.Flatten(0, 1)
        self.mix = nn.Linear(D, D, dtype=DTYPE)
        self.unflat = nn.Unflatten(0, (-1, T))
        self.head = nn.Linear(D, 3, dtype=DTYPE)

    def forward(self, x):
        return self.head(torch.tanh(self.unflat(self.mix(self.flat(torch.tanh(self.embed(x)))))))


class TinyMoE(nn.Module):
    """A top-1 mixture of experts whose router works on flattened (B*T, D) tokens."""

    def __init__(self):
        super().__init__()
        self.router = nn.Linear(D, EXPERTS, dtype=DTYPE)
        self.experts = nn.ModuleList([nn.Linear(D, D, dtype=DTYPE) for _ in range(EXPERTS)])

    def forward(self, x):
        b, t, d = x.shape
        flat = x.reshape(b * t, d)
        weight, choice = self.router(flat).softmax(-1).max(-1)
        every = torch.stack([expert(flat) for expert in self.experts], 1)
        picked = every[torch.arange(flat.shape[0]), choice]
        return (flat + weight[:, None] * picked).reshape(b, t, d)


class MoENet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(D, D, dtype=DTYPE)
        self.moe = TinyMoE()
        self.head = nn.Linear(D, 3, dtype=DTYPE)

    def forward(self, x):
        return self.head(self.moe(torch.tanh(self.embed(x))))


class Gram(nn.Module):
    """A (D, D) feature statistic of the whole batch: its rows are not batch rows."""

    def forward(self, h):
        return h.t() @ h / h.shape[0]


class GramNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D, dtype=DTYPE)
        self.gram = Gram()
        self.head = nn.Linear(D, 3, dtype=DTYPE)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        return self.head(h @ self.gram(h))


class Pair(nn.Module):
    """Returns a tuple: the batched (N, D) activation and a non-batched (D,) tensor."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D, dtype=DTYPE)

    def forward(self, x):
        return self.lin(x), self.lin.bias


class PairNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = Pair()
        self.head = nn.Linear(D, 3, dtype=DTYPE)

    def forward(self, x):
        h, b = self.pair(x)
        return self.head(torch.tanh(h + b))


def make(cls):
    """A fresh model with seed-fixed weights."""
    torch.manual_seed(0)
    return cls()


def solo(model, x, path=None, fn=None, site="output", **kwargs):
    """Plain torch on x alone, with fn applied at path (in place when it returns None)."""
    handles = []
    if path is not None:
        module = dict(model.named_modules())[path]
        if site == "output":

            def hook(m, args, out):
                new = fn(out)
                return out if new is None else new

            handles.append(module.register_forward_hook(hook))
        else:

            def pre(m, args):
                new = fn(args[0])
                return None if new is None else (new,)

            handles.append(module.register_forward_pre_hook(pre))
    try:
        return model(x, **kwargs)
    finally:
        for h in handles:
            h.remove()


def reference_grad(model, x, path, loss=lambda out: out.sum(), edit=None):
    """Plain autograd: d loss(model(x)) / d (output of path), for x alone (edit applied to it in backward)."""
    seen = {}
    module = dict(model.named_modules())[path]

    def capture(g):
        if edit is not None:
            g = g.clone()
            edit(g)
        seen["grad"] = g
        return g

    handle = module.register_forward_hook(lambda m, a, out: out.register_hook(capture) and None)
    try:
        loss(model(x)).backward()
    finally:
        handle.remove()
    return seen["grad"]


def param_grads(model):
    """Every parameter's gradient, by name; resets them for the next backward."""
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return grads
