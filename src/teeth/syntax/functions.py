"""The function index: each function of a file with its qualified name, outermost function and line span."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, VisitorMetadataProvider

from teeth.syntax.bindings import Bindings, bindings_of
from teeth.syntax.kernel_context import Kernel, is_kernel, kernel_of


@dataclass(frozen=True, eq=False)
class Function:
    """One `def` (async or not). Its name is Python's `__qualname__` (`f.<locals>.g`, `Cls.meth`); its span runs
    from its first decorator to its last line."""

    name: str
    node: cst.FunctionDef = field(repr=False)
    first: int
    last: int
    parent: Function | None = field(default=None, repr=False)  # the function it is defined in, if any
    owner: cst.ClassDef | None = field(default=None, repr=False)  # the class whose body holds its def (a method's)

    @property
    def outer(self) -> Function:
        """The outermost function holding it (itself at module or class level): the code object a mutant swaps."""
        function = self
        while function.parent is not None:
            function = function.parent
        return function

    @cached_property
    def kernel(self) -> Kernel | None:
        """The @triton.jit kernel it is, or is nested in; None for host code."""
        if is_kernel(self.node):
            return kernel_of(self.node)
        return self.parent.kernel if self.parent is not None else None

    @cached_property
    def bindings(self) -> Bindings:
        """The names its own body binds once, and to what."""
        return bindings_of(self.node)


@dataclass(frozen=True)
class Enclosing:
    """What holds a node: the qualified name of the innermost class or function ("" at module level: a mutant's
    `function`), and the innermost function (None outside every function)."""

    name: str
    function: Function | None


MODULE_LEVEL = Enclosing("", None)


class EnclosingProvider(VisitorMetadataProvider[Enclosing]):
    """libcst metadata: what holds each node. A `def` or `class` node belongs to the code around it; its name,
    parameters and body to itself. Classes name methods but are not functions."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self._names: list[str] = []  # the qualified-name parts so far
        self._held: list[Enclosing] = [MODULE_LEVEL]
        self._classes: list[cst.ClassDef | None] = [None]  # per held level: the class it is, None for a function

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.set_metadata(node, self._held[-1])
        if isinstance(node, cst.ClassDef):
            self._names.append(node.name.value)
            self._held.append(Enclosing(".".join(self._names), self._held[-1].function))
            self._classes.append(node)
        elif isinstance(node, cst.FunctionDef):
            position = self.get_metadata(PositionProvider, node)
            first = min([position.start.line,
                         *(self.get_metadata(PositionProvider, d).start.line for d in node.decorators)])
            name = ".".join([*self._names, node.name.value])
            function = Function(name, node, first, position.end.line, self._held[-1].function, self._classes[-1])
            self._held.append(Enclosing(name, function))
            self._classes.append(None)
            self._names.extend((node.name.value, "<locals>"))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.ClassDef):
            self._names.pop()
            self._held.pop()
            self._classes.pop()
        elif isinstance(original_node, cst.FunctionDef):
            self._held.pop()
            self._classes.pop()
            del self._names[-2:]


@dataclass(frozen=True)
class Span:
    """A function's place in its file, without its tree: what check scoping and baseline selection need."""

    name: str
    first: int
    last: int
    outer: str  # the qualified name of the outermost function holding it (its own at module or class level)


@dataclass(frozen=True)
class FunctionIndex:
    """Every function of one file, in source order."""

    functions: tuple[Span, ...]

    @classmethod
    def of(cls, wrapper: MetadataWrapper) -> FunctionIndex:
        seen: dict[int, Function] = {}
        for held in wrapper.resolve(EnclosingProvider).values():
            if held.function is not None:
                seen.setdefault(id(held.function), held.function)
        spans = (Span(f.name, f.first, f.last, f.outer.name) for f in seen.values())
        return cls(tuple(sorted(spans, key=lambda f: (f.first, f.last))))

    def spans(self, name: str) -> list[tuple[int, int]]:
        """The line spans of the functions of that qualified name (a name defined twice has two)."""
        return [(f.first, f.last) for f in self.functions if f.name == name]

    def outer_functions(self) -> list[Span]:
        """The functions no other function holds (module-level functions and methods), which never overlap."""
        return [f for f in self.functions if f.outer == f.name]


@lru_cache(maxsize=256)
def function_index(source: str) -> FunctionIndex:
    """The function index of a source text (cst.ParserSyntaxError when it does not parse)."""
    return FunctionIndex.of(MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True))
