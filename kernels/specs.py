"""OP_SPECS: every differentiable kernels op, its logical-sample inputs, stable gradient names, contract and fp64 reference."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from teeth.invariance.specs import OpSpec, Param, TokenInput


def _rms_ref(a, cu_q, cu_k):
    x, w = a["x"], a["weight"]
    return (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w,)


def _attention_ref(a, cu_q, cu_k):
    q, k, v = a["q"], a["k"], a["v"]
    out = torch.zeros_like(q)
    bq, bk = cu_q.tolist(), cu_k.tolist()
    for qs, qe, ks, ke in zip(bq[:-1], bq[1:], bk[:-1], bk[1:]):
        lq, lk = qe - qs, ke - ks
        scores = torch.einsum("qhd,khd->hqk", q[qs:qe], k[ks:ke]) / math.sqrt(q.shape[-1])
        allowed = torch.arange(lk)[None, :] <= torch.arange(lq)[:, None] + (lk - lq)
        p = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = out.index_put((torch.arange(qs, qe),), torch.einsum("hqk,khd->qhd", p, v[ks:ke]))
    return (out,)


def _logprob_ref(a, cu_q, cu_k):
    lp = torch.log_softmax(a["logits"], dim=-1).gather(1, a["targets"][:, None])[:, 0]
    return (torch.where(a["mask"], lp, torch.zeros_like(lp)),)


def _rope_ref(a, cu_q, cu_k):
    dh = a["q"].shape[-1]
    inv_freq = 1.0 / (10000.0 ** (torch.arange(dh // 2, dtype=torch.float64) * 2.0 / dh))
    ang = a["positions"].double()[:, None] * inv_freq[None, :]
    cos, sin = torch.cos(ang)[:, None, :], torch.sin(ang)[:, None, :]

    def rot(x):
        x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    return rot(a["q"]), rot(a["k"])


D, H, DH, V, N_OUT = 40, 3, 12, 67, 36  # H = 3: a head mask that is not a power of two
# Few embedding rows, so that the samples' tokens share rows: an order-dependent (atomic) dweight
# accumulation then has three or more additions to one address, where the order changes the bits.
EMBED_ROWS = 5

OP_SPECS: dict[str, OpSpec] = {
    spec.name: spec
    for spec in (
        OpSpec(
            "rmsnorm",
            (TokenInput("x", (D,), grad="rmsnorm.dx"),),
            (Param("weight", (D,), "rmsnorm.dweight", offset=1.0, scale=0.1),),
            (("y", (D,)),),
            lambda fn, a, cu_q, cu_k: (fn(a["x"], a["weight"], cu_q),),
            _rms_ref,
        ),
        OpSpec(
            "linear",
            (TokenInput("x", (D,), grad="linear.dx"),),
            (Param("weight", (N_OUT, D), "linear.dweight", scale=0.2),),
            (("y", (N_OUT,)),),
            lambda fn, a, cu_q, cu_k: (fn(a["x"], a["weight"], cu_q),),
            lambda a, cu_q, cu_k: (a["x"] @ a["weight"].T,),
        ),
        OpSpec(
            "attention",
            (
                TokenInput("q", (H, DH), grad="attention.dq"),
                TokenInput("k", (H, DH), window="prefix", grad="attention.dk"),
                TokenInput("v", (H, DH), window="prefix", grad="attention.dv"),
            ),
            (),
            (("out", (H, DH)),),
            lambda fn, a, cu_q, cu_k: (fn(a["q"], a["k"], a["v"], cu_q, cu_k),),
            _attention_ref,
        ),
        OpSpec(
            "embedding",
            (TokenInput("ids", kind="index", high=EMBED_ROWS),),
            (Param("weight", (EMBED_ROWS, D), "embedding.dweight"),),
            (("y", (D,)),),
            lambda fn, a, cu_q, cu_k: (fn(a["ids"], a["weight"], cu_q),),
            lambda a, cu_q, cu_k: (a["weight"][a["ids"]],),
        ),
        OpSpec(
            "lm_head",
            (TokenInput("x", (D,), grad="lm_head.dx"),),
            (Param("weight", (V, D), "lm_head.dweight", scale=0.2),),
            (("logits", (V,)),),
            lambda fn, a, cu_q, cu_k: (fn(a["x"], a["weight"], cu_q),),
            lambda a, cu_q, cu_k: (a["x"] @ a["weight"].T,),
        ),
        OpSpec(
            "selected_logprob",
            (
                TokenInput("logits", (V,), grad="selected_logprob.dlogits"),
                TokenInput("targets", kind="index", high=V),
                TokenInput("mask", kind="mask"),
            ),
            (),
            (("logprob", ()),),
            lambda fn, a, cu_q, cu_k: (fn(a["logits"], a["targets"], a["mask"]),),
            _logprob_ref,
            active="mask",
        ),
        OpSpec(
            "rope",
            (
                TokenInput("q", (H, DH), grad="rope.dq"),
                TokenInput("k", (H, DH), grad="rope.dk"),
                TokenInput("positions", kind="position"),
            ),
            (),
            (("q_out", (H, DH)), ("k_out", (H, DH))),
            lambda fn, a, cu_q, cu_k: tuple(fn(a["q"], a["k"], a["positions"])),
            _rope_ref,
        ),
        OpSpec(
            "silu",
            (TokenInput("x", (D,), grad="silu.dx"),),
            (),
            (("y", (D,)),),
            lambda fn, a, cu_q, cu_k: (fn(a["x"]),),
            lambda a, cu_q, cu_k: (F.silu(a["x"]),),
        ),
        OpSpec(
            "swiglu",
            (TokenInput("gate", (D,), grad="swiglu.dgate"), TokenInput("up", (D,), grad="swiglu.dup")),
            (),
            (("y", (D,)),),
            lambda fn, a, cu_q, cu_k: (fn(a["gate"], a["up"]),),
            lambda a, cu_q, cu_k: (F.silu(a["gate"]) * a["up"],),
        ),
    )
}
