"""The operator interface: one bug class as a libcst node transform, with its examples."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

from teeth.core import Check
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
    kills: tuple[Check, ...] = (Check.BEHAVIOUR,)  # the checks that must kill its mutants
    node_types: tuple[type[cst.CSTNode], ...] = ()
    domain: bool = True  # a bug class of batched tensor code, as opposed to a generic mutation
    kernel_only: bool = False  # applies only inside @triton.jit kernels
    dtypes: tuple[str, ...] | None = None  # a profile kills it only when it runs one of these dtypes; None: any
    # the equivalence rules that judge its mutants (teeth.equivalence); any mutant of a launch's unread keyword
    rules: tuple[str, ...] = ("unread_launch_keyword",)

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        """Every replacement for `node`, given where it stands (`ctx`: its parent, the enclosing function, the
        @triton.jit kernel around it if any, the names that function binds once, its position)."""
        raise NotImplementedError

    def examples(self) -> list[Example]:
        return []

    def unkillable_on(self, profile) -> str | None:
        """Why no test of `profile` (a teeth.config.profiles.Profile) can kill this operator's mutants, or None."""
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


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def sizes(value: cst.BaseExpression) -> bool:
    """`x.shape` or `x.size()`: a torch.Size, whose slice is a tuple of sizes with no .clone()."""
    if isinstance(value, cst.Attribute):
        return value.attr.value == "shape"
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "size" \
        and not value.args



def _str_annotation(annotation: cst.BaseExpression) -> bool:
    """`str`, `str | None`, `Optional[str]`, `Literal["a", "b"]`."""
    if isinstance(annotation, cst.Name):
        return annotation.value == "str"
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        sides = [annotation.left, annotation.right]
        return any(_str_annotation(side) for side in sides) and all(
            _str_annotation(side) or (isinstance(side, cst.Name) and side.value == "None") for side in sides)
    if isinstance(annotation, cst.Subscript) and isinstance(annotation.value, (cst.Name, cst.Attribute)):
        kind = annotation.value.value if isinstance(annotation.value, cst.Name) else annotation.value.attr.value
        items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if kind == "Optional":
            return len(items) == 1 and _str_annotation(items[0])
        if kind == "Literal":
            return bool(items) and all(isinstance(item, _STRINGS) for item in items)
    return False


def slices_no_rows(node: cst.Subscript, ctx: Context) -> bool:
    """Is the subscripted value no tensor of rows but text or sizes: a string literal, a parameter annotated `str`
    (or `Optional[str]`, `Literal["..."]`) that the function never rebinds (`reduce[-3:]` of `reduce: str`), or
    `x.shape` / `x.size()`, or a name the function binds once to one of those? Slicing those is no batch bug: the
    slice operators leave them alone."""
    value = node.value
    if isinstance(value, _STRINGS) or sizes(value):
        return True
    if not isinstance(value, cst.Name) or ctx.function is None:
        return False
    if sizes(ctx.bindings.resolve(value)):
        return True  # `shape = x.shape` bound once, then `shape[:-1]`
    function = ctx.function.node
    params = function.params
    annotated = [p for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                 if p.name.value == value.value and p.annotation is not None]
    if not annotated or not _str_annotation(annotated[0].annotation.annotation):
        return False
    return ctx.bindings.bound.get(value.value) == 1  # the parameter, never rebound


def is_zero(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0
