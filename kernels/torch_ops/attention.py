"""Causal attention over packed samples in torch with an explicit backward (dq, dk, dv) in a fixed order."""
import math

import torch


def _dot_last(a, b):
    """a[Lq, Dh] x b[Lk, Dh] -> [Lq, Lk], summing over Dh in order."""
    acc = a[:, None, 0] * b[None, :, 0]
    for d in range(1, a.shape[1]):
        acc = acc + a[:, None, d] * b[None, :, d]
    return acc


def _mix(w, vals):
    """w[L, M] x vals[M, Dh] -> [L, Dh], summing over M in order."""
    acc = w[:, 0, None] * vals[None, 0, :]
    for j in range(1, w.shape[1]):
        acc = acc + w[:, j, None] * vals[None, j, :]
    return acc


def _probs(q, k, scale):
    lq, lk = q.shape[0], k.shape[0]
    scores = _dot_last(q, k) * scale
    qpos = torch.arange(lq, device=q.device)[:, None] + (lk - lq)
    allowed = torch.arange(lk, device=q.device)[None, :] <= qpos
    scores = torch.where(allowed, scores, torch.full_like(scores, float("-inf")))
    exp = torch.exp(scores - scores.amax(dim=1, keepdim=True))
    total = exp[:, 0]
    for j in range(1, lk):
        total = total + exp[:, j]
    return exp / total[:, None]


def _segments(cu_q, cu_k):
    bq, bk = cu_q.tolist(), cu_k.tolist()
    return zip(bq, bq[1:], bk, bk[1:])


class Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, cu_q, cu_k):
        qf = q.float()  # also the dtype of `out`, saved for the backward's delta
        kf = k.float()  # teeth: equivalent(low_precision_accumulation): kf meets only fp32 qf, ds; dk, allocated like kf, is stored once per element; torch computes bf16 x fp32 in fp32, exactly
        vf = v.float()  # teeth: equivalent(low_precision_accumulation): vf meets only fp32 p, doh; dv, allocated like vf, is stored once per element; torch computes bf16 x fp32 in fp32, exactly
        scale = 1.0 / math.sqrt(q.shape[-1])
        out = torch.zeros_like(qf)
        for qs, qe, ks, ke in _segments(cu_q, cu_k):
            if qe <= qs:
                continue
            for h in range(q.shape[1]):
                p = _probs(qf[qs:qe, h], kf[ks:ke, h], scale)  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
                out[qs:qe, h] = _mix(p, vf[ks:ke, h])  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
        ctx.save_for_backward(qf, kf, vf, out, cu_q, cu_k)
        ctx.dtypes = (q.dtype, k.dtype, v.dtype)
        return out.to(q.dtype)

    @staticmethod
    def backward(ctx, dout):
        qf, kf, vf, out, cu_q, cu_k = ctx.saved_tensors
        scale = 1.0 / math.sqrt(qf.shape[-1])
        do = dout.float()  # teeth: equivalent(low_precision_accumulation): do only meets fp32 operands (vh, out, p); torch computes bf16 x fp32 in fp32, exactly
        dq, dk, dv = torch.zeros_like(qf), torch.zeros_like(kf), torch.zeros_like(vf)
        for qs, qe, ks, ke in _segments(cu_q, cu_k):
            if qe <= qs:
                continue
            for h in range(qf.shape[1]):
                qh, kh, vh, doh = qf[qs:qe, h], kf[ks:ke, h], vf[ks:ke, h], do[qs:qe, h]  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
                p = _probs(qh, kh, scale)
                dp = _dot_last(doh, vh)
                oh = out[qs:qe, h]  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
                delta = doh[:, 0] * oh[:, 0]
                for d in range(1, qf.shape[-1]):
                    delta = delta + doh[:, d] * oh[:, d]
                ds = p * (dp - delta[:, None]) * scale
                dq[qs:qe, h] = _mix(ds, kh)
                dk[ks:ke, h] = _mix(ds.T.contiguous(), qh)
                dv[ks:ke, h] = _mix(p.T.contiguous(), doh)
        qd, kd, vd = ctx.dtypes
        return dq.to(qd), dk.to(kd), dv.to(vd), None, None


def attention(q, k, v, cu_seqlens_q, cu_seqlens_k):
    """Causal softmax(q k^T / sqrt(Dh)) v per sample; sample b's queries are its last len_q_b keys."""
    return Attention.apply(q, k, v, cu_seqlens_q, cu_seqlens_k)
