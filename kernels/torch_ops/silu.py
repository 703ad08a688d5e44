"""SiLU in torch with an explicit backward (sigmoid built from exp: torch.sigmoid is position-dependent on CPU)."""
import torch


def _sigmoid(x):
    return 1.0 / (1.0 + torch.exp(-x))


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        xf = x.float()
        ctx.save_for_backward(xf)
        return (xf * _sigmoid(xf)).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        (xf,) = ctx.saved_tensors
        s = _sigmoid(xf)
        dx = dy.float() * (s + xf * s * (1.0 - s))  # teeth: equivalent(low_precision_accumulation): dy only meets the fp32 factor; torch computes bf16 x fp32 in fp32, exactly
        return dx.to(dy.dtype)


def silu(x):
    """y = x * sigmoid(x)."""
    return SiLU.apply(x)
