"""One HTML page per target file (templates/file.html): its highlighted source, each line annotated with its
mutants' outcomes and survivors' diffs."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from teeth.syntax import sources
from teeth.core import CAUGHT, COUNTED, SURVIVING, Status
from teeth.errors import TeethError
from teeth.store.records import Result, Run
from teeth.report.highlight import highlight_lines
from teeth.report.html_page import group_mutants, render

SHOWN = COUNTED
DETAILED = SURVIVING


def read_source(root: Path, file: str) -> list[str] | None:
    """The file's lines as they are now under `root`, or None when it cannot be read."""
    path = sources.located(root, file)
    try:
        return sources.read_source(path).splitlines()  # as Python decodes it: coding line, BOM
    except OSError:
        return None
    except TeethError:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()


def stale_mutants(rows: list[Result], lines: list[str]) -> int:
    """How many mutants' original text no longer starts at their recorded line (the file changed)."""
    stale = set()
    for row in rows:
        m = row.mutant
        first = (m.original or "").strip().splitlines()[:1]
        line = lines[m.line - 1] if 0 < m.line <= len(lines) else None
        if line is None or (first and first[0].strip() not in line):
            stale.add(m.id)
    return len(stale)


def line_class(statuses: Counter) -> str:
    for status in SURVIVING:
        if statuses[status]:
            return status.value
    return "killed" if any(statuses[s] for s in CAUGHT) else "other"


BADGES = ((Status.SURVIVED, "survived", "✗"), (Status.NO_COVERAGE, "no_coverage", "∅"),
          (Status.KILLED, "killed", "✓"), (Status.TIMEOUT, "killed", "T"))  # status, badge class, label


def badges(statuses: Counter) -> list[dict]:
    """A line's badges: one per shown status it has, then one for errors and skips."""
    found = [{"kind": kind, "label": label, "count": statuses[status]}
             for status, kind, label in BADGES if statuses[status]]
    other = sum(n for s, n in statuses.items() if s not in SHOWN)
    if other:
        found.append({"kind": "other", "label": "·", "count": other})
    return found


def badge_tip(rows: list[Result]) -> str:
    """The hover text of a line's badges: each of its mutants' outcomes, and the test that killed it."""
    return "\n".join(f"{r.mutant.id} {r.mutant.operator} [{r.profile}]: {r.status}"
                     + (f" by {r.outcome.killed_by}" if r.outcome.killed_by else "") for r in rows)


def source_page(file: str, rows: list[Result], run: Run, lines: list[str] | None) -> str:
    """The page for one file; `rows` are this file's results in the run, `lines` its current source."""
    by_line: dict[int, list[Result]] = defaultdict(list)
    for row in rows:
        by_line[row.mutant.line].append(row)
    counts = Counter(r.status.value for r in rows)
    unreadable = lines is None
    if unreadable:
        lines = _lines_from_mutants(rows)
    shown = []
    for number, code in enumerate(highlight_lines(lines), start=1):
        here = by_line.get(number, [])
        statuses = Counter(r.status for r in here)
        shown.append({"number": number, "code": code, "kind": line_class(statuses) if here else None,
                      "badges": badges(statuses), "tip": badge_tip(here),
                      "cards": group_mutants(here, DETAILED)})
    return render("file.html", file=file, run=run, lines=shown, unreadable=unreadable,
                  stale=0 if unreadable else stale_mutants(rows, lines),
                  mutants=len({r.mutant.id for r in rows}),
                  summary=", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items())))


def _lines_from_mutants(rows: list[Result]) -> list[str]:
    last = max((r.mutant.line for r in rows), default=0)
    lines = [""] * last
    for row in rows:
        lines[row.mutant.line - 1] = (row.mutant.original or "").splitlines()[0] if row.mutant.original else ""
    return lines
