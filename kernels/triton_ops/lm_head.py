"""Triton LM head (logits = x @ weight.T): the linear op's kernels and autograd function, over the vocabulary."""

import torch

from .linear import _Linear


def lm_head(x: torch.Tensor, weight: torch.Tensor, cu_seqlens: torch.Tensor) -> torch.Tensor:
    """x[T, D] @ weight[V, D].T -> logits [T, V]."""
    return _Linear.apply(x, weight, cu_seqlens)
