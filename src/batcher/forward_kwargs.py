"""Forward keyword arguments per invoke: equal values merge, different ones warn."""

import warnings

import torch

from batcher.errors import ForwardKwargConflictWarning


def same_value(a, b):
    """True when two keyword values are the same (tensors by shape and values)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        return a.shape == b.shape and bool(torch.equal(a, b))
    try:
        return bool(a == b)
    except Exception:
        return a is b


def merge(per_invoke):
    """One kwargs dict for the batched forward; a keyword two invokes disagree on warns and keeps the first value."""
    merged = {}
    owner = {}
    for index, kwargs in enumerate(per_invoke):
        for name, value in kwargs.items():
            if name not in merged:
                merged[name] = value
                owner[name] = index
            elif not same_value(merged[name], value):
                warnings.warn(
                    f"forward keyword {name!r} differs between invoke {owner[name]} and invoke {index}; "
                    f"the batched forward uses invoke {owner[name]}'s value for every invoke",
                    ForwardKwargConflictWarning,
                )
    return merged
