"""`teeth check`: mutate only the functions changed against a base ref, reuse cached outcomes, then gate."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from teeth.changes import Changes, changed_lines, in_scope
from teeth.config import Config, Target
from teeth.gate import Policy, Verdict, evaluate
from teeth.incremental import OutcomeCache
from teeth.lab import Lab, Progress, run_metadata
from teeth.operators import select_operators
from teeth.selection import BaselineSelection
from teeth.store import Store
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


def plan(config: Config, names: list[str], base: str) -> list[tuple[Target, Changes]]:
    """Resolve targets, gate settings and the changed lines before anything is written."""
    targets = [config.target(n) for n in names] if names else list(config.targets.values())
    planned = []
    for target in targets:
        Policy.of(target)  # a bad fail_under or required operator is an error before any run
        select_operators(target.operators)
        planned.append((target, changed_lines(base, target.files, target.root)))
    return planned


def check_target(store: Store, target: Target, changes: Changes, backends: Backends, jobs: int, use_cache: bool,
                 progress: Progress | None = None) -> TargetCheck:
    """Run the target's mutants in changed functions (cached ones reused) and gate the recorded run."""
    touched = [f for f in target.files if os.path.realpath(f) in changes.lines]  # only changed files are parsed
    cache = OutcomeCache(target, store, reuse=use_cache)
    selection = BaselineSelection(target, store, cache, enabled=use_cache)
    lab = Lab(target, store, backends, progress, cache=cache, selection=selection)
    functions: list[str] = []

    def scope(mutants):
        chosen = in_scope(mutants, changes)
        functions.extend(sorted({f"{m.file}: {m.function.split('.<locals>')[0] or '<module>'}" for m in chosen}))
        return chosen

    if touched:
        summary = lab.run(select_operators(target.operators), target.profiles, jobs=jobs, scope=scope, files=touched,
                          options={"command": "check", "base": changes.base_ref, "merge_base": changes.merge_base,
                                   "jobs": jobs, "cache": use_cache})
        run_id = summary.run_id
    else:  # nothing changed in this target: record an empty, complete run
        run_id = store.start_run(target.name, [p.name for p in target.profiles], [],
                                 run_metadata(target, {"command": "check", "base": changes.base_ref,
                                                       "merge_base": changes.merge_base, "cache": use_cache}))
        store.finish_run(run_id, "completed", {"total": 0.0}, {})
    verdict = evaluate(store, target, run_id, changes.merge_base)
    run = store.run(run_id)
    worker = any(k.startswith("baseline.") for k in json.loads(run["timings"] or "{}"))
    executed, reused = store.executed_count(run_id), store.reused_count(run_id)
    return TargetCheck(target, changes, verdict, functions, executed, reused, worker, lab.selection.chosen)
