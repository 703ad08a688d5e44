"""Test selection for `teeth check`: which tests the baseline must run, from the coverage recorded by earlier runs.

A baseline records, per test, the outer functions of the target it executed (`file::qualname`) and a
fingerprint of each: the function's text and the module-level text of its file. A later check runs only:

- the tests recorded as executing a function that has mutants to run (they can kill them),
- the tests whose recorded functions have a different fingerprint now (their path through the code may differ),
- the tests that are new, or whose test file or conftest.py files changed, or whose record is missing.

A test outside all three executed none of the mutated functions and none of what it executed has changed,
so it still does not reach them. Code outside the target's files (helpers, libraries) is not fingerprinted:
`--no-cache` runs the whole baseline.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import libcst as cst

from teeth.config.targets import Target
from teeth.store.lines import line_ranges
from teeth.errors import TeethError
from teeth.syntax.functions import function_index
from teeth.run.incremental import OutcomeCache
from teeth.store.records import TestRecord
from teeth.syntax.sources import read_source

MODULE = "<module>"


def _short(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Fingerprints:
    """Each outer function of the target's files now: `file::qualname` -> fingerprint; line -> function."""

    def __init__(self, target: Target):
        self.target = target
        self.by_key: dict[str, str] = {}
        self._lines: dict[str, dict[int, str]] = {}  # realpath -> {line: key of the outer function holding it}
        for file in target.files:
            self._add(file)

    def _add(self, file: Path) -> None:
        real = os.path.realpath(file)
        shown = self.target.display_path(Path(real))
        try:
            text = read_source(real)
            functions = function_index(text).outer_functions()
        except (OSError, SyntaxError, ValueError, TeethError, cst.ParserSyntaxError):
            self._lines[real] = {}
            return
        lines = text.splitlines()
        outer = sorted((f.first, f.last, f.name) for f in functions)
        table = self._lines[real] = {}  # methods and functions never overlap: classes are not spans
        for first, last, qual in outer:
            table.update(dict.fromkeys(range(first, last + 1), f"{shown}::{qual}"))
        # Module-level text without blank and comment lines: moving a function or adding a comment changes nothing.
        module = _short("\n".join(line.rstrip() for number, line in enumerate(lines, 1)
                                   if number not in table and line.strip() and not line.lstrip().startswith("#")))
        self.by_key[f"{shown}::{MODULE}"] = module
        for first, last, qual in outer:
            key = f"{shown}::{qual}"
            # Same-named definitions (a redefinition, a property setter) share one key and fingerprint.
            self.by_key[key] = _short(self.by_key.get(key, "") + module + "\n".join(lines[first - 1:last]))

    def key_of(self, path: str, line: int) -> str:
        real = os.path.realpath(path)
        if real not in self._lines:
            self._add(Path(real))
        return self._lines[real].get(line) or f"{self.target.display_path(Path(real))}::{MODULE}"

    def covers(self, lines_by_file: dict[str, list[int]]) -> dict[str, str]:
        """What one test executed, as the fingerprints it depends on."""
        keys = {self.key_of(path, line) for path, lines in lines_by_file.items() for line in lines}
        return {key: self.by_key.get(key, "") for key in sorted(keys)}


def mutated_keys(mutants: list) -> set[str] | None:
    """The functions whose mutants will run; None when one is module-level (it runs against every test)."""
    keys = set()
    for mutant in mutants:
        if mutant.skip:
            continue
        if not mutant.swap:
            return None
        keys.add(f"{mutant.file}::{mutant.swap.split('.<locals>')[0]}")
    return keys


def choose(collected: list[str], recorded: dict[str, TestRecord], now: Fingerprints, mutated: set[str],
           test_key) -> tuple[list[str], dict[str, int]]:
    """The collected tests the baseline must run, and why each was chosen (counts by reason)."""
    chosen, why = [], {"covers a mutated function": 0, "covers changed code": 0, "new or changed test": 0}
    for test in collected:
        record = recorded.get(test)
        if record is None or record.test_key != test_key(test):
            reason = "new or changed test"
        elif mutated.intersection(record.covers):
            reason = "covers a mutated function"
        elif any(now.by_key.get(key) != sha for key, sha in record.covers.items()):
            reason = "covers changed code"
        else:
            continue
        chosen.append(test)
        why[reason] += 1
    return chosen, why


class BaselineSelection:
    """Baseline test selection for one target, and the record each baseline leaves for the next."""

    def __init__(self, target: Target, store, keys: OutcomeCache, enabled: bool):
        self.target, self.store, self.keys, self.enabled = target, store, keys, enabled  # keys: the run's cache
        self._now: Fingerprints | None = None
        self.chosen: dict[str, tuple[int, int, dict]] = {}  # profile -> (selected, collected, reasons)

    @property
    def now(self) -> Fingerprints:
        if self._now is None:
            self._now = Fingerprints(self.target)
        return self._now

    def tests_for(self, profile, collected: list[str], mutants: list) -> list[str] | None:
        """The tests to baseline under `profile`, or None for all of them."""
        mutated = mutated_keys(mutants) if self.enabled else None
        if mutated is None:
            return None
        recorded = self.store.test_records(self.target.name, profile.name, self.keys.profile_key(profile))
        if not recorded:
            return None
        chosen, why = choose(collected, recorded, self.now, mutated, self.keys.killing_test_key)
        self.chosen[profile.name] = (len(chosen), len(collected), why)
        return chosen

    def record(self, run_id: int, profile, baseline: dict[str, dict]) -> None:
        covers = {test: self.now.covers(result["lines"]) for test, result in baseline.items()}
        lines = {test: {self.target.display_path(Path(path)): line_ranges(numbers)
                        for path, numbers in result["lines"].items()} for test, result in baseline.items()}
        self.store.record_tests(run_id, profile.name, baseline, covers=covers, lines=lines,
                                test_keys={t: self.keys.killing_test_key(t) for t in baseline},
                                profile_key=self.keys.profile_key(profile))
