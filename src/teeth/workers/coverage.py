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
    # coverage reads include patterns as globs: a file named a[1].py is matched through `?` (only its lines are kept)
    include = [re.sub(r"[][*?]", "?", os.path.realpath(f)) for f in files]
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
