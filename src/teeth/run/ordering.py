"""Killer-first order: the tests most likely to kill a mutant run first, so a kill costs about one test.

Per mutant, from the outcomes of earlier runs of the same target and profile (as PIT orders by history):
1. the test that killed this very mutant last time,
2. the tests that killed mutants of the same function, the most frequent killer first,
3. every other test that executes the mutant's lines, fastest first (the baseline's order).
Only tests that execute the mutant's lines are ever chosen: history reorders, it never adds a test.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class KillHistory:
    """Who killed what in earlier runs: mutant id -> killing test; (file, function) -> killing tests counted."""

    by_mutant: dict[str, str] = field(default_factory=dict)
    by_function: dict[tuple[str, str], Counter] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows) -> KillHistory:
        """Rows of (mutant_id, file, function, killed_by), oldest run first: the newest killer of a mutant wins."""
        history = cls()
        for mutant_id, file, function, killed_by in rows:
            history.by_mutant[mutant_id] = killed_by
            history.by_function.setdefault((file, function), Counter())[killed_by] += 1
        return history

    def order(self, mutant, tests: list[str]) -> list[str]:
        """`tests` (fastest first) reordered killer-first."""
        ranks: dict[str, tuple] = {}
        own = self.by_mutant.get(mutant.id)
        if own in tests:
            ranks[own] = (0, 0)
        for test, count in self.by_function.get((mutant.file, mutant.function), Counter()).items():
            if test in tests and test not in ranks:
                ranks[test] = (1, -count)
        position = {test: n for n, test in enumerate(tests)}
        return sorted(tests, key=lambda t: (*ranks.get(t, (2, 0)), position[t]))
