"""Per-test coverage in the worker: each baseline test run once under coverage.py, its executed lines recorded."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable

import coverage


LIGHT_THREADS = ("gevent", "eventlet", "greenlet")  # coverage.py follows one of these, with threads


def concurrency_of(modules) -> list[str]:
    """The concurrency models coverage.py must follow for code that has imported `modules`: threads always, and
    the first of gevent, eventlet and greenlet imported (a hook run in a greenlet is lost to coverage without it)."""
    light = next((name for name in LIGHT_THREADS if name in modules), None)
    return ["thread", light] if light else ["thread"]


def measure(items: list, files: list[str], run_item: Callable, concurrency: list[str] | None = None) -> dict:
    """Run every item once under coverage.py with one dynamic context per test (in a worker child). `concurrency`:
    coverage.py's models; None: those of what the tests imported (`concurrency_of`)."""
    include = _include(files)
    models = concurrency if concurrency is not None else concurrency_of(sys.modules)
    cov = coverage.Coverage(data_file=None, include=include, config_file=False, concurrency=models)
    tests: dict[str, dict] = {}
    cov.start()
    try:
        for item in items:
            cov.switch_context(item.nodeid)
            started = time.perf_counter()
            failure = run_item(item)
            tests[item.nodeid] = {"failure": failure, "duration": time.perf_counter() - started, "lines": {}}
    finally:
        cov.stop()
    data = cov.get_data()
    for measured in data.measured_files():
        for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
            for context in contexts:
                if context in tests:
                    tests[context]["lines"].setdefault(os.path.realpath(measured), []).append(line)
    return tests


def _include(files: list[str]) -> list[str]:
    """coverage.py's include patterns for `files`: it reads them as globs, so a file named a[1].py is matched through
    `?` (only its lines are kept)."""
    return [re.sub(r"[][*?]", "?", os.path.realpath(f)) for f in files]


class CollectionLines:
    """The lines of the target's functions that run while pytest collects the tests (an object a `parametrize` list
    builds, a test module's top calling the target): before any test, so no test's coverage holds them, and a
    mutant forked after collection finds their results made by the unmutated code. Module-level lines (a `def`, an
    import) are not listed: a file listed at all was imported while collecting, and its module-level code ran."""

    def __init__(self, files: list[str]):
        self.cov = coverage.Coverage(data_file=None, include=_include(files), config_file=False) if files else None
        self.started = self.seconds = 0.0  # when collecting began, and how long it took (`stop`)

    def start(self) -> None:
        self.started = time.perf_counter()
        if self.cov is not None:
            self.cov.start()

    def stop(self) -> dict[str, list[int]]:
        """{file: the lines of its function bodies that ran} for every file that ran at all (imported: its
        module-level code ran, maybe with no function line), once."""
        self.seconds = time.perf_counter() - self.started
        if self.cov is None:
            return {}
        self.cov.stop()
        data, self.cov = self.cov.get_data(), None
        found = {}
        for measured in data.measured_files():
            ran = data.lines(measured) or []
            if ran:
                bodies = _body_lines(measured)
                found[os.path.realpath(measured)] = sorted(line for line in ran if line in bodies)
        return found


def _body_lines(path: str) -> set[int]:
    """The lines of the statements inside the functions of the file at `path` (nested ones too)."""
    import ast

    try:
        tree = ast.parse(open(path, "rb").read())
    except (OSError, SyntaxError, ValueError):
        return set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for statement in node.body:
                lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return lines
