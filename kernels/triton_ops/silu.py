"""Triton SiLU: elementwise x * sigmoid(x) over fixed tiles; explicit backward."""

import torch
import triton
import triton.language as tl

from ._common import f32

BLOCK = 1024


@triton.jit
def _silu_fwd(x_ptr, y_ptr, NUMEL, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < NUMEL
    x = tl.load(x_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=ok)


@triton.jit
def _silu_bwd(dy_ptr, x_ptr, dx_ptr, NUMEL, BLOCK: tl.constexpr):
    """d silu(x) / dx = s * (1 + x * (1 - s)), s = sigmoid(x)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < NUMEL
    x = tl.load(x_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    s = tl.sigmoid(x)
    tl.store(dx_ptr + offs, dy * s * (1.0 + x * (1.0 - s)), mask=ok)


class _SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x32 = f32(x)
        y = torch.empty_like(x32)
        _silu_fwd[(triton.cdiv(y.numel(), BLOCK),)](x32, y, y.numel(), BLOCK=BLOCK)
        ctx.save_for_backward(x32)
        ctx.dtype = x.dtype
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        (x32,) = ctx.saved_tensors
        dx = torch.empty_like(x32)
        _silu_bwd[(triton.cdiv(dx.numel(), BLOCK),)](f32(dy), x32, dx, dx.numel(), BLOCK=BLOCK)
        return dx.to(ctx.dtype)


def silu(x: torch.Tensor) -> torch.Tensor:
    """x[T, D] * sigmoid(x) -> [T, D]."""
    return _SiLU.apply(x)
