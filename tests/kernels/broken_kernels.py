"""The kernels suite's kit: broken kernel implementations that the invariance harness and `teeth invariance` must
turn red (a plain module: pytest collects nothing here)."""

import torch

from kernels.torch_ops.rmsnorm import RMSNorm


class TokenBlockedRMSNorm(RMSNorm):
    """dweight reduced over blocks of max(1, T // 3) tokens: the tiling (and the bits) follow the batch."""

    @staticmethod
    def backward(ctx, dy):
        dx, _, _, _ = RMSNorm.backward(ctx, dy)
        xf, wf, rstd, _ = ctx.saved_tensors
        contrib = dy.float() * xf * rstd[:, None]
        block = max(1, contrib.shape[0] // 3)
        dweight = torch.zeros_like(wf)
        for start in range(0, contrib.shape[0], block):
            part = contrib[start]
            for t in range(start + 1, min(start + block, contrib.shape[0])):
                part = part + contrib[t]
            dweight = dweight + part
        return dx, dweight, None, None


def token_blocked_rmsnorm(x, weight, cu_seqlens, eps=1e-6):
    return TokenBlockedRMSNorm.apply(x, weight, cu_seqlens, eps)
