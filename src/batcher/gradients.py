"""Per-invoke gradients: an invoke's rows of a batched gradient, read and edited through its view's geometry."""

import torch

from batcher import scoping
from batcher.errors import GradientNotComputedError


def geometry(view):
    """Where a view sits in its batched tensor's storage: (shape, stride, storage offset)."""
    return (tuple(view.shape), view.stride(), view.storage_offset())


def storage_numel(full):
    """How many elements the batched tensor's storage holds."""
    return full.untyped_storage().nbytes() // full.element_size()


def lay_out_like(full, grad):
    """The gradient copied into fresh storage laid out exactly like `full`; returns (storage, batched)."""
    storage = grad.new_zeros(storage_numel(full))
    batched = storage.as_strided(full.shape, full.stride(), full.storage_offset())
    batched.copy_(grad)
    return storage, batched


def rows_of(storage, shape, stride, offset):
    """The invoke's rows of a batched gradient, as a view through the invoke's geometry."""
    return torch.as_strided(storage, shape, stride, offset)


class GradRead:
    """An invoke's rows of a module output's gradient; `.value` after backward."""

    def __init__(self, where):
        self.where = where
        self._value = None

    def add(self, rows):
        """Accumulate one backward's rows, like `.grad` accumulates over backward calls."""
        self._value = rows if self._value is None else self._value + rows

    @property
    def value(self):
        if self._value is None:
            raise GradientNotComputedError(
                f"no gradient at {self.where}: run backward on a loss that depends on it first"
            )
        return self._value


def attach(full, view, start, size, total, readers, editors, where):
    """Hook `full` so each backward hands this invoke's gradient rows to readers and editors."""
    if not full.requires_grad:
        return
    shape, stride, offset = geometry(view)

    def hook(grad):
        storage, batched = lay_out_like(full, grad)
        rows = rows_of(storage, shape, stride, offset)
        for fn in editors:
            before = rows._version
            fn(rows)
            if view is full and size != 0 and rows._version != before:
                scoping.report_in_place(scoping.Served(rows, False, before), where + " (gradient)", total)
        for reader in readers:
            reader.add(rows)
        return batched

    full.register_hook(hook)
