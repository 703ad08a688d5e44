"""GitHub Actions output of `teeth check`: an annotation per survivor (`::error` when it gates, `::warning` when it
does not) and a markdown job summary."""

from __future__ import annotations

import os
import re
from pathlib import Path

from teeth.store.records import Result


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _repo_path(check, row: Result) -> str:
    """The survivor's file relative to the repository root, as GitHub expects."""
    path = (check.target.root / row.mutant.file).resolve()
    try:
        return path.relative_to(Path(os.path.realpath(check.changes.toplevel))).as_posix()
    except ValueError:
        return row.mutant.file


def annotations(checks) -> list[str]:
    """One workflow command per surviving mutant (survived or no_coverage) of every checked target: `::error` for a
    required bug class (it fails the gate), `::warning` for one that does not gate."""
    lines = []
    for check in checks:
        verdict = check.verdict
        for row in verdict.survivors:
            gating = verdict.required(row)
            kind = "required bug class" if gating else "not gating"
            m = row.mutant
            title = f"teeth: {m.operator} mutant {row.status} ({kind})"
            message = (f"mutant {m.id} ({m.operator}, profile {row.profile}) {row.status}: "
                       f"{m.change}\nno test caught it; see: teeth show {m.id}")
            lines.append(f"::{'error' if gating else 'warning'} file={_escape_property(_repo_path(check, row))},line={m.line},"
                         f"title={_escape_property(title)}::{_escape_data(message)}")
    return lines


def code_span(text: str) -> str:
    """`text` as one markdown code span: fenced by more backticks than its longest run, `|` escaped for a table."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence, escaped = "`" * (longest + 1), text.replace("|", "\\|")
    return f"{fence} {escaped} {fence}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def summary_markdown(checks, passed: bool) -> str:
    """The job summary: one row per target, then the survivors."""
    out = [f"## teeth check: {'passed' if passed else 'FAILED'}", "",
           "| target | mutants | run | reused | kill rate | fail_under | base | result |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for check in checks:
        v = check.verdict
        base = f"{_pct(v.base_rate)} (run {v.base_run.id})" if v.base_run else "none recorded"
        out.append(f"| {v.target} | {len(v.results)} | {check.executed} | {check.reused} | {_pct(v.rate)} | "
                   f"{_pct(v.policy.fail_under)} | {base} | {'pass' if v.passed else 'FAIL: ' + '; '.join(v.failures)} |")
    survivors = [(c, r) for c in checks for r in c.verdict.survivors]
    if survivors:
        out += ["", "### Survivors", "", "| mutant | where | operator | profile | status | change |",
                "|---|---|---|---|---|---|"]
        for check, row in survivors:
            m = row.mutant
            mark = " (required)" if check.verdict.required(row) else ""
            where = f"{_repo_path(check, row)}:{m.line}"
            out.append(f"| {code_span(m.id)} | {code_span(where)} | {m.operator}{mark} | "
                       f"{code_span(row.profile)} | {row.status} | {code_span(m.change[:120])} |")
    notes = [n for c in checks for n in c.verdict.notes]
    out += ["", *(f"- {n}" for n in notes)] if notes else []
    return "\n".join(out) + "\n"


def write_step_summary(checks, passed: bool) -> bool:
    """Append the summary to $GITHUB_STEP_SUMMARY when it is set; whether it was written."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return False
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(summary_markdown(checks, passed))
    return True
