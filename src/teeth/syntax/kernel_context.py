"""What kernel operators need to know about the code around a node: inside a @triton.jit kernel, and which
names there derive from `tl.program_id` (a program's own slice of the work)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import libcst as cst


@cache
def _matchers():
    """libcst.matchers, imported when a kernel is first looked at: the slowest import of every teeth command (about
    a quarter of `teeth run`'s startup), which a run whose discovery is cached never needs."""
    import libcst.matchers

    return libcst.matchers


@cache
def _program_id():
    m = _matchers()
    return m.Call(func=m.Attribute(attr=m.Name("program_id")))


@dataclass
class Kernel:
    name: str
    program_names: set[str] = field(default_factory=set)  # names computed from tl.program_id(...)
    program_axes: set[str] = field(default_factory=set)  # names that are a program id itself: b = tl.program_id(0)

    def is_slab_term(self, term: cst.BaseExpression) -> bool:
        """`b * stride`: a term that picks the program's own slab (its first factor is a program id)."""
        while isinstance(term, cst.BinaryOperation) and isinstance(term.operator, cst.Multiply):
            term = term.left
        return isinstance(term, cst.Name) and term.value in self.program_axes

    def uses_program_id(self, node: cst.CSTNode) -> bool:
        """Does `node` read tl.program_id, directly or through a name derived from it?"""
        m = _matchers()
        if m.findall(node, _program_id()):
            return True
        return any(name.value in self.program_names for name in m.findall(node, m.Name()))


def is_kernel(node: cst.FunctionDef) -> bool:
    """Decorated with `@triton.jit` or `@jit` (also `@triton.jit(...)`)."""
    for decorator in node.decorators:
        expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        last = expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", None)
        if last == "jit":
            return True
    return False


def kernel_of(node: cst.FunctionDef) -> Kernel:
    """The kernel context of a @triton.jit function: its program-id-derived names, to a fixed point."""
    kernel = Kernel(node.name.value)
    m, program_id = _matchers(), _program_id()
    assigns = [(a.targets, a.value) for a in m.findall(node.body, m.Assign())]
    for targets, value in assigns:
        if m.matches(value, program_id | m.Call(func=m.Attribute(value=program_id, attr=m.Name("to")))):
            kernel.program_axes.update(t.target.value for t in targets if isinstance(t.target, cst.Name))
    changed = True
    while changed:
        changed = False
        for targets, value in assigns:
            if not kernel.uses_program_id(value):
                continue
            for target in targets:
                for name in m.findall(target.target, m.Name()):
                    if name.value not in kernel.program_names:
                        kernel.program_names.add(name.value)
                        changed = True
    return kernel
