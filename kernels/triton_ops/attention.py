"""Triton causal attention over packed samples, one program per (token, head); explicit backward.

Sample b's queries are the last len_q of its len_k keys (causal offset len_k - len_q).
Key tiles start at the sample's first key and queries' tiles at its first query, so a
token's result never depends on the other samples in the batch.
"""

import math

import torch
import triton
import triton.language as tl

from ._common import bounds, f32

BLOCK_N = 16  # keys per tile (forward, dq)
BLOCK_M = 16  # queries per tile (dk, dv)


@triton.jit
def _sample_of(seq_ptr, cu_q_ptr, cu_k_ptr, token):
    b = tl.load(seq_ptr + token).to(tl.int64)
    q_start = tl.load(cu_q_ptr + b)
    k_start = tl.load(cu_k_ptr + b)
    len_q = tl.load(cu_q_ptr + b + 1) - q_start
    len_k = tl.load(cu_k_ptr + b + 1) - k_start
    return q_start, k_start, len_q, len_k


@triton.jit
def _attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, seq_q_ptr, cu_q_ptr, cu_k_ptr,
                   H, DH, scale, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1)
    q_start, k_start, len_q, len_k = _sample_of(seq_q_ptr, cu_q_ptr, cu_k_ptr, t)
    last = len_k - len_q + (t - q_start)  # last visible key, sample-relative
    d = tl.arange(0, BLOCK_D)
    d_ok = d < DH
    row = H * DH
    q = tl.load(q_ptr + t * row + h * DH + d, mask=d_ok, other=0.0).to(tl.float32)
    m_i = tl.max(tl.full([BLOCK_N], float("-inf"), dtype=tl.float32), axis=0)
    l_i = tl.sum(tl.zeros([BLOCK_N], dtype=tl.float32), axis=0)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for j0 in range(0, last + 1, BLOCK_N):
        j = j0 + tl.arange(0, BLOCK_N)
        j_ok = j <= last
        offs = (k_start + j)[:, None] * row + h * DH + d[None, :]
        ok = j_ok[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        s = tl.where(j_ok, tl.sum(k * q[None, :], axis=1) * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m_i = m_new
    tl.store(o_ptr + t * row + h * DH + d, acc / l_i, mask=d_ok)
    tl.store(lse_ptr + t * H + h, m_i + tl.log(l_i))


@triton.jit
def _attention_bwd_dq(q_ptr, k_ptr, v_ptr, o_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr,
                      seq_q_ptr, cu_q_ptr, cu_k_ptr, H, DH, scale,
                      BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    """dq = scale * sum_j p_ij (dp_ij - delta_i) k_j over key tiles in order; stores delta."""
    t = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1)
    q_start, k_start, len_q, len_k = _sample_of(seq_q_ptr, cu_q_ptr, cu_k_ptr, t)
    last = len_k - len_q + (t - q_start)
    d = tl.arange(0, BLOCK_D)
    d_ok = d < DH
    row = H * DH
    here = t * row + h * DH + d
    q = tl.load(q_ptr + here, mask=d_ok, other=0.0).to(tl.float32)
    o = tl.load(o_ptr + here, mask=d_ok, other=0.0).to(tl.float32)
    do = tl.load(do_ptr + here, mask=d_ok, other=0.0).to(tl.float32)
    delta = tl.sum(o * do, axis=0)
    tl.store(delta_ptr + t * H + h, delta)
    lse = tl.load(lse_ptr + t * H + h)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for j0 in range(0, last + 1, BLOCK_N):
        j = j0 + tl.arange(0, BLOCK_N)
        j_ok = j <= last
        offs = (k_start + j)[:, None] * row + h * DH + d[None, :]
        ok = j_ok[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        p = tl.where(j_ok, tl.exp(tl.sum(k * q[None, :], axis=1) * scale - lse), 0.0)
        ds = p * (tl.sum(v * do[None, :], axis=1) - delta)
        acc += tl.sum(ds[:, None] * k, axis=0)
    tl.store(dq_ptr + here, acc * scale, mask=d_ok)


@triton.jit
def _attention_bwd_dkdv(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr,
                        seq_k_ptr, cu_q_ptr, cu_k_ptr, H, DH, scale,
                        BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    """dv_j = sum_i p_ij do_i; dk_j = scale * sum_i ds_ij q_i; query tiles of the sample in order."""
    s_tok = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1)
    q_start, k_start, len_q, len_k = _sample_of(seq_k_ptr, cu_q_ptr, cu_k_ptr, s_tok)
    first = (s_tok - k_start) - (len_k - len_q)  # first query (sample-relative) that sees this key
    first = tl.maximum(first, 0)
    d = tl.arange(0, BLOCK_D)
    d_ok = d < DH
    row = H * DH
    here = s_tok * row + h * DH + d
    k = tl.load(k_ptr + here, mask=d_ok, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + here, mask=d_ok, other=0.0).to(tl.float32)
    dk = tl.zeros([BLOCK_D], dtype=tl.float32)
    dv = tl.zeros([BLOCK_D], dtype=tl.float32)
    for i0 in range((first // BLOCK_M) * BLOCK_M, len_q, BLOCK_M):
        i = i0 + tl.arange(0, BLOCK_M)
        i_ok = (i < len_q) & (i >= first)
        tok = q_start + i
        offs = tok[:, None] * row + h * DH + d[None, :]
        ok = i_ok[:, None] & d_ok[None, :]
        q = tl.load(q_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        do = tl.load(do_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        lse = tl.load(lse_ptr + tok * H + h, mask=i_ok, other=0.0)
        delta = tl.load(delta_ptr + tok * H + h, mask=i_ok, other=0.0)
        p = tl.where(i_ok, tl.exp(tl.sum(q * k[None, :], axis=1) * scale - lse), 0.0)
        dv += tl.sum(p[:, None] * do, axis=0)
        ds = p * (tl.sum(do * v[None, :], axis=1) - delta)
        dk += tl.sum(ds[:, None] * q, axis=0)
    tl.store(dk_ptr + here, dk * scale, mask=d_ok)
    tl.store(dv_ptr + here, dv, mask=d_ok)


def _sample_ids(cu: torch.Tensor) -> torch.Tensor:
    n_samples = cu.numel() - 1
    lengths = cu[1:] - cu[:-1]  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
    return torch.repeat_interleave(torch.arange(n_samples, device=cu.device), lengths).contiguous()


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, cu_seqlens_q, cu_seqlens_k):
        q32, k32, v32 = f32(q), f32(k), f32(v)
        cu_q, cu_k = bounds(cu_seqlens_q), bounds(cu_seqlens_k)
        n_q, heads, head_dim = q32.shape
        seq_q = _sample_ids(cu_q)
        o = torch.empty_like(q32)
        lse = torch.empty((n_q, heads), dtype=torch.float32, device=q.device)
        scale = 1.0 / math.sqrt(head_dim)
        _attention_fwd[(n_q, heads)](q32, k32, v32, o, lse, seq_q, cu_q, cu_k, heads, head_dim,
                                     scale, BLOCK_N=BLOCK_N,
                                     BLOCK_D=triton.next_power_of_2(head_dim))
        ctx.save_for_backward(q32, k32, v32, o, lse, cu_q, cu_k, seq_q)
        ctx.scale, ctx.dtypes = scale, (q.dtype, k.dtype, v.dtype)
        return o.to(q.dtype)

    @staticmethod
    def backward(ctx, do):
        q32, k32, v32, o, lse, cu_q, cu_k, seq_q = ctx.saved_tensors
        n_q, heads, head_dim = q32.shape
        n_k = k32.shape[0]
        do32 = f32(do)
        dq, dk, dv = torch.empty_like(q32), torch.empty_like(k32), torch.empty_like(v32)
        delta = torch.empty((n_q, heads), dtype=torch.float32, device=do.device)
        block_d = triton.next_power_of_2(head_dim)
        _attention_bwd_dq[(n_q, heads)](q32, k32, v32, o, do32, lse, delta, dq, seq_q, cu_q, cu_k,
                                        heads, head_dim, ctx.scale, BLOCK_N=BLOCK_N,
                                        BLOCK_D=block_d)
        # A BLOCK_M of next_power_of_2(T) always holds a whole sample in one query tile, and the interpreter's
        # zero-padded tile sums then give the same bits as BLOCK_M = 16 (a GPU's tree reduction would not).
        _attention_bwd_dkdv[(n_k, heads)](q32, k32, v32, do32, lse, delta, dk, dv,  # teeth: equivalent(shape_dependent_split): on CPU
                                          _sample_ids(cu_k), cu_q, cu_k, heads, head_dim,
                                          ctx.scale, BLOCK_M=BLOCK_M, BLOCK_D=block_d)
        dtq, dtk, dtv = ctx.dtypes
        return dq.to(dtq), dk.to(dtk), dv.to(dtv), None, None


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
              cu_seqlens_k: torch.Tensor) -> torch.Tensor:
    """Causal softmax(q k^T / sqrt(Dh)) v per sample; q[T, H, Dh], k/v[S, H, Dh] -> [T, H, Dh]."""
    return _Attention.apply(q, k, v, cu_seqlens_q, cu_seqlens_k)
