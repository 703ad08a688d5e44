"""Row scoping: narrow a batched value to one invoke's rows, and widen an edit back."""

import warnings

import torch

from batcher.errors import UnscopedWriteWarning


def rows_per_item(leading, total):
    """How many leading rows each batch row owns (1, or k for a (total*k, ...) layout); None if unscoped."""
    if total <= 0 or leading <= 0:
        return None
    if leading % total != 0:
        return None
    return leading // total


class Served:
    """What an invoke was handed: its view of a value, and whether that view is scoped."""

    def __init__(self, value, scoped, version):
        self.value = value
        self.scoped = scoped
        self.version = version

    def edited_in_place(self):
        """True when a value served whole was changed in place since it was served."""
        if self.scoped or not isinstance(self.value, torch.Tensor):
            return False
        return self.value._version != self.version


def narrow(value, start, size, total):
    """The invoke's rows [start*k, (start+size)*k) of a batched tensor, as a view; whole if unscoped."""
    if not isinstance(value, torch.Tensor) or value.dim() == 0 or size == 0:
        return Served(value, size == 0, _version(value))
    k = rows_per_item(value.shape[0], total)
    if k is None:
        return Served(value, False, value._version)
    return Served(value.narrow(0, start * k, size * k), True, value._version)


def widen(full, served, edited, start, size, total, where):
    """The batched value with the invoke's rows replaced by `edited`; other rows untouched."""
    if edited is served:
        return full
    if size == 0:
        return edited
    if not isinstance(full, torch.Tensor) or full.dim() == 0:
        return _unscoped_replacement(full, where, total)
    k = rows_per_item(full.shape[0], total)
    if k is None:
        return _unscoped_replacement(full, where, total)
    if not isinstance(edited, torch.Tensor):
        raise TypeError(f"replacement at {where} must be a tensor, got {type(edited).__name__}")
    expected = (size * k,) + tuple(full.shape[1:])
    if tuple(edited.shape) != expected:
        raise ValueError(
            f"replacement at {where} has shape {tuple(edited.shape)}; this invoke's rows are {expected}"
        )
    out = full.clone()
    out.narrow(0, start * k, size * k).copy_(edited)
    return out


def _unscoped_replacement(full, where, total):
    """Warn that a replacement cannot be scoped, and keep the batched value unchanged."""
    warnings.warn(
        f"replacement at {where} not applied: leading dim {leading_dim(full)} is neither the batch total "
        f"{total} nor a multiple of it, so this invoke's rows cannot be told apart",
        UnscopedWriteWarning,
    )
    return full


def report_in_place(served, where, total):
    """Warn when an invoke edited in place a value that was served whole (not scoped)."""
    if served.edited_in_place():
        warnings.warn(
            f"in-place edit at {where} landed on every invoke: leading dim {leading_dim(served.value)} is neither "
            f"the batch total {total} nor a multiple of it",
            UnscopedWriteWarning,
        )


def leading_dim(value):
    """A value's leading dim, for messages ("none" for a scalar or a non-tensor)."""
    return value.shape[0] if isinstance(value, torch.Tensor) and value.dim() > 0 else "none"


def _version(value):
    """torch's in-place version counter of a tensor (None for anything else)."""
    return value._version if isinstance(value, torch.Tensor) else None
