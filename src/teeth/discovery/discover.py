"""Discover: parse each target file with libcst, apply every operator, produce mutant records."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from teeth.discovery.annotations import read_annotations
from teeth.discovery.arid import AridProvider
from teeth.config.targets import Target
from teeth.discovery.edits import Edit, SourceText, apply, edit_between
from teeth.equivalence import EquivalenceRules
from teeth.errors import ConfigError
from teeth.syntax.functions import EnclosingProvider
from teeth.operators import Operator
from teeth.operators.context import Context
from teeth.syntax.sources import read_source


@dataclass
class Mutant:
    id: str
    target: str
    file: str  # as shown: relative to the target's root
    path: str  # absolute path of the file the mutant lives in
    line: int
    end_line: int
    function: str  # qualified name of the enclosing function, "" at module level
    swap: str  # qualified name of the outermost enclosing function: the code object swapped in
    op: str
    operator: str
    original: str
    replacement: str
    source: str = field(repr=False)  # the file's text, one string shared by all its mutants
    edit: Edit  # the change: source[start:end] becomes the text
    diff: str = field(repr=False)
    lines: list[int] = field(default_factory=list)  # the lines whose coverage selects its tests
    skip: str | None = None  # "pragma: no mutate", "equivalent: <reason>", "teeth: off ...", "skip: <pattern> ..."

    @property
    def code(self) -> str:
        """The whole mutated file."""
        return apply(self.source, self.edit)

    @property
    def one_line(self) -> str:
        return f"{_squash(self.original)} -> {_squash(self.replacement)}"


@dataclass
class Discovery:
    mutants: list[Mutant]
    arid: int = 0  # mutants not made: message text, docstrings, logging
    duplicates: int = 0  # mutants that produced code another mutant already produced
    unviable: int = 0  # mutants that do not compile
    read: dict[str, str] = field(default_factory=dict)  # other files the equivalence rules read: path -> sha256


def _squash(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


SKIPPED = (cst.Decorator, cst.Annotation, cst.Import, cst.ImportFrom)  # never mutated, nor anything inside them
STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


@dataclass(frozen=True)
class Found:
    """One replacement an operator made, before it is checked and recorded."""

    node: cst.CSTNode
    replacement: cst.CSTNode
    operator: Operator
    ctx: Context


class Collector(cst.CSTVisitor):
    """Applies every operator to every node, in source order, each with the node's context."""

    METADATA_DEPENDENCIES = (ParentNodeProvider, PositionProvider, EnclosingProvider, AridProvider)

    def __init__(self, operators: list[Operator]):
        super().__init__()
        self.operators = operators
        self.found: list[Found] = []
        self.arid = 0  # mutants not made: message text, docstrings, logging
        self._by_type: dict[type, list[Operator]] = {}  # per node type, the operators that may apply, in order
        self._asked = {id(o) for o in operators if type(o).applies_to is not Operator.applies_to}  # per node

    def applicable(self, node: cst.CSTNode) -> list[Operator]:
        """The operators that apply to `node`, in order. An operator that keeps Operator.applies_to decides by the
        node's type alone, once per type; one that overrides it is asked for every node."""
        kind = type(node)
        candidates = self._by_type.get(kind)
        if candidates is None:
            candidates = self._by_type[kind] = [o for o in self.operators if id(o) in self._asked or o.applies_to(node)]
        if not self._asked:
            return candidates
        return [o for o in candidates if id(o) not in self._asked or o.applies_to(node)]

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, SKIPPED):
            return False
        applicable = self.applicable(node)
        if not applicable:
            return True
        ctx = Context(parent=self.get_metadata(ParentNodeProvider, node, None),
                      enclosing=self.get_metadata(EnclosingProvider, node),
                      position=self.get_metadata(PositionProvider, node))
        arid = self.get_metadata(AridProvider, node)
        for operator in applicable:
            if operator.kernel_only and not ctx.in_kernel:
                continue
            for replacement in operator.mutate(node, ctx):
                if arid:
                    self.arid += 1
                else:
                    self.found.append(Found(node, replacement, operator, ctx))
        return True


def _statement_line(node: cst.CSTNode | None, parents, positions) -> int:
    """The first line of the statement holding `node` (0 for none): its coverage selects the mutant's tests."""
    while node is not None and not isinstance(node, STATEMENTS):
        node = parents.get(node)
    return positions[node].start.line if node is not None else 0


def _in_signature(node: cst.CSTNode | None, parents) -> bool:
    """In a def's (or lambda's) parameters: a default runs when the def runs, so its mutant applies at module
    level, not by swapping the function's code object."""
    while node is not None and not isinstance(node, cst.FunctionDef):
        if isinstance(node, cst.Parameters):
            return True
        node = parents.get(node)
    return False


def discover_file(target: Target, path: Path, operators: list[Operator]) -> Discovery:
    """Every mutant of one file, in source order; domain operators before generic ones."""
    source = read_source(path)  # its coding line honoured, a BOM removed: the text Python compiles
    return discover_source(target, path, source, operators)


