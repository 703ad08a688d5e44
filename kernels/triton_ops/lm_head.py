"""Triton LM head: logits = x @ weight.T over the vocabulary; explicit backward."""

import torch

from ._common import bounds, f32, matmul_nn, matmul_nt, weight_grad


class _LMHead(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, cu_seqlens):
        x32, w32, cu = f32(x), f32(weight), bounds(cu_seqlens)
        ctx.save_for_backward(x32, w32, cu)
        ctx.dtypes = (x.dtype, weight.dtype)
        return matmul_nt(x32, w32).to(x.dtype)

    @staticmethod
    def backward(ctx, dlogits):
        x32, w32, cu = ctx.saved_tensors
        dl32 = f32(dlogits)
        dx = matmul_nn(dl32, w32) if ctx.needs_input_grad[0] else None
        dw = weight_grad(dl32, x32, cu) if ctx.needs_input_grad[1] else None
        return (
            None if dx is None else dx.to(ctx.dtypes[0]),
            None if dw is None else dw.to(ctx.dtypes[1]),
            None,
        )


def lm_head(x: torch.Tensor, weight: torch.Tensor, cu_seqlens: torch.Tensor) -> torch.Tensor:
    """x[T, D] @ weight[V, D].T -> logits [T, V]."""
    return _LMHead.apply(x, weight, cu_seqlens)
