"""Embedding lookup in torch with an explicit backward (dweight) in a fixed order."""
import torch


class Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ids, weight, cu_seqlens):
        ctx.save_for_backward(ids, cu_seqlens)
        ctx.shape, ctx.wdtype = weight.shape, weight.dtype
        return weight[ids]

    @staticmethod
    def backward(ctx, dy):
        ids, cu_seqlens = ctx.saved_tensors
        dyf = dy.float()  # teeth: equivalent(low_precision_accumulation): dyf is only added into the fp32 part; torch computes bf16 x fp32 in fp32, exactly
        dweight = torch.zeros(ctx.shape, dtype=torch.float32, device=dy.device)
        bounds = cu_seqlens.tolist()
        rows = ids.tolist()
        for start, end in zip(bounds, bounds[1:]):
            part = torch.zeros_like(dweight)
            for t in range(start, end):
                part[rows[t]] = part[rows[t]] + dyf[t]
            dweight = dweight + part
        return None, dweight.to(ctx.wdtype), None


def embedding(ids, weight, cu_seqlens):
    """y[t] = weight[ids[t]]."""
    return Embedding.apply(ids, weight, cu_seqlens)
