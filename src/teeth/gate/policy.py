"""The gate of `teeth check`: surviving required bug classes, `fail_under`, and the drop against the base commit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from teeth.config.targets import Target
from teeth.core import Tally, kill_rate
from teeth.errors import ConfigError
from teeth.operators import select_operators
from teeth.store.records import Result, Run
from teeth.store.db import Store


@dataclass
class Policy:
    """A target's gate settings, validated: fractions of 1, operator names resolved."""

    fail_under: float | None
    tolerance: float
    required: set[str]

    @classmethod
    def of(cls, target: Target) -> Policy:
        for key in ("fail_under", "tolerance"):
            value = getattr(target, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0 <= value <= 1):
                raise ConfigError(f"target {target.name!r}: {key} = {value!r} must be a fraction from 0 to 1 "
                                  f"(0.8 means 80%)")
        names = target.required_operators if target.required_operators is not None else ["domain"]
        return cls(target.fail_under, float(target.tolerance or 0.0),
                   {op.name for op in select_operators(list(names))} if names else set())


@dataclass
class Verdict:
    """What the gate found for one target's check run."""

    target: str
    run_id: int
    results: list[Result]
    policy: Policy
    base_commit: str
    base_run: Run | None = None
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # like for like: the base run's outcomes of the same functions, and the checked ones that have a base
    base_results: list[Result] = field(default_factory=list)
    compared: list[Result] = field(default_factory=list)
    new_functions: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return _counts(self.results)

    @property
    def rate(self) -> float | None:
        return kill_rate(self.counts)

    @property
    def base_rate(self) -> float | None:
        """The kill rate of the same functions' mutants under the base run."""
        return kill_rate(_counts(self.base_results)) if self.base_run else None

    @property
    def compared_rate(self) -> float | None:
        """The kill rate of the checked mutants whose function has mutants in the base run."""
        return kill_rate(_counts(self.compared))

    @property
    def survivors(self) -> list[Result]:
        return [r for r in self.results if r.status.surviving]

    def required(self, row: Result) -> bool:
        return row.mutant.operator in self.policy.required

    @property
    def passed(self) -> bool:
        return not self.failures


def _counts(rows: list[Result]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.status.value] = counts.get(row.status.value, 0) + 1
    return counts


def function_key(row: Result) -> tuple[str, str, str]:
    """(file, outer function, profile): how a checked mutant finds the same function's mutants in the base run."""
    return row.mutant.file, (row.mutant.function or "").split(".<locals>")[0], row.profile


def like_for_like(verdict: Verdict, base_rows: list[Result]) -> None:
    """Keep the base run's outcomes of the checked functions, and the checked outcomes whose function has some; a
    function with no mutant in the base run is new: no drop check for it."""
    checked = {function_key(r) for r in verdict.results}
    verdict.base_results = [r for r in base_rows if function_key(r) in checked]
    known = {function_key(r) for r in verdict.base_results}
    verdict.compared = [r for r in verdict.results if function_key(r) in known]
    verdict.new_functions = sorted({f"{file}: {function or '<module>'}" for file, function, _ in checked - known})


def evaluate(store: Store, target: Target, run_id: int, base_commit: str, gated: set[str] | None = None) -> Verdict:
    """Apply the target's gate to the outcomes of a check run; `gated`: only these mutants (the changed code's; the
    mutants that only the changed tests execute are judged by teeth.gate.test_review)."""
    policy = Policy.of(target)
    results = [r for r in store.results(run_id) if gated is None or r.mutant.id in gated]
    verdict = Verdict(target.name, run_id, results, policy, base_commit, store.base_run(target.name, base_commit))
    if verdict.base_run is not None:
        like_for_like(verdict, store.results(verdict.base_run.id))
    required = [r for r in verdict.survivors if verdict.required(r)]
    if required:
        verdict.failures.append(f"{len(required)} mutant(s) of a required bug class survived")
    rate = verdict.rate
    if rate is None:
        verdict.notes.append("no mutant in the changed code counts towards a kill rate")
    elif under_fail_under(rate, policy.fail_under):
        verdict.failures.append(f"kill rate {_pct(rate)} is under fail_under {_pct(policy.fail_under)}")
    if verdict.base_run is None:
        verdict.notes.append(f"no completed `teeth run` recorded at the base commit {base_commit[:12]}: "
                             f"no drop check")
    else:
        if verdict.new_functions:
            verdict.notes.append(f"new since the base (no drop check; fail_under and required bug classes only): "
                                 f"{', '.join(verdict.new_functions)}")
        compared = verdict.compared_rate
        if compared is not None and verdict.base_rate is not None \
                and compared < verdict.base_rate - policy.tolerance - 1e-12:
            verdict.failures.append(f"kill rate {_pct(compared)} of the changed functions dropped below the same "
                                    f"functions' {_pct(verdict.base_rate)} under the base (run "
                                    f"{verdict.base_run.id}) by more than the tolerance {_pct(policy.tolerance)}")
    return verdict


def under_fail_under(rate: float | None, fail_under: float | None) -> bool:
    """The `fail_under` gate of `teeth check` and `teeth run`: a rate under it fails; no rate (nothing counted)
    or no fail_under passes."""
    return rate is not None and fail_under is not None and rate < fail_under


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def text_report(verdict: Verdict, executed: int, reused: int, worker: bool, functions: list[str],
                baseline: dict | None = None) -> list[str]:
    """The plain-text lines of a target's check."""
    caught, counted = Tally.of(verdict.counts)
    lines = [f"target {verdict.target}: run {verdict.run_id}, base {verdict.base_commit[:12]}",
             f"  changed functions: {', '.join(functions) or 'none'}",
             f"  mutants: {len(verdict.results)} in scope, {executed} run, {reused} reused"
             f"{'' if worker else '; no worker started'}",
             f"  kill rate: {_pct(verdict.rate)} ({caught}/{counted})"
             + (f", fail_under {_pct(verdict.policy.fail_under)}" if verdict.policy.fail_under is not None else "")
             + (f", same functions {_pct(verdict.compared_rate)} now, {_pct(verdict.base_rate)} under the base "
                f"(run {verdict.base_run.id}), tolerance {_pct(verdict.policy.tolerance)}"
                if verdict.base_run else "")]
    for profile, (ran, collected, why) in (baseline or {}).items():
        reasons = ", ".join(f"{count} {reason}" for reason, count in why.items() if count)
        lines.append(f"  baseline [{profile}]: {ran} of {collected} tests ({reasons or 'none needed'})")
    for row in verdict.survivors:
        tag = "required" if verdict.required(row) else "survivor"
        m = row.mutant
        lines.append(f"  {tag}: {m.file}:{m.line} {m.id} {m.operator} [{row.profile}] {row.status}: {m.change[:100]}")
    lines += [f"  note: {note}" for note in verdict.notes]
    lines += [f"  FAILED: {failure}" for failure in verdict.failures]
    return lines
