"""Baseline coverage: which tests execute which lines of the target, and how long each takes."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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


class LinesPastTheEnd(Exception):
    """Coverage recorded lines a file does not have: the data is wrong, never used."""


def check_lines(tests: dict[str, dict], line_counts: dict[str, int]) -> None:
    """Every recorded line exists in its file (`line_counts`: realpath -> number of lines); else LinesPastTheEnd
    naming the test, the file and the line."""
    for test, record in tests.items():
        for path, lines in record["lines"].items():
            count = line_counts.get(os.path.realpath(path))
            last = max(lines, default=0)
            if count is not None and last > count:
                raise LinesPastTheEnd(f"coverage recorded line {last} of {path}, which has {count} lines, for "
                                      f"{test}: the tests run code coverage.py does not follow (a greenlet "
                                      f"switched out of without a call or return, or a concurrency model the "
                                      f"target's `concurrency` leaves out)")


def line_ranges(lines) -> str:
    """Line numbers as the compact text the store keeps: "3-7,12"."""
    parts: list[str] = []
    for line in sorted(set(lines)):
        if parts and parts[-1][1] == line - 1:
            parts[-1][1] = line
        else:
            parts.append([line, line])
    return ",".join(f"{a}-{b}" if a != b else str(a) for a, b in parts)


def parse_ranges(text: str) -> set[int]:
    found: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return found


@dataclass
class CoverageMap:
    """The baseline as the scheduler reads it."""

    durations: dict[str, float]
    failures: dict[str, str]
    by_line: dict[tuple[str, int], set[str]] = field(default_factory=dict)

    @classmethod
    def from_baseline(cls, tests: dict[str, dict]) -> CoverageMap:
        flaky = {t for t, r in tests.items() if r["failure"] and r["failure"].get("flaky")}
        result = cls(durations={t: r["duration"] for t, r in tests.items() if t not in flaky},
                     failures={t: r["failure"] for t, r in tests.items() if r["failure"]})
        for test, record in tests.items():
            if test in flaky:  # a flaky test is no evidence: it never runs against a mutant
                continue
            for path, lines in record["lines"].items():
                for line in lines:
                    result.by_line.setdefault((path, line), set()).add(test)
        return result

    def tests_for(self, path: str, lines: list[int], module_level: bool) -> list[str]:
        """Tests that execute any of `lines`, fastest first; every test for module-level code."""
        real = os.path.realpath(path)
        if module_level:
            chosen = set(self.durations)
        else:
            chosen = set().union(*(self.by_line.get((real, line), set()) for line in lines))
        return sorted(chosen, key=lambda t: (self.durations[t], t))

    def budget(self, tests: list[str], factor: float = 5.0, floor: float = 5.0) -> float:
        """The time a mutant may take before it is a `timeout`."""
        return floor + factor * sum(self.durations[t] for t in tests)

    def deadlines(self, tests: list[str], target) -> dict:
        """A mutant's deadlines as MutantScenario's fields: the whole mutant's (`timeout_floor` + `timeout_factor` x
        its tests' baseline time) and each test's own (`test_timeout_floor` + `test_timeout_factor` x that test's)."""
        return {"timeout": self.budget(tests, target.timeout_factor, target.timeout_floor),
                "test_timeouts": {t: target.test_timeout_floor + target.test_timeout_factor * self.durations[t]
                                  for t in tests if t in self.durations}}
