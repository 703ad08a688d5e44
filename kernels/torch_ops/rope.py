"""Rotary position embedding (rotate-half) in torch with an explicit backward."""
import torch


def _cos_sin(positions, half, theta):
    exponents = torch.arange(half, dtype=torch.float32, device=positions.device) * (2.0 / (2 * half))
    inv_freq = 1.0 / (theta ** exponents)
    angles = positions.to(torch.float32)[:, None] * inv_freq[None, :]  # teeth: equivalent(low_precision_accumulation): int64 x fp32 is computed in fp32, the same conversion
    cos, sin = torch.cos(angles), torch.sin(angles)
    return cos[:, None, :], sin[:, None, :]


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def _rotate_back(dy, cos, sin):
    half = dy.shape[-1] // 2
    d1, d2 = dy[..., :half], dy[..., half:]  # teeth: equivalent(view_to_copy): only read; nothing writes through these views
    return torch.cat([d1 * cos + d2 * sin, d2 * cos - d1 * sin], dim=-1)


class RoPE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, positions, theta):
        cos, sin = _cos_sin(positions, q.shape[-1] // 2, theta)
        ctx.save_for_backward(cos, sin)
        return _rotate(q.float(), cos, sin).to(q.dtype), _rotate(k.float(), cos, sin).to(k.dtype)  # teeth: equivalent(low_precision_accumulation): q and k only meet fp32 cos, sin; torch computes bf16 x fp32 in fp32, exactly

    @staticmethod
    def backward(ctx, dq_out, dk_out):
        cos, sin = ctx.saved_tensors
        dq_out = torch.zeros_like(dk_out) if dq_out is None else dq_out
        dk_out = torch.zeros_like(dq_out) if dk_out is None else dk_out
        dq = _rotate_back(dq_out.float(), cos, sin).to(dq_out.dtype)  # teeth: equivalent(low_precision_accumulation): dq_out only meets fp32 cos, sin; torch computes bf16 x fp32 in fp32, exactly
        dk = _rotate_back(dk_out.float(), cos, sin).to(dk_out.dtype)  # teeth: equivalent(low_precision_accumulation): dk_out only meets fp32 cos, sin; torch computes bf16 x fp32 in fp32, exactly
        return dq, dk, None, None


def rope(q, k, positions, theta=10000.0):
    """Rotate q and k[T,H,Dh] by angle positions * theta^(-2i/Dh) (rotate-half layout)."""
    return RoPE.apply(q, k, positions, theta)
