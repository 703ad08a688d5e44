"""Run the triton interpreter's program instances in a seeded random order."""

from __future__ import annotations

import contextlib
import random
from typing import Iterator

__all__ = ["shuffled_program_order"]


@contextlib.contextmanager
def shuffled_program_order(seed: int) -> Iterator[None]:
    """While active, every interpreted triton launch runs its programs in a seeded permutation.

    On a GPU, program instances run concurrently in no fixed order, so a kernel whose result
    depends on that order (``tl.atomic_add`` into one accumulator, a racy read-modify-write)
    is nondeterministic. The triton interpreter (``TRITON_INTERPRET=1``) runs the grid in
    one fixed nested order, which hides that. This context exposes it.

    Triton internals patched (tested against triton 3.9, ``triton/runtime/interpreter.py``):
    ``GridExecutor.__call__`` calls ``interpreter_builder.set_grid_dim(nx, ny, nz)`` once per
    launch and then, for x, y, z in nested ``range`` loops, ``set_grid_idx(x, y, z)`` before
    running one program instance. ``tl.program_id`` reads the ``grid_idx`` that
    ``set_grid_idx`` stores. We replace the two methods on ``InterpreterBuilder``:
    ``set_grid_dim`` also draws a fresh permutation of the ``nx*ny*nz`` programs from a
    ``random.Random(seed)`` created on entry, and ``set_grid_idx`` maps the i-th visited
    program to the permutation's i-th program id. Every program still runs exactly once.
    The original methods are put back on exit, also when the body raises. Code that
    launches no triton kernel is unaffected. Works only for interpreted launches; a
    compiled (GPU) launch never calls these methods.
    """
    from triton.runtime import interpreter

    builder_cls = interpreter.InterpreterBuilder
    original_dim = builder_cls.__dict__["set_grid_dim"]
    original_idx = builder_cls.__dict__["set_grid_idx"]
    rng = random.Random(seed)
    state: dict[str, object] = {"perm": None, "dims": None}

    def set_grid_dim(self, nx, ny, nz):
        original_dim(self, nx, ny, nz)
        perm = list(range(nx * ny * nz))
        rng.shuffle(perm)
        state["perm"] = perm
        state["dims"] = (nx, ny, nz)

    def set_grid_idx(self, x, y, z):
        dims = state["dims"]
        if dims is None or tuple(dims) != tuple(self.grid_dim):
            return original_idx(self, x, y, z)
        _, ny, nz = dims
        target = state["perm"][(x * ny + y) * nz + z]
        tx, rest = divmod(target, ny * nz)
        ty, tz = divmod(rest, nz)
        return original_idx(self, tx, ty, tz)

    builder_cls.set_grid_dim = set_grid_dim
    builder_cls.set_grid_idx = set_grid_idx
    try:
        yield
    finally:
        builder_cls.set_grid_dim = original_dim
        builder_cls.set_grid_idx = original_idx
