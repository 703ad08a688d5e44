"""What a baseline is evidence of: its failing tests (refused, each with why), its flaky tests (named, never kill
evidence), coverage that names lines that exist, and kills by tests that passed on the unmutated code."""

from __future__ import annotations

import os

from teeth.config.targets import Target
from teeth.core import Outcome, Status, WorkerFailure
from teeth.run.coverage_map import CoverageMap, LinesPastTheEnd, check_lines
from teeth.errors import BaselineFailed, TeethError, WorkerFailed
from teeth.config.profiles import Profile
from teeth.syntax.sources import read_source


def judge_baseline(target: Target, profile: Profile, baseline: dict[str, dict]) -> str | None:
    """Refuse a baseline whose recorded lines do not exist or whose tests fail, each with why; a flaky test (it
    failed, then passed on a retry) is refused where the target's `flaky` says so, else named in the line returned."""
    counts = {}
    for file in target.files:
        try:
            counts[os.path.realpath(file)] = len(read_source(file).splitlines())
        except (OSError, ValueError, TeethError):
            pass
    try:
        check_lines(baseline, counts)
    except LinesPastTheEnd as exc:
        raise WorkerFailed(f"baseline coverage is wrong (profile {profile.name}): {exc}") from None
    failing = {t: r["failure"] for t, r in sorted(baseline.items()) if r["failure"] and not r["failure"].get("flaky")}
    if failing:
        raise BaselineFailed(list(failing), f" (profile {profile.name})",
                             reasons={t: failure_reason(target, f) for t, f in failing.items()})
    flaky = sorted(t for t, r in baseline.items() if r["failure"])
    if not flaky:
        return None
    named = ", ".join(f"{t} ({baseline[t]['failure'].get('detail')}, then passed)" for t in flaky)
    if target.flaky == "refuse":
        raise BaselineFailed(flaky, f" (profile {profile.name}): flaky, each failed and then passed on a retry: "
                                    f"{named}; flaky = \"exclude\" runs without them")
    return f"{profile.name}: flaky tests, excluded from kill evidence: {named}"


def failure_reason(target: Target, failure: dict) -> str:
    """A baseline test's failure in one line; a write the sandbox refused, with the two ways out."""
    detail = failure.get("detail") or "failed"
    if failure.get("denied") and target.sandbox:
        return (f"{detail}; the sandbox refused a write to {failure['denied']}: write under tmp_path, or set "
                f"sandbox = false for target {target.name!r}")
    return detail


def evidence(outcome: Outcome, coverage: CoverageMap) -> Outcome:
    """A kill counts only when the killing test passed on the unmutated code in the baseline (and is not flaky)."""
    if outcome.status is Status.KILLED and outcome.killed_by and outcome.killed_by not in coverage.durations:
        return Outcome.failed(outcome.mutant_id, WorkerFailure.RAISED,
                              f"killed by {outcome.killed_by}, which did not pass in the baseline: no evidence",
                              duration=outcome.duration)
    return outcome
