"""One HTML page per target file: its source, each line annotated with its mutants' outcomes and survivors' diffs."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from teeth import sources
from teeth.errors import TeethError
from teeth.report.html_page import e, group_mutants, mutant_card, page

SHOWN = ("killed", "timeout", "survived", "no_coverage")
DETAILED = ("survived", "no_coverage")


def read_source(root: Path, file: str) -> list[str] | None:
    """The file's lines as they are now under `root`, or None when it cannot be read."""
    path = root / file
    try:
        return sources.read_source(path).splitlines()  # as Python decodes it: coding line, BOM
    except OSError:
        return None
    except TeethError:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()


def stale_mutants(rows: list[dict], lines: list[str]) -> int:
    """How many mutants' original text no longer starts at their recorded line (the file changed)."""
    stale = set()
    for row in rows:
        first = (row["original"] or "").strip().splitlines()[:1]
        line = lines[row["line"] - 1] if 0 < row["line"] <= len(lines) else None
        if line is None or (first and first[0].strip() not in line):
            stale.add(row["mutant"])
    return len(stale)


def line_class(statuses: Counter) -> str:
    for status in ("survived", "no_coverage"):
        if statuses[status]:
            return status
    return "killed" if statuses["killed"] or statuses["timeout"] else "other"


def badges(statuses: Counter, rows: list[dict]) -> str:
    tip = "\n".join(f"{r['mutant']} {r['operator']} [{r['profile']}]: {r['status']}"
                    + (f" by {r['killed_by']}" if r["killed_by"] else "") for r in rows)
    parts = []
    for status, label in (("survived", "✗"), ("no_coverage", "∅"), ("killed", "✓"), ("timeout", "T")):
        if statuses[status]:
            kind = "killed" if status == "timeout" else status
            parts.append(f'<span class="badge {kind}" title="{e(tip)}">{label}{statuses[status]}</span>')
    other = sum(n for s, n in statuses.items() if s not in SHOWN)
    if other:
        parts.append(f'<span class="badge other" title="{e(tip)}">·{other}</span>')
    return "".join(parts)


def source_page(file: str, rows: list[dict], run: dict, lines: list[str] | None) -> str:
    """The page for one file; `rows` are this file's outcome rows in the run, `lines` its current source."""
    by_line: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        by_line[row["line"]].append(row)
    counts = Counter(r["status"] for r in rows)
    summary = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items()))
    parts = [f'<p class="meta"><a href="../index.html">← report</a></p>',
             f'<h1 class="mono">{e(file)}</h1>',
             f'<p class="meta">target <b>{e(run["target"])}</b> · run <b>{e(run["id"])}</b> · '
             f'{len({r["mutant"] for r in rows})} mutants · {e(summary)}</p>',
             '<p class="meta">Per line: <span class="badge survived">✗</span> survived, '
             '<span class="badge no_coverage">∅</span> no test covers it, <span class="badge killed">✓</span> killed '
             '(<span class="badge killed">T</span> timeout), <span class="badge other">·</span> error or skipped; '
             'hover a badge for its mutants.</p>']
    if lines is None:
        parts.append(f'<p class="notice">The source of {e(file)} could not be read (give <code>--root</code>); '
                     f"showing each mutated line's original text instead.</p>")
        lines = _lines_from_mutants(rows)
    else:
        stale = stale_mutants(rows, lines)
        if stale:
            parts.append(f'<p class="notice">{stale} mutant(s) no longer match the source at their line: '
                         f'{e(file)} changed since run {e(run["id"])}, so some annotations may be off.</p>')
    parts.append('<table class="source"><tbody>')
    for number, text in enumerate(lines, start=1):
        here = by_line.get(number, [])
        statuses = Counter(r["status"] for r in here)
        cls = f' class="line-{line_class(statuses)}"' if here else ""
        parts.append(f'<tr id="L{number}"{cls}><td class="ln"><a href="#L{number}">{number}</a></td>'
                     f'<td class="marks">{badges(statuses, here) if here else ""}</td>'
                     f'<td class="code">{e(text)}</td></tr>')
        cards = [mutant_card(m, profiles) for m, profiles in group_mutants(here, DETAILED)]
        if cards:
            parts.append(f'<tr class="detail"><td></td><td></td><td>{"".join(cards)}</td></tr>')
    parts.append("</tbody></table>")
    return page(f"{file} · teeth run {run['id']}", "\n".join(parts))


def _lines_from_mutants(rows: list[dict]) -> list[str]:
    last = max((r["line"] for r in rows), default=0)
    lines = [""] * last
    for row in rows:
        lines[row["line"] - 1] = (row["original"] or "").splitlines()[0] if row["original"] else ""
    return lines
