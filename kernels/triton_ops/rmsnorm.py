"""Triton RMSNorm: one program per token row; dweight from per-sample in-order partials."""

import torch
import triton
import triton.language as tl

from ._common import block_for, bounds, f32, sum_over_samples


@triton.jit
def _rmsnorm_fwd(x_ptr, w_ptr, y_ptr, rstd_ptr, D, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    sq = tl.zeros([BLOCK_D], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        x = tl.load(x_ptr + row * D + cols, mask=cols < D, other=0.0).to(tl.float32)
        sq += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / D + eps)
    tl.store(rstd_ptr + row, rstd)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        ok = cols < D
        x = tl.load(x_ptr + row * D + cols, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * D + cols, x * rstd * w, mask=ok)


@triton.jit
def _rmsnorm_bwd_dx(dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, D, BLOCK_D: tl.constexpr):
    """dx = rstd * g - x * rstd^3 * sum(g * x) / D, with g = dy * w."""
    row = tl.program_id(0).to(tl.int64)
    rstd = tl.load(rstd_ptr + row)
    gx = tl.zeros([BLOCK_D], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        ok = cols < D
        dy = tl.load(dy_ptr + row * D + cols, mask=ok, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + row * D + cols, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        gx += dy * w * x
    coef = tl.sum(gx, axis=0) * rstd * rstd * rstd / D
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        ok = cols < D
        dy = tl.load(dy_ptr + row * D + cols, mask=ok, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + row * D + cols, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        tl.store(dx_ptr + row * D + cols, dy * w * rstd - x * coef, mask=ok)


@triton.jit
def _rmsnorm_bwd_dw_partial(dy_ptr, x_ptr, rstd_ptr, cu_ptr, part_ptr, D, BLOCK_D: tl.constexpr):
    """part[b, d] = sum over sample b's tokens, in order, of dy * x * rstd."""
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    ok = cols < D
    start = tl.load(cu_ptr + b)
    end = tl.load(cu_ptr + b + 1)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for t in range(start, end):
        dy = tl.load(dy_ptr + t * D + cols, mask=ok, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + t * D + cols, mask=ok, other=0.0).to(tl.float32)
        acc += dy * x * tl.load(rstd_ptr + t)
    tl.store(part_ptr + b * D + cols, acc, mask=ok)


class _RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, cu_seqlens, eps):
        x32, w32, cu = f32(x), f32(weight), bounds(cu_seqlens)
        n_rows, dim = x32.shape
        y = torch.empty_like(x32)
        rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
        _rmsnorm_fwd[(n_rows,)](x32, w32, y, rstd, dim, eps, BLOCK_D=block_for(dim, 1024))
        ctx.save_for_backward(x32, w32, rstd, cu)
        ctx.dtypes = (x.dtype, weight.dtype)
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        x32, w32, rstd, cu = ctx.saved_tensors
        dy32 = f32(dy)
        n_rows, dim = x32.shape
        dx = dw = None
        if ctx.needs_input_grad[0]:
            dx = torch.empty_like(x32)
            _rmsnorm_bwd_dx[(n_rows,)](dy32, x32, w32, rstd, dx, dim, BLOCK_D=block_for(dim, 1024))
            dx = dx.to(ctx.dtypes[0])
        if ctx.needs_input_grad[1]:
            n_samples = cu.numel() - 1
            block = block_for(dim)
            partials = torch.zeros((n_samples, dim), dtype=torch.float32, device=dy.device)
            grid = (n_samples, triton.cdiv(dim, block))
            _rmsnorm_bwd_dw_partial[grid](dy32, x32, rstd, cu, partials, dim, BLOCK_D=block)
            dw = sum_over_samples(partials).to(ctx.dtypes[1])
        return dx, dw, None, None


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, cu_seqlens: torch.Tensor,
            eps: float = 1e-6) -> torch.Tensor:
    """x[T, D] * rsqrt(mean(x^2) + eps) * weight[D] -> [T, D]."""
    return _RMSNorm.apply(x, weight, cu_seqlens, eps)
