"""The selection audit: survived and no_coverage mutants run again against the whole suite, without test selection;
where the whole suite kills one, coverage-based selection missed the test that kills it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from teeth.core import MutantScenario, Outcome, Status
from teeth.run.coverage_map import CoverageMap

AUDITED = (Status.SURVIVED, Status.NO_COVERAGE)


def parse_audit(text: str | None) -> int | None:
    """`--audit N` or `--audit all`: how many mutants to audit (None: all of them); ValueError otherwise."""
    if text is None or text == "all":
        return None
    count = int(text)
    if count < 1:
        raise ValueError(text)
    return count


@dataclass(frozen=True)
class Disagreement:
    """A mutant selection judged `selection` (survived, no_coverage) that the whole suite judged `full_suite`."""

    mutant: object  # teeth.discovery.discover.Mutant
    profile: str
    selection: Status
    full_suite: Status
    killed_by: str | None


class Audit:
    """Picks the mutants to audit (a seeded sample of `count`, or all), runs them, and says what it found."""

    def __init__(self, count: int | None, seed: int = 0):
        self.count, self.seed = count, seed
        self.disagreements: list[Disagreement] = []
        self.audited: dict[str, int] = {}  # profile -> mutants audited

    def pick(self, outcomes: list[Outcome]) -> list[Outcome]:
        pool = sorted((o for o in outcomes if o.status in AUDITED), key=lambda o: o.mutant_id)
        if self.count is None or self.count >= len(pool):
            return pool
        return sorted(random.Random(self.seed).sample(pool, self.count), key=lambda o: o.mutant_id)

    def scenarios(self, picked: list[Outcome], by_id: dict, coverage: CoverageMap, target,
                  history=None) -> list[MutantScenario]:
        """Each picked mutant against every test that passed in the baseline (fastest or likeliest killer first)."""
        everything = sorted(coverage.durations, key=lambda t: (coverage.durations[t], t))
        found = []
        for outcome in picked:
            mutant = by_id[outcome.mutant_id]
            tests = history.order(mutant, everything) if history is not None else everything
            recollect = coverage.collected(mutant.path, mutant.lines, module_level=not mutant.swap)
            found.append(MutantScenario(id=mutant.id, path=mutant.path, swap=mutant.swap, code=mutant.code,
                                        tests=tests, recollect=recollect,
                                        **coverage.deadlines(tests, target, recollect)))
        return found

    def judge(self, profile: str, selected: dict[str, Outcome], full: list[Outcome], by_id: dict) -> None:
        self.audited[profile] = self.audited.get(profile, 0) + len(full)
        for outcome in full:
            if outcome.status.caught:
                self.disagreements.append(Disagreement(by_id[outcome.mutant_id], profile,
                                                       selected[outcome.mutant_id].status, outcome.status,
                                                       outcome.killed_by))

    def notes(self) -> list[str]:
        said = []
        for profile, count in self.audited.items():
            found = [d for d in self.disagreements if d.profile == profile]
            said.append(f"audit ({profile}): {count} survived or no_coverage mutant(s) run against the whole suite: "
                        f"{len(found)} disagreement(s) with test selection")
            for d in found:
                m = d.mutant
                said.append(f"  {m.id} {m.file}:{m.line} {m.function or '<module>'} {m.operator}: selection "
                            f"{d.selection}, whole suite {d.full_suite}"
                            + (f" by {d.killed_by}" if d.killed_by else ""))
        escaped = sorted({d.killed_by or "a test (it timed out)" for d in self.disagreements})
        if escaped:
            said.append("coverage-based selection is unsound for this suite: " + ", ".join(escaped) +
                        " escaped it (the tests' coverage does not show the code they run)")
        return said
