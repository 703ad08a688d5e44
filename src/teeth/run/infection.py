"""The infection pass (a mutant schema): which mutants replace a side-effect-free expression, one instrumented copy
of each file that evaluates every such mutant at its site, and what the pass's records decide about each mutant."""

from __future__ import annotations

import ast
import dataclasses
from collections import defaultdict
from dataclasses import astuple
from pathlib import Path

from teeth.core import Infection, Outcome, Status, Why
from teeth.errors import ConfigError
from teeth.equivalence.effects import FUNCTIONS, METHODS
from teeth.syntax.sources import read_source
from teeth.workers.schema import Expressions, Site, build_schema, expression

_FUNCTION_MODULES = ("torch", "F", "torch.nn.functional", "nn.functional")
# Rows of the effects table whose call does something the table does not model: draws from the random generator
# (a second evaluation would change every later draw) or writes to a stream.
_DRAWS = {name for name in FUNCTIONS if name.startswith("rand")} | {"dropout", "print"}
_PURE_NODES = (ast.Name, ast.Constant, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp,
               ast.Subscript, ast.Slice, ast.Tuple, ast.Call, ast.keyword, ast.Load, ast.operator, ast.unaryop,
               ast.cmpop, ast.boolop, ast.List)


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = _dotted(expr.value)
        return f"{head}.{expr.attr}" if head else None
    return None


def _pure_call(call: ast.Call) -> bool:
    """A call the effects table says writes nothing (no `out=`), of a callable that draws nothing and prints nothing."""
    if any(k.arg == "out" or k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred)
                                                                         for a in call.args):
        return False
    func = call.func
    if isinstance(func, ast.Name):
        name, row = func.id, FUNCTIONS.get(func.id)
    elif isinstance(func, ast.Attribute) and _dotted(func.value) in _FUNCTION_MODULES:
        name, row = func.attr, FUNCTIONS.get(func.attr)
    elif isinstance(func, ast.Attribute):
        name, row = func.attr, METHODS.get(func.attr)
    else:
        return False
    return row is not None and not row.writes_receiver and name not in _DRAWS


def pure(expr: ast.AST) -> bool:
    """Evaluating `expr` a second time changes nothing: names, constants, attributes, arithmetic, comparisons,
    boolean operators, subscripts and slices of those, and calls the effects table marks free of writes."""
    for node in ast.walk(expr):
        if not isinstance(node, _PURE_NODES):
            return False
        if isinstance(node, ast.Name) and node.id in ("super", "__class__"):  # a lambda has no class cell
            return False
        if isinstance(node, ast.Call) and not _pure_call(node):
            return False
    return True


def site_of(source: str, expressions: Expressions | None, mutant) -> Site | None:
    """The mutant as a site of the schema, or None: not inside a function, skipped, or its replacement not pure. A
    mutant of part of an expression (an operator, a comparison's right side) is a site of the smallest expression
    that holds it, with that expression's mutated text as its replacement."""
    if not mutant.swap or mutant.skip:
        return None
    span = _span(source, mutant)
    if span is None:
        return None
    start, end = span
    text = mutant.replacement
    if expressions is not None and not expressions.is_node(start, end):
        held = expressions.enclosing(start, end)
        if held is None:
            return None
        text = source[held[0]:start] + mutant.replacement + source[end:held[1]]
        start, end = held
    replacement = expression(text)
    if replacement is None or not pure(replacement):
        return None
    return Site(mutant.id, mutant.swap, start, end, text)


def _span(source: str, mutant) -> tuple[int, int] | None:
    """Where the mutant's original text is in the source: the one place that `code` replaced."""
    code, original, replacement = mutant.code, mutant.original, mutant.replacement
    if len(code) - len(replacement) != len(source) - len(original):
        return None
    lines = source.splitlines(True)
    base = sum(len(line) for line in lines[:mutant.line - 1])
    last = sum(len(line) for line in lines[:mutant.end_line])
    at = source.find(original, base)
    while 0 <= at <= last:
        if code[at:at + len(replacement)] == replacement and code[:at] == source[:at] \
                and code[at + len(replacement):] == source[at + len(original):]:
            return at, at + len(original)
        at = source.find(original, at + 1)
    return None


