"""The context an operator mutates a node in: one frozen record per node, read from libcst metadata."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from teeth.syntax.bindings import NO_BINDINGS, Bindings
from teeth.syntax.functions import Enclosing, Function
from teeth.syntax.kernel_context import Kernel


@dataclass(frozen=True)
class Context:
    """Where a node stands: its parent, the class or function around it and its position."""

    parent: cst.CSTNode | None = field(repr=False)
    enclosing: Enclosing  # .name: the innermost class or function's qualified name ("" at module level)
    position: CodeRange

    @property
    def function(self) -> Function | None:
        """The innermost enclosing function (None outside every function)."""
        return self.enclosing.function

    @property
    def outer(self) -> str:
        """The qualified name of the outermost enclosing function, "" at module level."""
        return self.function.outer.name if self.function is not None else ""

    @property
    def kernel(self) -> Kernel | None:
        """The enclosing @triton.jit kernel (its program-id names), or None in host code."""
        return self.function.kernel if self.function is not None else None

    @property
    def in_kernel(self) -> bool:
        return self.kernel is not None

    @property
    def bindings(self) -> Bindings:
        """The names the enclosing function binds once (none at module level)."""
        return self.function.bindings if self.function is not None else NO_BINDINGS
