"""Selected log-probability (log_softmax gathered at the target, masked) in torch with an explicit backward."""
import torch


def _row_sum(a):
    acc = a[:, 0]
    for j in range(1, a.shape[1]):
        acc = acc + a[:, j]
    return acc


def _softmax_parts(lf):
    row_max = lf.amax(dim=1)
    shifted = lf - row_max[:, None]
    exp = torch.exp(shifted)
    total = _row_sum(exp)
    return shifted, exp, total


class SelectedLogprob(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, targets, mask):
        lf = logits.float()
        shifted, _, total = _softmax_parts(lf)
        picked = shifted.gather(1, targets[:, None])[:, 0]
        out = torch.where(mask, picked - torch.log(total), torch.zeros_like(picked))
        ctx.save_for_backward(lf, targets, mask)
        return out.to(logits.dtype)

    @staticmethod
    def backward(ctx, dout):
        lf, targets, mask = ctx.saved_tensors
        _, exp, total = _softmax_parts(lf)
        probs = exp / total[:, None]
        onehot = torch.zeros_like(lf)
        onehot.scatter_(1, targets[:, None], 1.0)
        g = torch.where(mask, dout.float(), torch.zeros_like(dout, dtype=torch.float32))  # teeth: equivalent(low_precision_accumulation): where() promotes bf16 and fp32 to fp32, exactly
        dlogits = g[:, None] * (onehot - probs)
        return dlogits.to(dout.dtype), None, None


def selected_logprob(logits, targets, mask):
    """out[t] = log_softmax(logits[t])[targets[t]] where mask[t], else 0."""
    return SelectedLogprob.apply(logits, targets, mask)