def plan(scenarios: list, by_id: dict, timeout: float) -> tuple[Infection | None, dict[str, tuple[str, str]]]:
    """The pass for these scheduled mutants: the sites of those it can evaluate, and the tests that cover them (in
    the order of the first scenario that names each), or None when no mutant qualifies; and per mutant the
    expression its site evaluates, original and mutated."""
    files: dict[str, list] = defaultdict(list)
    tests: dict[str, None] = {}
    covers: dict[str, list[str]] = defaultdict(list)
    sources: dict[str, tuple | None] = {}
    for scenario in scenarios:
        mutant = by_id[scenario.id]
        if scenario.recollect:
            continue  # its code ran while the tests were collected, where no probe of a test sees it
        if mutant.path not in sources:
            try:
                text = read_source(Path(mutant.path))
                sources[mutant.path] = (text, Expressions(text))
            except (OSError, ConfigError, SyntaxError, ValueError):
                sources[mutant.path] = None
        found = sources[mutant.path]
        site = site_of(*found, mutant) if found is not None else None
        if site is None:
            continue
        files[mutant.path].append(site)
        tests.update(dict.fromkeys(scenario.tests))
        for test in scenario.tests:
            covers[test].append(scenario.id)
    texts = {}
    for path, sites in list(files.items()):  # only the sites whose original is pure too
        source = sources[path][0]
        schema = build_schema(path, source, sites, pure)
        kept = [site for site in sites if schema is not None and site.mutant in schema.keys]
        files[path] = [list(astuple(site)) for site in kept]
        texts.update({site.mutant: (source[site.start:site.end], site.replacement) for site in kept})
    files = {path: sites for path, sites in files.items() if sites}
    if not files:
        return None, {}
    return Infection(tests=list(tests), files=dict(files), covers=dict(covers), timeout=timeout), texts


def decide(scenarios: list, by_id: dict, done, texts: dict | None = None) -> tuple[list, list]:
    """What the pass's `done` (an InfectionDone) decides: a mutant it put in place that no covering test infected
    survives without running, why `not_infected`; one that was infected runs the tests that infected it first.
    Returns the scenarios left to run and the (mutant, outcome) pairs decided."""
    kept, decided = [], []
    instrumented, compiled = set(done.instrumented), set(done.compiled)
    for scenario in scenarios:
        if scenario.id not in instrumented:
            kept.append(scenario)
            continue
        entry = done.mutants.get(scenario.id) or {"evaluations": 0, "tests": [], "values": [], "infected": {}}
        infecting = [t for t in scenario.tests if t in entry["infected"] or t in done.failed or t in compiled]
        if infecting:
            rest = [t for t in scenario.tests if t not in infecting]
            kept.append(dataclasses.replace(scenario, tests=[*infecting, *rest]))
            continue
        mutant = by_id[scenario.id]
        original, replacement = (texts or {}).get(scenario.id, (mutant.original, mutant.replacement))
        decided.append((mutant, Outcome(scenario.id, Status.SURVIVED, why=Why.NOT_INFECTED, tests_run=0,
                                        detail=fact(original, replacement, entry, len(scenario.tests)))))
    return kept, decided


def fact(original: str, replacement: str, entry: dict, covering: int) -> str:
    """What the pass saw of a mutant no test infected (its site's expression, original and mutated), in one line."""
    original = " ".join(original.split())
    if not entry["evaluations"]:
        return f"{original} was never evaluated by its {covering} covering test{'s' * (covering != 1)}"
    values = " or ".join(entry["values"]) or "the same"
    evaluations, tests = entry["evaluations"], len(entry["tests"])
    return (f"{original} was {values} in all {evaluations} evaluation{'s' * (evaluations != 1)}, {tests} "
            f"test{'s' * (tests != 1)}; {' '.join(replacement.split())} gave the same every time")


def observed(done) -> set[str]:
    """The mutants a probe of the pass (`done`, an InfectionDone) saw take another value than the original's."""
    return {mutant for mutant, entry in done.mutants.items() if entry["infected"]}


def below_dtype(outcome: Outcome, reason: str | None, seen: set[str]) -> Outcome:
    """A mutant only a profile of another dtype is expected to kill (`reason`: Operator.unkillable_on), on this
    profile: dropping an upcast is nothing where the operand already has the profile's dtype, and a real change where
    it does not (a float64 array cast down, an integer or boolean tensor made floating). So such a mutant runs like
    any other, and is `skipped` with `reason` only where its change was not seen to matter here: no covering test
    infected it (the cast gave back its operand), or it survived while neither a probe saw its value differ nor its
    function's outputs were seen to differ (it ran where probes cannot look: a @triton.jit kernel, an expression the
    pass does not evaluate; or no pass ran). A survivor whose change was seen keeps its verdict: on this profile it is
    a bug."""
    if reason is None or outcome.status is not Status.SURVIVED or outcome.mutant_id in seen \
            or outcome.why is Why.NOT_CHECKED:
        return outcome
    if outcome.why is Why.NOT_INFECTED:
        return outcome.replace(status=Status.SKIPPED, why=None,
                               detail=f"{reason}; here its change was nothing: {outcome.detail}")
    tests = outcome.tests_run or 0
    measured = f" ({outcome.why}: {outcome.detail})" if outcome.why else " (no infection pass)"
    return outcome.replace(status=Status.SKIPPED, why=None,
                           detail=f"{reason}; it survived its {tests} test{'s' * (tests != 1)} here, and no "
                                  f"difference it made was seen{measured}")