def discover_source(target: Target, path: Path, source: str, operators: list[Operator]) -> Discovery:
    """Every mutant of `source`, the text of `path`."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise ConfigError(f"{path}:{exc.raw_line}: cannot parse target file: {exc.message}") from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)  # parsed here, used by nothing else
    collector = Collector(operators)
    wrapper.visit(collector)
    positions = wrapper.resolve(PositionProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    annotations = read_annotations(source)
    rules = EquivalenceRules(wrapper, target.contiguous_decorators, path)
    display = target.display_path(path)
    result = Discovery(mutants=[], arid=collector.arid)
    seen_code = {hashlib.sha256(source.encode()).hexdigest()}
    occurrences: Counter = Counter()
    ordered = sorted(collector.found, key=lambda f: (not f.operator.domain,))
    text = SourceText(source, [(positions[statement].start.line, positions[statement].end.line)
                                 for statement in wrapper.module.body],
                      str(path))
    for found in ordered:
        node, replacement, operator, ctx = found.node, found.replacement, found.operator, found.ctx
        qual = ctx.enclosing.name
        swap = "" if _in_signature(node, parents) else ctx.outer  # defaults run at definition time
        stmt = _statement_line(node, parents, positions)
        original_text = wrapper.module.code_for_node(node)
        replacement_text = wrapper.module.code_for_node(replacement)
        pos = ctx.position
        start, end = text.offset(pos.start.line, pos.start.column), text.offset(pos.end.line, pos.end.column)
        at = _text_at(source, original_text, start, end)
        shift = _indent_shift(source[start:end], original_text) if at is None else None
        if at is not None:  # splice the text: a tree rebuild per mutant costs 25 ms (300 ms in a 900-line file)
            edit = (at, at + len(original_text), replacement_text)
        elif shift is not None and shift(replacement_text) is not None:  # a nested node, generated unindented
            edit = (start, end, shift(replacement_text))
        else:
            mutated = wrapper.module.deep_replace(node, replacement)
            edit = edit_between(source, mutated.code if isinstance(mutated, cst.Module) else "")
        digest = hashlib.sha256(apply(source, edit).encode()).hexdigest()
        if digest in seen_code:
            result.duplicates += 1
            continue
        function = ctx.function.outer if ctx.function is not None else None
        if not text.compiles(edit, (function.first, function.last) if function is not None else None):
            result.unviable += 1
            continue
        seen_code.add(digest)
        key = (display, qual, operator.name, original_text, replacement_text)
        occurrence = occurrences[key]
        occurrences[key] += 1
        ident = hashlib.sha256("\0".join((target.name, *key, str(occurrence))).encode()).hexdigest()[:12]
        span = range(pos.start.line, pos.end.line + 1)
        result.mutants.append(Mutant(
            id=ident, target=target.name, file=display, path=str(path), line=pos.start.line,
            end_line=pos.end.line, function=qual, swap=swap, op=target.op_for(qual, path), operator=operator.name,
            original=original_text, replacement=replacement_text, source=source, edit=edit,
            diff=text.diff(edit, display), lines=sorted({stmt, *span} - {0}),
            skip=(annotations.skip_reason(span, operator.name)
                  or target.skip_reason(ident, display, qual, operator.name)
                  or rules.reason(node, replacement, operator)),
        ))
    result.mutants.sort(key=lambda m: (m.line, m.operator))
    result.read = rules.files_read
    return result


def _text_at(source: str, text: str, start: int, end: int) -> int | None:
    """Where the node's text is in the source: at its position, or, for a statement whose text carries its leading
    blank or comment lines and its newline (outside the position's span), the one place it covers that span."""
    if source[start:end] == text:
        return start
    at = source.find(text, max(0, end - len(text)), start + len(text))
    return at if at != -1 and at <= start and at + len(text) >= end else None


def _indent_shift(span: str, text: str):
    """libcst generates a nested multi-line node as if it stood at column 0: its continuation lines are indented
    less than in the source. The shift of continuation lines that makes `text` the source's `span` exactly, as a
    function (None for a text it cannot shift), or None when no such shift exists."""
    first = text.split("\n")
    if len(first) < 2:
        return None
    ours, theirs = span.split("\n"), first
    if len(ours) != len(theirs):
        return None
    widths = [(len(a) - len(a.lstrip(" ")), len(b) - len(b.lstrip(" "))) for a, b in zip(ours[1:], theirs[1:]) if b]
    if not widths:
        return None
    delta = widths[0][0] - widths[0][1]

    def shift(generated: str) -> str | None:
        head, *rest = generated.split("\n")
        moved = []
        for line in rest:
            if not line:
                moved.append(line)
            elif delta >= 0:
                moved.append(" " * delta + line)
            elif line.startswith(" " * -delta):
                moved.append(line[-delta:])
            else:
                return None
        return "\n".join([head, *moved])

    return shift if shift(text) == span else None


def discover(target: Target, operators: list[Operator]) -> Discovery:
    total = Discovery(mutants=[])
    for path in target.files:
        found = discover_file(target, path, operators)
        total.mutants.extend(found.mutants)
        total.arid += found.arid
        total.duplicates += found.duplicates
        total.unviable += found.unviable
    return total
