"""LM head (logits = x @ weight.T): the linear op's autograd function, over the vocabulary."""
from kernels.torch_ops.linear import Linear


def lm_head(x, weight, cu_seqlens):
    """logits[T, V] = x[T, D] @ weight[V, D].T, token by token."""
    return Linear.apply(x, weight, cu_seqlens)
