"""The gate of `teeth check`: surviving required bug classes, `fail_under`, and the drop against the base commit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from teeth.config import Target
from teeth.core import Status, Tally, kill_rate
from teeth.errors import ConfigError
from teeth.operators import select_operators
from teeth.store import Store


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
    results: list[dict]
    policy: Policy
    base_commit: str
    base_run: dict | None = None
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for row in self.results:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        return counts

    @property
    def rate(self) -> float | None:
        return kill_rate(self.counts)

    @property
    def base_rate(self) -> float | None:
        return kill_rate(json.loads(self.base_run["totals"] or "{}")) if self.base_run else None

    @property
    def survivors(self) -> list[dict]:
        return [r for r in self.results if Status(r["status"]).surviving]

    def required(self, row: dict) -> bool:
        return row["operator"] in self.policy.required

    @property
    def passed(self) -> bool:
        return not self.failures


def evaluate(store: Store, target: Target, run_id: int, base_commit: str) -> Verdict:
    """Apply the target's gate to the outcomes of a check run."""
    policy = Policy.of(target)
    verdict = Verdict(target.name, run_id, store.results(run_id), policy, base_commit,
                      store.base_run(target.name, base_commit))
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
    elif rate is not None and verdict.base_rate is not None \
            and rate < verdict.base_rate - policy.tolerance - 1e-12:
        verdict.failures.append(f"kill rate {_pct(rate)} dropped below the base's {_pct(verdict.base_rate)} "
                                f"(run {verdict.base_run['id']}) by more than the tolerance {_pct(policy.tolerance)}")
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
             + (f", base {_pct(verdict.base_rate)} (run {verdict.base_run['id']}), tolerance "
                f"{_pct(verdict.policy.tolerance)}" if verdict.base_run else "")]
    for profile, (ran, collected, why) in (baseline or {}).items():
        reasons = ", ".join(f"{count} {reason}" for reason, count in why.items() if count)
        lines.append(f"  baseline [{profile}]: {ran} of {collected} tests ({reasons or 'none needed'})")
    for row in verdict.survivors:
        tag = "required" if verdict.required(row) else "survivor"
        change = " ".join(f"{row['original']} -> {row['replacement']}".split())
        lines.append(f"  {tag}: {row['file']}:{row['line']} {row['mutant']} {row['operator']} [{row['profile']}] "
                     f"{row['status']}: {change[:100]}")
    lines += [f"  note: {note}" for note in verdict.notes]
    lines += [f"  FAILED: {failure}" for failure in verdict.failures]
    return lines
