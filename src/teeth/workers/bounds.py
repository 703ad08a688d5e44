"""A bounds check for the triton interpreter: every unmasked load or store must fall inside a tensor of the launch.

On a GPU an access one element past a tensor is caught by compute-sanitizer; on CPU the
interpreter reads or writes whatever memory is there and nothing shows. While
`bounds_checked()` is active, each launch records the byte ranges of its tensor arguments'
storages, and every masked or plain load, store and atomic checks its unmasked addresses
against them, raising `OutOfBounds` (the launch fails, so the test fails). It patches
`GridExecutor._init_args_hst` and `InterpreterBuilder.create_(masked_)load/store` and the
atomic builders of triton.runtime.interpreter; tested against triton 3.9.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from teeth.core import Check


class OutOfBounds(IndexError):
    """An unmasked access outside every tensor of the kernel launch."""

    teeth_check = Check.BOUNDS  # the check a mutant killed by it is recorded under


_ranges: list[tuple[int, int]] = []
_active: list[bool] = []  # non-empty while the interpreter is patched


def _storages(args) -> Iterator[tuple[int, int]]:
    for arg in args:
        if isinstance(arg, (tuple, list)):
            yield from _storages(arg)
        elif hasattr(arg, "untyped_storage"):
            storage = arg.untyped_storage()
            yield storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def _check(ptrs, mask, what: str) -> None:
    addresses = np.asarray(ptrs.data).astype(np.uint64).ravel()
    if mask is not None:
        addresses = addresses[np.broadcast_to(np.asarray(mask.data), np.asarray(ptrs.data).shape).ravel()]
    if not _ranges or addresses.size == 0:
        return
    inside = np.zeros(addresses.shape, dtype=bool)
    for start, end in _ranges:
        inside |= (addresses >= start) & (addresses < end)
    if not inside.all():
        raise OutOfBounds(f"{what} outside every tensor of the launch at {int(addresses[~inside][0]):#x}")


@contextlib.contextmanager
def bounds_checked() -> Iterator[None]:
    if _active:  # already checking (the worker of an interpreter profile, and a suite's own fixture): once is enough
        yield
        return
    from triton.runtime import interpreter

    executor, builder = interpreter.GridExecutor, interpreter.InterpreterBuilder
    originals = {"_init_args_hst": executor._init_args_hst}
    names = ("create_load", "create_store", "create_masked_load", "create_masked_store",
             "create_atomic_rmw", "create_atomic_cas")
    originals.update({n: getattr(builder, n) for n in names if hasattr(builder, n)})

    def init_args(self, args_dev, kwargs):
        args_hst, kwargs_hst = originals["_init_args_hst"](self, args_dev, kwargs)
        _ranges[:] = list(_storages([*args_hst, *kwargs_hst.values()]))
        return args_hst, kwargs_hst

    def guarded(name, ptr_index, mask_index):
        original = originals[name]

        def wrapper(self, *args, **kwargs):
            mask = args[mask_index] if mask_index is not None and len(args) > mask_index else None
            _check(args[ptr_index], mask, name.removeprefix("create_"))
            return original(self, *args, **kwargs)
        return wrapper

    executor._init_args_hst = init_args
    for name, ptr_index, mask_index in (("create_load", 0, None), ("create_store", 0, None),
                                        ("create_masked_load", 0, 1), ("create_masked_store", 0, 2),
                                        ("create_atomic_rmw", 1, 3), ("create_atomic_cas", 0, None)):
        if name in originals:
            setattr(builder, name, guarded(name, ptr_index, mask_index))
    _active.append(True)
    try:
        yield
    finally:
        _active.clear()
        executor._init_args_hst = originals.pop("_init_args_hst")
        for name, original in originals.items():
            setattr(builder, name, original)
        _ranges.clear()
