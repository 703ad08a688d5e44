"""The operator interface: one bug class as a libcst node transform, with its examples."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

from teeth.operators.context import Context


@dataclass(frozen=True)
class Example:
    """A before/after pair: `after` lists every mutant the operator makes of `before`."""

    before: str
    after: tuple[str, ...]


class Operator:
    """A bug class. Subclasses set the class attributes and implement `mutate`."""

    name: str = ""
    summary: str = ""
    bug: str = ""  # a paragraph on the real bug this models
    killing_test: str = ""  # the shape of a test that kills its mutants (`teeth show` prints it for a survivor)
    kills: tuple[str, ...] = ("behaviour",)  # the checks that must kill its mutants
    node_types: tuple[type[cst.CSTNode], ...] = ()
    domain: bool = True  # a bug class of batched tensor code, as opposed to a generic mutation
    kernel_only: bool = False  # applies only inside @triton.jit kernels
    dtypes: tuple[str, ...] | None = None  # a profile kills it only when it runs one of these dtypes; None: any

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        """Every replacement for `node`, given where it stands (`ctx`: its parent, the enclosing function, the
        @triton.jit kernel around it if any, the names that function binds once, its position)."""
        raise NotImplementedError

    def examples(self) -> list[Example]:
        return []

    def unkillable_on(self, profile) -> str | None:
        """Why no test of `profile` (a teeth.profiles.Profile) can kill this operator's mutants, or None."""
        if self.dtypes is None or profile.dtype in self.dtypes:
            return None
        return (f"{self.name} is only killable on a profile that runs {' or '.join(self.dtypes)} "
                f"(profile {profile.name} runs {profile.dtype})")

    def applies_to(self, node: cst.CSTNode) -> bool:
        return isinstance(node, self.node_types)


def method_call(node: cst.CSTNode, *names: str) -> bool:
    """`x.<name>(...)` for one of `names`."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in names
    )


def torch_call(node: cst.CSTNode, *names: str) -> bool:
    """`torch.<name>(...)` for one of `names`."""
    return method_call(node, *names) and isinstance(node.func.value, cst.Name) and node.func.value.value == "torch"


def positional(node: cst.Call, index: int, keyword: str | None = None) -> cst.Arg | None:
    """The argument at a positional index, or given by keyword."""
    plain = [a for a in node.args if a.keyword is None and not a.star]
    if index < len(plain):
        return plain[index]
    if keyword:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                return arg
    return None


def replace_arg(node: cst.Call, old: cst.Arg, value: cst.BaseExpression) -> cst.Call:
    return node.with_changes(args=[a.with_changes(value=value) if a is old else a for a in node.args])


def slice_elements(node: cst.Subscript) -> Iterable[cst.Slice]:
    for element in node.slice:
        if isinstance(element.slice, cst.Slice):
            yield element.slice


def narrowing_slices(node: cst.Subscript) -> list[cst.Slice]:
    """The slices of a subscript that narrow (have a bound): `t[a:b]`, not `t[:, None]`."""
    return [s for s in slice_elements(node) if s.lower is not None or s.upper is not None]


def is_zero(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0
