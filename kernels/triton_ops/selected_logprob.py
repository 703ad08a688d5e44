"""Triton selected log-prob: log_softmax(logits)[target] per token row; explicit backward."""

import torch
import triton
import triton.language as tl

from ._common import block_for, f32


@triton.jit
def _selected_logprob_fwd(logits_ptr, tgt_ptr, mask_ptr, out_ptr, lse_ptr, V,
                          BLOCK_V: tl.constexpr):
    """Two passes over vocabulary tiles in order: the row max, then sum(exp(x - max))."""
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * V
    run_max = tl.full([BLOCK_V], float("-inf"), dtype=tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(base + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        run_max = tl.maximum(run_max, x)
    row_max = tl.max(run_max, axis=0)
    sum_exp = tl.zeros([BLOCK_V], dtype=tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(base + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        sum_exp += tl.exp(x - row_max)
    lse = row_max + tl.log(tl.sum(sum_exp, axis=0))
    tl.store(lse_ptr + row, lse)
    target = tl.load(tgt_ptr + row)
    keep = tl.load(mask_ptr + row)
    picked = tl.load(base + target).to(tl.float32)
    tl.store(out_ptr + row, tl.where(keep != 0, picked - lse, 0.0))


@triton.jit
def _selected_logprob_bwd(dy_ptr, logits_ptr, tgt_ptr, mask_ptr, lse_ptr, dl_ptr, V,
                          BLOCK_V: tl.constexpr):
    """dlogits = dy * mask * (onehot(target) - softmax(logits))."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_V + tl.arange(0, BLOCK_V)
    ok = cols < V
    keep = tl.load(mask_ptr + row)
    dy = tl.where(keep != 0, tl.load(dy_ptr + row).to(tl.float32), 0.0)
    lse = tl.load(lse_ptr + row)
    target = tl.load(tgt_ptr + row)
    x = tl.load(logits_ptr + row * V + cols, mask=ok, other=0.0).to(tl.float32)
    onehot = tl.where(cols == target, 1.0, 0.0)
    tl.store(dl_ptr + row * V + cols, dy * (onehot - tl.exp(x - lse)), mask=ok)


class _SelectedLogprob(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, mask):
        l32 = f32(logits)
        tgt = targets.to(torch.int64).contiguous()
        keep = mask.to(torch.int32).contiguous()
        n_rows, vocab = l32.shape
        out = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        lse = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        block = block_for(vocab, 1024)
        _selected_logprob_fwd[(n_rows,)](l32, tgt, keep, out, lse, vocab, BLOCK_V=block)
        ctx.save_for_backward(l32, tgt, keep, lse)
        ctx.dtype = logits.dtype
        return out.to(logits.dtype)

    @staticmethod
    def backward(ctx, dy):
        l32, tgt, keep, lse = ctx.saved_tensors
        n_rows, vocab = l32.shape
        dl = torch.empty_like(l32)
        block = block_for(vocab, 1024)
        grid = (n_rows, triton.cdiv(vocab, block))
        _selected_logprob_bwd[grid](f32(dy), l32, tgt, keep, lse, dl, vocab, BLOCK_V=block)
        return dl.to(ctx.dtype), None, None


def selected_logprob(logits: torch.Tensor, targets: torch.Tensor,
                     mask: torch.Tensor) -> torch.Tensor:
    """log_softmax(logits[T, V])[t, targets[t]] where mask[t], else 0 -> [T]."""
    return _SelectedLogprob.apply(logits, targets, mask)
