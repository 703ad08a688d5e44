"""A mutant schema: one file's functions instrumented so that each site evaluates its original expression and every
mutated one (through the probe, teeth.workers.probe), built the same way by the lab and by the worker."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from teeth.workers.probe import PROBE


def expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


@dataclass(frozen=True)
class Site:
    """One mutant the pass can evaluate: its original text at [start, end) of its file, and its replacement."""

    mutant: str
    swap: str
    start: int
    end: int
    replacement: str


@dataclass
class Schema:
    """One file instrumented: its tree (compiled by the worker), the functions to swap, each mutant's key (the
    number of its site and its place among the site's mutants)."""

    path: str
    tree: ast.Module
    swaps: list[str]
    keys: dict[str, str] = field(default_factory=dict)  # mutant id -> "site:index"


class _Sites(ast.NodeVisitor):
    """Expression nodes by their position, inside a function (where a lambda in their place sees the same names)."""

    def __init__(self):
        self.nodes: dict[tuple, ast.expr] = {}
        self.scopes: list[str] = []
        self.parents: dict[int, ast.AST] = {}

    def generic_visit(self, node):
        for child in ast.iter_child_nodes(node):
            self.parents[id(child)] = node
        kind = "class" if isinstance(node, ast.ClassDef) else "function" if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
        if kind:
            self.scopes.append(kind)
        if isinstance(node, ast.expr) and self.scopes and self.scopes[-1] == "function":
            key = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
            self.nodes.setdefault(key, node)
        super().generic_visit(node)
        if kind:
            self.scopes.pop()


def _position(lines: list[str], offset: int) -> tuple[int, int]:
    """(line, UTF-8 byte column) of a character offset, as `ast` counts them."""
    line, seen = 0, 0
    while line < len(lines) and seen + len(lines[line]) <= offset:
        seen += len(lines[line])
        line += 1
    text = lines[line] if line < len(lines) else ""
    return line + 1, len(text[:offset - seen].encode())


def _node_at(sites: _Sites, source: str, lines: list[str], start: int, end: int) -> ast.expr | None:
    """The expression node the text [start, end) is: libcst's text of a parenthesised node keeps its parentheses
    and the whitespace inside them; ast's position does not."""
    for _ in range(8):
        while start < end and source[start].isspace():
            start += 1
        while end > start and source[end - 1].isspace():
            end -= 1
        node = sites.nodes.get((*_position(lines, start), *_position(lines, end)))
        if node is not None or not (source[start:start + 1] == "(" and source[end - 1:end] == ")"):
            return node
        start, end = start + 1, end - 1
    return None


class Expressions:
    """The expression nodes of one source that lie inside functions, by their character spans."""

    def __init__(self, source: str):
        self.source, self.lines = source, source.splitlines(True)
        self.sites = _Sites()
        self.sites.visit(ast.parse(source))
        starts, total = [], 0
        for line in self.lines:
            starts.append(total)
            total += len(line)

        def offset(line: int, column: int) -> int:
            text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
            return (starts[line - 1] if line - 1 < len(starts) else total) + len(
                text.encode()[:column].decode(errors="ignore"))

        self.spans = [(offset(a, b), offset(c, d)) for a, b, c, d in self.sites.nodes]

    def is_node(self, start: int, end: int) -> bool:
        return _node_at(self.sites, self.source, self.lines, start, end) is not None

    def enclosing(self, start: int, end: int) -> tuple[int, int] | None:
        """The span of the smallest expression that holds [start, end) (an operator, a comparison's right side)."""
        holding = [(e - s, s, e) for s, e in self.spans if s <= start and e >= end]
        return min(holding)[1:] if holding else None


def build_schema(path: str, source: str, sites: list[Site], pure: Callable[[ast.expr], bool] | None = None,
                 prefix: str = "") -> Schema | None:
    """The instrumented tree of `source` for `sites` (those whose original is `pure` too, when given: the lab
    passes the effects table's judgement and sends the worker only the sites kept); None when none is left. Each
    site's number starts with `prefix`: the files of one pass need distinct prefixes."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = _Sites()
    found.visit(tree)
    lines = source.splitlines(True)
    by_node: dict[int, list] = defaultdict(list)
    nodes: dict[int, ast.expr] = {}
    swaps: set[str] = set()
    for site in sites:
        node = _node_at(found, source, lines, site.start, site.end)
        replacement = expression(site.replacement)
        if node is None or replacement is None or isinstance(node, (ast.Slice, ast.Starred)) \
                or (pure is not None and not pure(node)) \
                or isinstance(found.parents.get(id(node)), (ast.JoinedStr, ast.FormattedValue)):
            continue
        by_node[id(node)].append((site, replacement))
        nodes[id(node)] = node
        swaps.add(site.swap)
    if not by_node:
        return None
    numbers = {ident: f"{prefix}{number}" for number, ident in enumerate(by_node)}
    keys = {site.mutant: f"{numbers[ident]}:{index}"
            for ident, pairs in by_node.items() for index, (site, _) in enumerate(pairs)}

    class Instrument(ast.NodeTransformer):
        def visit(self, node):
            ident = id(node)  # before generic_visit: it may replace the node's children, never the node
            node = self.generic_visit(node)
            pairs = by_node.get(ident)
            if not pairs:
                return node
            thunks = [ast.Lambda(args=_no_args(), body=node)]
            thunks += [ast.Lambda(args=_no_args(), body=_located(replacement, node)) for _, replacement in pairs]
            call = ast.Call(func=ast.Name(id=PROBE, ctx=ast.Load()), args=[ast.Constant(numbers[ident]), *thunks],
                            keywords=[])
            return ast.copy_location(call, node)

    instrumented = ast.fix_missing_locations(Instrument().visit(tree))
    return Schema(path=path, tree=instrumented, swaps=sorted(swaps), keys=keys)


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _located(expr: ast.expr, at: ast.expr) -> ast.expr:
    for node in ast.walk(expr):
        node.lineno, node.col_offset = at.lineno, at.col_offset
        node.end_lineno, node.end_col_offset = at.end_lineno, at.end_col_offset
    return expr
