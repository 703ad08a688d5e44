"""Triton RoPE (rotate-half) on q and k, one program per token row; explicit backward."""

import math

import torch
import triton
import triton.language as tl

from ._common import f32


@triton.jit
def _rope_rotate(x_ptr, y_ptr, row, pos, log_theta, sign, H, HALF,
                 BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    """y1 = x1 cos - sign x2 sin; y2 = x2 cos + sign x1 sin (sign = -1 is the transpose)."""
    i = tl.arange(0, BLOCK_HALF)
    heads = tl.arange(0, BLOCK_H)
    inv_freq = tl.exp(-(i.to(tl.float32) / HALF) * log_theta)
    angle = pos * inv_freq
    cos = tl.cos(angle)[None, :]
    sin = (tl.sin(angle) * sign)[None, :]
    ok = (heads[:, None] < H) & (i[None, :] < HALF)
    offs = row * H * 2 * HALF + heads[:, None] * 2 * HALF + i[None, :]
    x1 = tl.load(x_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + offs + HALF, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, x1 * cos - x2 * sin, mask=ok)
    tl.store(y_ptr + offs + HALF, x2 * cos + x1 * sin, mask=ok)


@triton.jit
def _rope_kernel(q_ptr, k_ptr, qo_ptr, ko_ptr, pos_ptr, log_theta, sign, H, HALF,
                 BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    pos = tl.load(pos_ptr + row).to(tl.float32)
    _rope_rotate(q_ptr, qo_ptr, row, pos, log_theta, sign, H, HALF, BLOCK_H, BLOCK_HALF)
    _rope_rotate(k_ptr, ko_ptr, row, pos, log_theta, sign, H, HALF, BLOCK_H, BLOCK_HALF)


def _launch(q32, k32, positions, theta, sign):
    n_rows, heads, head_dim = q32.shape
    qo, ko = torch.empty_like(q32), torch.empty_like(k32)
    half = head_dim // 2
    _rope_kernel[(n_rows,)](
        q32, k32, qo, ko, positions, math.log(theta), sign,
        heads, half, BLOCK_H=triton.next_power_of_2(heads), BLOCK_HALF=triton.next_power_of_2(half),
    )
    return qo, ko


class _RoPE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, positions, theta):
        assert q.shape[-1] % 2 == 0 and q.shape == k.shape
        pos = positions.to(torch.int64).contiguous()
        qo, ko = _launch(f32(q), f32(k), pos, theta, 1.0)
        ctx.save_for_backward(pos)
        ctx.theta, ctx.dtypes = theta, (q.dtype, k.dtype)
        return qo.to(q.dtype), ko.to(k.dtype)

    @staticmethod
    def backward(ctx, dq_out, dk_out):
        (pos,) = ctx.saved_tensors
        dq_out = torch.zeros_like(dk_out) if dq_out is None else dq_out
        dk_out = torch.zeros_like(dq_out) if dk_out is None else dk_out
        dq, dk = _launch(f32(dq_out), f32(dk_out), pos, ctx.theta, -1.0)
        return dq.to(ctx.dtypes[0]), dk.to(ctx.dtypes[1]), None, None


def rope(q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor,
         theta: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate-half rotary embedding of q[T, H, Dh] and k[T, H, Dh] at positions[T]."""
    return _RoPE.apply(q, k, positions, theta)
