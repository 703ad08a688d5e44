"""Discover: parse each target file with libcst, apply every operator, produce mutant records."""

from __future__ import annotations

import difflib
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from teeth.annotations import read_annotations
from teeth.arid import AridTracker
from teeth.config import Target
from teeth.equivalence import EquivalenceRules
from teeth.errors import ConfigError
from teeth.bindings import NO_BINDINGS, Bindings, bindings_of
from teeth.kernel_context import Kernel, is_kernel, kernel_of
from teeth.operators import Operator
from teeth.sources import read_source


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
    code: str = field(repr=False)  # the whole mutated file
    diff: str = field(repr=False)
    lines: list[int] = field(default_factory=list)  # the lines whose coverage selects its tests
    skip: str | None = None  # "pragma: no mutate", "equivalent: <reason>", "teeth: off ...", "skip: <pattern> ..."

    @property
    def one_line(self) -> str:
        return f"{_squash(self.original)} -> {_squash(self.replacement)}"


@dataclass
class Discovery:
    mutants: list[Mutant]
    arid: int = 0  # mutants not made: message text, docstrings, logging
    duplicates: int = 0  # mutants that produced code another mutant already produced
    unviable: int = 0  # mutants that do not compile


def _squash(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, operators: list[Operator]):
        super().__init__()
        self.operators = operators
        self.found: list[tuple[cst.CSTNode, cst.CSTNode, Operator, str, str, int]] = []
        self.arid = 0
        self._tracker = AridTracker()
        self._scope: list[tuple[str, str]] = []  # ("class"|"def", name)
        self._signature = 0
        self._statement_lines: list[int] = []
        self._parents: list[cst.CSTNode] = []
        self._skipped: set[int] = set()
        self._kernels: list[Kernel | None] = []  # one entry per enclosing function
        self._bindings: list[Bindings] = []  # one entry per enclosing function

    def _qualname(self) -> tuple[str, str]:
        parts: list[str] = []
        swap = ""
        for kind, name in self._scope:
            parts.append(name)
            if kind == "def":
                if not swap:
                    swap = ".".join(parts)
                parts.append("<locals>")
        qual = ".".join(parts[:-1] if parts and parts[-1] == "<locals>" else parts)
        return qual, swap

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Decorator, cst.Annotation, cst.Import, cst.ImportFrom)):
            self._skipped.add(id(node))
            return False
        self._tracker.enter(node)
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statement_lines.append(self.get_metadata(PositionProvider, node).start.line)
        if isinstance(node, cst.Parameters):
            self._signature += 1
        parent = self._parents[-1] if self._parents else None
        self._mutate(node, parent)
        if isinstance(node, cst.ClassDef):
            self._scope.append(("class", node.name.value))
        elif isinstance(node, cst.FunctionDef):
            self._scope.append(("def", node.name.value))
            self._kernels.append(kernel_of(node) if is_kernel(node) else None)
            self._bindings.append(bindings_of(node))
        self._parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if id(original_node) in self._skipped:
            self._skipped.discard(id(original_node))
            return
        self._parents.pop()
        if isinstance(original_node, (cst.ClassDef, cst.FunctionDef)):
            self._scope.pop()
        if isinstance(original_node, cst.FunctionDef):
            self._kernels.pop()
            self._bindings.pop()
        if isinstance(original_node, cst.Parameters):
            self._signature -= 1
        if isinstance(original_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statement_lines.pop()
        self._tracker.leave(original_node)

    def _mutate(self, node: cst.CSTNode, parent: cst.CSTNode | None) -> None:
        kernel = next((k for k in reversed(self._kernels) if k is not None), None)
        for operator in self.operators:
            if not operator.applies_to(node) or (operator.kernel_only and kernel is None):
                continue
            made = operator.mutants_at(node, parent, kernel, self._bindings[-1] if self._bindings else NO_BINDINGS)
            for replacement in made:
                if self._tracker.arid:
                    self.arid += 1
                    continue
                qual, swap = self._qualname()
                if self._signature:
                    swap = ""  # defaults run at definition time: apply at module level
                stmt = self._statement_lines[-1] if self._statement_lines else 0
                self.found.append((node, replacement, operator, qual, swap, stmt))


def discover_file(target: Target, path: Path, operators: list[Operator]) -> Discovery:
    """Every mutant of one file, in source order; domain operators before generic ones."""
    source = read_source(path)  # its coding line honoured, a BOM removed: the text Python compiles
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise ConfigError(f"{path}:{exc.raw_line}: cannot parse target file: {exc.message}") from None
    wrapper = MetadataWrapper(module)
    collector = _Collector(operators)
    wrapper.visit(collector)
    positions = wrapper.resolve(PositionProvider)
    annotations = read_annotations(source)
    rules = EquivalenceRules(wrapper, target.contiguous_decorators)
    display = target.display_path(path)
    result = Discovery(mutants=[], arid=collector.arid)
    seen_code = {hashlib.sha256(source.encode()).hexdigest()}
    occurrences: Counter = Counter()
    ordered = sorted(collector.found, key=lambda f: (not f[2].domain,))
    offsets = _line_offsets(source)
    for node, replacement, operator, qual, swap, stmt in ordered:
        original_text = wrapper.module.code_for_node(node)
        replacement_text = wrapper.module.code_for_node(replacement)
        pos = positions[node]
        start = offsets[pos.start.line - 1] + pos.start.column
        end = offsets[pos.end.line - 1] + pos.end.column
        at = _text_at(source, original_text, start, end)
        shift = _indent_shift(source[start:end], original_text) if at is None else None
        if at is not None:  # splice the text: a tree rebuild per mutant costs 25 ms (300 ms in a 900-line file)
            code = source[:at] + replacement_text + source[at + len(original_text):]
        elif shift is not None and shift(replacement_text) is not None:  # a nested node, generated unindented
            code = source[:start] + shift(replacement_text) + source[end:]
        else:
            mutated = wrapper.module.deep_replace(node, replacement)
            code = mutated.code if isinstance(mutated, cst.Module) else ""
        digest = hashlib.sha256(code.encode()).hexdigest()
        if digest in seen_code:
            result.duplicates += 1
            continue
        try:
            compile(code, str(path), "exec")
        except (SyntaxError, ValueError):
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
            original=original_text, replacement=replacement_text, code=code,
            diff=_diff(source, code, display), lines=sorted({stmt, *span} - {0}),
            skip=(annotations.skip_reason(span, operator.name)
                  or target.skip_reason(ident, display, qual, operator.name)
                  or rules.reason(node, replacement, operator.name)),
        ))
    result.mutants.sort(key=lambda m: (m.line, m.operator))
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


def _line_offsets(source: str) -> list[int]:
    offsets, total = [], 0
    for line in source.splitlines(True):
        offsets.append(total)
        total += len(line)
    return [*offsets, total]


def _diff(before: str, after: str, name: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        f"a/{name}", f"b/{name}", n=2))


def discover(target: Target, operators: list[Operator]) -> Discovery:
    total = Discovery(mutants=[])
    for path in target.files:
        found = discover_file(target, path, operators)
        total.mutants.extend(found.mutants)
        total.arid += found.arid
        total.duplicates += found.duplicates
        total.unviable += found.unviable
    return total
