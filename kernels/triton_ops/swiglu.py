"""Triton SwiGLU: silu(gate) * up, elementwise over fixed tiles; explicit backward."""

import torch
import triton
import triton.language as tl

from ._common import f32

BLOCK = 1024


@triton.jit
def _swiglu_fwd(g_ptr, u_ptr, y_ptr, NUMEL, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < NUMEL
    g = tl.load(g_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, g * tl.sigmoid(g) * u, mask=ok)


@triton.jit
def _swiglu_bwd(dy_ptr, g_ptr, u_ptr, dg_ptr, du_ptr, NUMEL, BLOCK: tl.constexpr):
    """dgate = dy * up * s * (1 + g * (1 - s)); dup = dy * g * s; s = sigmoid(g)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < NUMEL
    g = tl.load(g_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    s = tl.sigmoid(g)
    tl.store(dg_ptr + offs, dy * u * s * (1.0 + g * (1.0 - s)), mask=ok)
    tl.store(du_ptr + offs, dy * g * s, mask=ok)


class _SwiGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        g32, u32 = f32(gate), f32(up)
        y = torch.empty_like(g32)
        _swiglu_fwd[(triton.cdiv(y.numel(), BLOCK),)](g32, u32, y, y.numel(), BLOCK=BLOCK)
        ctx.save_for_backward(g32, u32)
        ctx.dtypes = (gate.dtype, up.dtype)
        return y.to(gate.dtype)

    @staticmethod
    def backward(ctx, dy):
        g32, u32 = ctx.saved_tensors
        dg, du = torch.empty_like(g32), torch.empty_like(u32)
        grid = (triton.cdiv(dg.numel(), BLOCK),)
        _swiglu_bwd[grid](f32(dy), g32, u32, dg, du, dg.numel(), BLOCK=BLOCK)
        return dg.to(ctx.dtypes[0]), du.to(ctx.dtypes[1])


def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """silu(gate[T, D]) * up[T, D] -> [T, D]."""
    return _SwiGLU.apply(gate, up)
