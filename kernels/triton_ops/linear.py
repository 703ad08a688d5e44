"""Triton linear: y = x @ weight.T, one program per (token, output tile); explicit backward."""

import torch

from ._common import bounds, f32, matmul_nn, matmul_nt, weight_grad


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, cu_seqlens):
        x32, w32, cu = f32(x), f32(weight), bounds(cu_seqlens)
        ctx.save_for_backward(x32, w32, cu)
        ctx.dtypes = (x.dtype, weight.dtype)
        return matmul_nt(x32, w32).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        x32, w32, cu = ctx.saved_tensors
        dy32 = f32(dy)
        dx = matmul_nn(dy32, w32) if ctx.needs_input_grad[0] else None
        dw = weight_grad(dy32, x32, cu) if ctx.needs_input_grad[1] else None
        return (
            None if dx is None else dx.to(ctx.dtypes[0]),
            None if dw is None else dw.to(ctx.dtypes[1]),
            None,
        )


def linear(x: torch.Tensor, weight: torch.Tensor, cu_seqlens: torch.Tensor) -> torch.Tensor:
    """x[T, K] @ weight[N, K].T -> [T, N]."""
    return _Linear.apply(x, weight, cu_seqlens)
