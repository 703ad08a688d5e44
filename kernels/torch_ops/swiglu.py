"""SwiGLU (silu(gate) * up) in torch with an explicit backward."""
import torch


def _sigmoid(x):
    return 1.0 / (1.0 + torch.exp(-x))


class SwiGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        gf = gate.float()
        uf = up.float()  # teeth: equivalent(low_precision_accumulation): uf only meets fp32 products of gf, dyf; torch computes bf16 x fp32 in fp32, exactly
        ctx.save_for_backward(gf, uf)
        return (gf * _sigmoid(gf) * uf).to(gate.dtype)

    @staticmethod
    def backward(ctx, dy):
        gf, uf = ctx.saved_tensors
        dyf = dy.float()  # teeth: equivalent(low_precision_accumulation): dyf only meets fp32 uf, gf, s; torch computes bf16 x fp32 in fp32, exactly
        s = _sigmoid(gf)
        dgate = dyf * uf * (s + gf * s * (1.0 - s))
        dup = dyf * gf * s
        return dgate.to(dy.dtype), dup.to(dy.dtype)


def swiglu(gate, up):
    """y = silu(gate) * up."""
    return SwiGLU.apply(gate, up)
