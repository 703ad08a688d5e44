"""The base's version of the tests a change edits, run against a check's mutants: which of them it kills at the base."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from teeth.gate.changes import Changes, git
from teeth.config.targets import Target
from teeth.core import MutantScenario, Status
from teeth.run.coverage_map import CoverageMap
from teeth.run.lab import Progress
from teeth.workers.base import Backends


@dataclass
class BaseVersions:
    """Per (mutant, profile): whether the edited tests as the base has them execute it, and which of them kill it."""

    executes: set[tuple[str, str]] = field(default_factory=set)
    kills: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    failing: list[str] = field(default_factory=list)  # base versions that fail unmutated: no evidence either way


def base_texts(target: Target, changes: Changes, edited: set[str]) -> dict[str, str]:
    """The test files (relative to the target's root) holding edited test functions, as the merge-base has them."""
    texts = {}
    for rel in sorted({name.split("::", 1)[0] for name in edited}):
        in_repo = (target.root / rel).resolve().relative_to(Path(changes.toplevel).resolve()).as_posix()
        shown = git(["show", f"{changes.merge_base}:{in_repo}"], changes.toplevel)
        if shown.returncode == 0:
            texts[rel] = shown.stdout
    return texts


def run_base_versions(target: Target, changes: Changes, backends: Backends, jobs: int, edited: set[str],
                      mutants: list, progress: Progress) -> BaseVersions:
    """Each profile: a worker whose copy of the tree has the edited tests' files at the merge-base runs those tests
    (base versions of the edited functions, whatever their cases are there) once under coverage, then every mutant
    of `mutants` they execute against all of them (the full matrix)."""
    found = BaseVersions()
    overlay = base_texts(target, changes, edited)
    if not overlay:
        return found
    for profile in target.profiles:
        if backends.unavailable_reason(profile):
            continue
        progress.stage(f"{profile.name}: the edited tests' base versions")
        with backends.open(target, profile, jobs, overlay=overlay) as backend:
            tests = [t for t in backend.tests if t.split("[", 1)[0] in edited]
            if not tests:
                continue
            baseline = backend.baseline(target.baseline_timeout, tests)
            failing = {t for t, r in baseline.items() if r["failure"]}
            found.failing += sorted(failing)
            coverage = CoverageMap.from_baseline({t: r for t, r in baseline.items() if t not in failing})
            scenarios = []
            for m in mutants:
                covering = [t for t in coverage.tests_for(m.path, m.lines, module_level=not m.swap)
                            if t not in failing]
                if covering:
                    found.executes.add((m.id, profile.name))
                    scenarios.append(MutantScenario(id=m.id, path=m.path, swap=m.swap, code=m.code, tests=covering,
                                                    full_matrix=True, **coverage.deadlines(covering, target)))
            for outcome in backend.execute(scenarios):
                if outcome.matrix:
                    killers = [test for test, check, _ in outcome.matrix if check is not None]
                else:
                    killers = [outcome.killed_by] if outcome.killed_by and Status(outcome.status).caught else []
                if killers:
                    found.kills[(outcome.mutant_id, profile.name)] = killers
    return found
