"""`teeth check`: mutate the functions changed against a base ref and the code the changed tests run, then gate."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from teeth.gate.base_tests import run_base_versions
from teeth.gate.changes import Changes, changed_lines, in_scope
from teeth.config.targets import Config, Target
from teeth.run.coverage_map import CoverageMap
from teeth.discovery.cache import DiscoveryCache
from teeth.errors import BaselineFailed, TeethError
from teeth.gate.policy import Policy, Verdict, evaluate
from teeth.run.lab import Lab, Progress, run_metadata
from teeth.operators import select_operators
from teeth.run.request import RunRequest
from teeth.store.db import Store
from teeth.gate.test_changes import ChangedTests, changed_tests
from teeth.gate.test_review import TestPolicy, TestReview, review
from teeth.workers.base import Backends


@dataclass
class TargetCheck:
    """One target's check: its changes, its recorded run, and the gate's verdict."""

    target: Target
    changes: Changes
    verdict: Verdict
    functions: list[str]
    executed: int  # mutants a worker ran in this check
    reused: int  # outcomes taken from an earlier run
    worker: bool  # whether a warm worker was started
    baseline: dict = field(default_factory=dict)  # profile -> (tests run, collected, reasons)
    review: TestReview | None = None  # the tests the change adds or edits, when it has some


def plan(config: Config, names: list[str], base: str) -> list[tuple[Target, Changes]]:
    """Resolve targets, gate settings and the changed lines before anything is written."""
    targets = [config.target(n) for n in names] if names else list(config.targets.values())
    planned = []
    for target in targets:
        Policy.of(target)  # a bad fail_under or required operator is an error before any run
        TestPolicy.of(target)
        select_operators(target.operators)
        planned.append((target, changed_lines(base, target.files, target.root)))
    if not any(changes.lines or touches_tests(target, changes) for target, changes in planned):
        merge_base = planned[0][1].merge_base[:12] if planned else "?"
        raise TeethError(f"the change against {base} (merge-base {merge_base}) touches no file nor test of "
                         f"{', '.join(t.name for t, _ in planned) or 'any target'}: nothing to check (a CI job skips "
                         f"such a change by a paths filter, docs/check.md)")
    return planned


def touches_tests(target: Target, changes: Changes) -> bool:
    """Whether the change adds or edits a test function, or other lines of a test file, under the target's tests."""
    tests = changed_tests(target, changes)
    return tests.any or bool(tests.helpers)


def executed_by_tests(target: Target, backends: Backends, jobs: int, tests: ChangedTests, mutants: list,
                      progress: Progress) -> tuple[set[str], list[str], list[str]]:
    """Run the changed tests once, unmutated, under coverage (each profile): the mutants whose lines they execute
    (module-level code aside: every test runs it at import), and the changed tests' node ids (added, edited)."""
    scoped: set[str] = set()
    added: list[str] = []
    edited: list[str] = []
    for profile in target.profiles:
        if backends.unavailable_reason(profile):
            continue
        progress.stage(f"{profile.name}: coverage of the added and edited tests")
        with backends.open(target, profile, jobs) as backend:
            now_added, now_edited = tests.node_ids(backend.tests)
            added += [t for t in now_added if t not in added]
            edited += [t for t in now_edited if t not in edited]
            if not now_added and not now_edited:
                continue
            baseline = backend.baseline(target.baseline_timeout, [*now_added, *now_edited])
            failing = sorted(t for t, r in baseline.items() if r["failure"])
            if failing:
                raise BaselineFailed(failing, f" (profile {profile.name})")
            coverage = CoverageMap.from_baseline(baseline)
            scoped |= {m.id for m in mutants if m.swap and target.exercises(profile.name, m.path)
                       and coverage.tests_for(m.path, m.lines, module_level=False)}
    return scoped, added, edited


def check_target(store: Store, target: Target, changes: Changes, backends: Backends, jobs: int | None, use_cache: bool,
                 progress: Progress | None = None, full_matrix: bool = False) -> TargetCheck:
    """Run the target's mutants in changed functions (cached ones reused), and those the changed tests execute (full
    matrix), then gate the recorded run: the changed code by the target's gate, the changed tests by theirs."""
    started = time.perf_counter()  # the run's timings start here: discovering for the changed tests is part of them
    progress = progress or Progress()
    touched = [f for f in target.files if os.path.realpath(f) in changes.lines]  # only changed files are parsed
    tests = changed_tests(target, changes)
    request = RunRequest.of_check(target, changes.base_ref, changes.merge_base, jobs=jobs, cache=use_cache,
                                  full_matrix=full_matrix)
    discovery, scoped, added, edited = None, set(), [], []
    if tests.any:  # the changed tests may execute any of the target's files
        discovery = DiscoveryCache().discover(target, list(request.operators))
        scoped, added, edited = executed_by_tests(target, backends, request.jobs, tests, discovery.mutants, progress)
        request = request.testing(added, edited)  # judging a test takes every test's verdict
    lab = Lab(request, store, backends, progress)
    functions: list[str] = []
    changed: set[str] = set()

    def scope(mutants):
        chosen = in_scope(mutants, changes)
        changed.update(m.id for m in chosen)
        functions.extend(sorted({f"{m.file}: {m.function.split('.<locals>')[0] or '<module>'}" for m in chosen}))
        return chosen + [m for m in mutants if m.id in scoped and m.id not in changed]

    if touched or tests.any:
        summary = lab.run(scope=scope, files=None if tests.any else touched, discovery=discovery,
                          clock={"started": started})
        run_id = summary.run_id
    else:  # nothing changed in this target: record an empty, complete run
        run_id = store.start_run(target.name, [p.name for p in target.profiles], [],
                                 run_metadata(target, request.recorded_options()))
        store.finish_run(run_id, "completed", {"total": 0.0}, {})
    verdict = evaluate(store, target, run_id, changes.merge_base, gated=changed if tests.any else None)
    found = None
    if tests.any:
        at_base = None
        if tests.edited and verdict.base_run is None:  # the base's version of an edited test judges the base
            at_base = run_base_versions(target, changes, backends, request.jobs, tests.edited,
                                        [m for m in discovery.mutants if m.id in scoped], progress)
        found = review(store, run_id, scoped, added, edited, verdict.base_run, TestPolicy.of(target),
                       sorted(tests.helpers), at_base)
        verdict.failures += found.failures
    run = store.run(run_id)
    worker = any(k.startswith("baseline.") for k in run.timings or {})
    executed, reused = store.executed_count(run_id), store.reused_count(run_id)
    return TargetCheck(target, changes, verdict, functions, executed, reused, worker, lab.selection.chosen, found)
