"""Linear (x @ weight.T) in torch with an explicit backward; reductions in a fixed order."""
import torch


class Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, cu_seqlens):
        xf = x.float()  # teeth: equivalent(low_precision_accumulation): each product pairs xf with fp32 wf; torch computes bf16 x fp32 in fp32, exactly
        wf = weight.float()  # teeth: equivalent(low_precision_accumulation): each product pairs wf with fp32 xf or dyf; torch computes bf16 x fp32 in fp32, exactly
        y = torch.zeros(xf.shape[0], wf.shape[0], dtype=torch.float32, device=x.device)  # the fp32 accumulator
        for k in range(xf.shape[1]):
            y += xf[:, k, None] * wf[None, :, k]
        ctx.save_for_backward(xf, wf, cu_seqlens)
        ctx.wdtype = weight.dtype
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        xf, wf, cu_seqlens = ctx.saved_tensors
        dyf = dy.float()  # teeth: equivalent(low_precision_accumulation): each product pairs dyf with fp32 wf or xf; torch computes bf16 x fp32 in fp32, exactly
        dx = torch.zeros(dyf.shape[0], wf.shape[1], dtype=torch.float32, device=dy.device)  # the fp32 accumulator
        for n in range(wf.shape[0]):
            dx += dyf[:, n, None] * wf[None, n, :]
        dweight = torch.zeros_like(wf)
        bounds = cu_seqlens.tolist()
        for start, end in zip(bounds, bounds[1:]):
            if end <= start:
                continue
            part = dyf[start, :, None] * xf[start, None, :]
            for t in range(start + 1, end):
                part = part + dyf[t, :, None] * xf[t, None, :]
            dweight = dweight + part
        return dx.to(dy.dtype), dweight.to(ctx.wdtype), None


def linear(x, weight, cu_seqlens):
    """y = x @ weight.T, token by token."""
    return Linear.apply(x, weight, cu_seqlens)
