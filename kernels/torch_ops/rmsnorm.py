"""RMSNorm in torch with an explicit backward; every reduction runs in a fixed order."""
import torch


def _row_sum(a: torch.Tensor) -> torch.Tensor:
    """Sum over the last dim, column by column, so a row never depends on the other rows."""
    acc = a[..., 0]
    for d in range(1, a.shape[-1]):
        acc = acc + a[..., d]
    return acc


class RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, cu_seqlens, eps):
        xf = x.float()
        wf = weight.float()  # teeth: equivalent(low_precision_accumulation): wf only meets fp32 operands (xhat, dyf, part); torch computes bf16 x fp32 in fp32, exactly
        mean_sq = _row_sum(xf * xf) / xf.shape[-1]
        rstd = torch.rsqrt(mean_sq + eps)
        xhat = xf * rstd[:, None]
        ctx.save_for_backward(xf, wf, rstd, cu_seqlens)
        ctx.wdtype = weight.dtype
        return (xhat * wf[None, :]).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        xf, wf, rstd, cu_seqlens = ctx.saved_tensors
        dyf = dy.float()  # teeth: equivalent(low_precision_accumulation): dyf only meets fp32 operands (wf, xhat); torch computes bf16 x fp32 in fp32, exactly
        xhat = xf * rstd[:, None]
        g = dyf * wf[None, :]
        proj = _row_sum(g * xhat) / xf.shape[-1]
        dx = (g - xhat * proj[:, None]) * rstd[:, None]
        contrib = dyf * xhat
        dweight = torch.zeros_like(wf)
        bounds = cu_seqlens.tolist()
        for start, end in zip(bounds, bounds[1:]):
            if end <= start:
                continue
            part = contrib[start]
            for t in range(start + 1, end):
                part = part + contrib[t]
            dweight = dweight + part
        return dx.to(dy.dtype), dweight.to(ctx.wdtype), None, None


def rmsnorm(x, weight, cu_seqlens, eps=1e-6):
    """y = x / sqrt(mean(x^2) + eps) * weight, per token."""
    return RMSNorm.apply(x, weight, cu_seqlens, eps)
