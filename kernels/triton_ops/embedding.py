"""Triton embedding: row gather forward; dweight from per-sample in-order scatter partials."""

import torch
import triton
import triton.language as tl

from ._common import block_for, bounds, f32, sum_over_samples


@triton.jit
def _embedding_fwd(ids_ptr, w_ptr, y_ptr, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    ok = cols < D
    idx = tl.load(ids_ptr + row)
    tl.store(y_ptr + row * D + cols, tl.load(w_ptr + idx * D + cols, mask=ok, other=0.0), mask=ok)


@triton.jit
def _embedding_bwd_partial(dy_ptr, ids_ptr, cu_ptr, part_ptr, V, D, BLOCK_D: tl.constexpr):
    """part[b, ids[t], :] += dy[t, :] for sample b's tokens t, one at a time, in order.

    part starts zeroed. The read-modify-write stays inside one program, so repeated ids
    accumulate in token order; the barrier orders each update before the next token's read.
    """
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    ok = cols < D
    start = tl.load(cu_ptr + b)
    end = tl.load(cu_ptr + b + 1)
    for t in range(start, end):
        idx = tl.load(ids_ptr + t)
        dy = tl.load(dy_ptr + t * D + cols, mask=ok, other=0.0).to(tl.float32)
        tl.store(part_ptr + b * V * D + idx * D + cols,
                 tl.load(part_ptr + b * V * D + idx * D + cols, mask=ok, other=0.0) + dy, mask=ok)
        tl.debug_barrier()


class _Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ids, weight, cu_seqlens):
        ids64, cu = ids.to(torch.int64).contiguous(), bounds(cu_seqlens)
        vocab, dim = weight.shape
        w = weight.contiguous()
        y = torch.empty((ids64.numel(), dim), dtype=weight.dtype, device=weight.device)
        block = block_for(dim)
        _embedding_fwd[(ids64.numel(), triton.cdiv(dim, block))](ids64, w, y, dim, BLOCK_D=block)
        ctx.save_for_backward(ids64, cu)
        ctx.shape, ctx.dtype = (vocab, dim), weight.dtype
        return y

    @staticmethod
    def backward(ctx, dy):
        ids64, cu = ctx.saved_tensors
        vocab, dim = ctx.shape
        n_samples = cu.numel() - 1
        partials = torch.zeros((n_samples, vocab, dim), dtype=torch.float32, device=dy.device)
        block = block_for(dim)
        grid = (n_samples, triton.cdiv(dim, block))
        _embedding_bwd_partial[grid](f32(dy), ids64, cu, partials, vocab, dim, BLOCK_D=block)
        return None, sum_over_samples(partials).to(ctx.dtype), None


def embedding(ids: torch.Tensor, weight: torch.Tensor, cu_seqlens: torch.Tensor) -> torch.Tensor:
    """weight[V, D][ids[T]] -> [T, D]."""
    return _Embedding.apply(ids, weight, cu_seqlens)
