"""Baseline coverage as the scheduler reads it: which tests execute which lines of the target, and how long each
takes (measured in the worker: workers/coverage.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


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


@dataclass
class CoverageMap:
    """The baseline as the scheduler reads it."""

    durations: dict[str, float]
    failures: dict[str, str]
    by_line: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    collection: set[tuple[str, int]] = field(default_factory=set)  # function lines run while tests were collected
    imported_collecting: set[str] = field(default_factory=set)  # files imported while the tests were collected
    collected_in: float = 0.0  # seconds pytest took to collect the tests

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
            for path, lines in (record.get("collection") or {}).items():
                result.collection.update((path, line) for line in lines)
                result.imported_collecting.add(path)
            result.collected_in = max(result.collected_in, record.get("collected_in") or 0.0)
        return result

    def collected(self, path: str, lines: list[int], module_level: bool) -> bool:
        """Did the code at `lines` run while pytest collected the tests (`workers.coverage.CollectionLines`): a
        function's lines that ran then, or module-level code of a file imported then?"""
        real = os.path.realpath(path)
        if module_level:
            return real in self.imported_collecting
        return any((real, line) in self.collection for line in lines)

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

    def deadlines(self, tests: list[str], target, recollect: bool = False) -> dict:
        """A mutant's deadlines as MutantScenario's fields: the whole mutant's (`timeout_floor` + `timeout_factor` x
        its tests' baseline time) and each test's own (`test_timeout_floor` + `test_timeout_factor` x that test's)."""
        again = target.timeout_factor * self.collected_in if recollect else 0.0  # collecting them again
        return {"timeout": self.budget(tests, target.timeout_factor, target.timeout_floor) + again,
                "test_timeouts": {t: target.test_timeout_floor + target.test_timeout_factor * self.durations[t]
                                  for t in tests if t in self.durations}}
