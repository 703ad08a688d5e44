"""The static HTML report: index.html (matrix, history chart, survivors, files) plus a page per target file,
rendered from the Jinja2 templates in templates/."""

from __future__ import annotations

from collections import Counter, defaultdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from markupsafe import Markup

from teeth import DISTRIBUTION
from teeth.core import Status, Tally, Why, kill_rate
from teeth.errors import TeethError
from teeth.report.history import load_history
from teeth.store.records import Result, Run
from teeth.report.chart import svg_line_chart, svg_sparkline
from teeth.report.html_page import file_page_name, group_mutants, render
from teeth.report.html_source import read_source, source_page
from teeth.store.db import Store


def write_html_report(store: Store, run_id: int, out_dir: str | Path, root: Path) -> Path:
    """Write DIR/index.html and DIR/files/*.html for one run; returns the index's path."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise TeethError(f"--html {out} is an existing file; give a folder")
    run = store.run(run_id)
    rows = store.results(run_id)
    by_file: dict[str, list[Result]] = defaultdict(list)
    for row in rows:
        by_file[row.mutant.file].append(row)
    pages = {file: file_page_name(file) for file in by_file}
    try:
        (out / "files").mkdir(parents=True, exist_ok=True)
        for file, file_rows in by_file.items():
            (out / pages[file]).write_text(source_page(file, file_rows, run, read_source(root, file)),
                                           encoding="utf-8")
        index = out / "index.html"
        index.write_text(index_page(store, run, rows, pages), encoding="utf-8")
    except OSError as exc:
        raise TeethError(f"cannot write the report to {out}: {exc}") from None
    return index


def index_page(store: Store, run: Run, rows: list[Result], pages: dict[str, str]) -> str:
    """index.html (templates/index.html): the run, the matrix, the history, the survivors and the files."""
    history = load_history(store, run.target, until_run=run.id)
    counts = Counter(r.status.value for r in rows)
    return render(
        "index.html", run=run, overall=kill_rate(counts), profiles=list(run.profiles),
        commit=(run.commit or "no git")[:12] + (" (dirty)" if run.dirty else ""),
        totals=", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items())) or "no outcomes",
        matrix=matrix(rows, history, pages), history=history_rows(history),
        mutant_sections=mutant_sections(rows, pages), files=file_rows(rows, pages), version=_teeth_version(),
        database=store.path.name)


def _cell(rate: float | None, caught: int, counted: int, spark: str = "") -> dict:
    return {"rate": rate, "caught": caught, "counted": counted, "spark": Markup(spark)}


def _counts(rows: list[Result]) -> dict:
    tally = Tally.of(Counter(r.status.value for r in rows))
    return _cell(tally.rate, tally.caught, tally.counted)


def matrix(rows: list[Result], history, pages: dict[str, str]) -> dict:
    """The op x profile kill-rate matrix; each cell with its counts and a sparkline over the runs."""
    profiles = sorted({r.profile for r in rows})
    cells: dict[tuple[str, str], list[Result]] = defaultdict(list)
    first_line: dict[str, Result] = {}
    for row in rows:
        cells[(row.mutant.op, row.profile)].append(row)
        first_line.setdefault(row.mutant.op, row)
    series = {(s.op, s.profile): s for s in history.series()}
    table = []
    for op in sorted({r.mutant.op for r in rows}):
        place = first_line[op].mutant
        shown = []
        for profile in profiles:
            here = cells.get((op, profile))
            cell = _counts(here) if here else None
            trend = series.get((op, profile))
            if cell and trend and len(history.runs) > 1:
                cell["spark"] = svg_sparkline(trend.rates(history.runs))
            shown.append((profile, cell))
        table.append({"op": op, "file": place.file, "line": place.line, "cells": shown,
                      "link": f'{pages[place.file]}#L{place.line}'})
    return {"profiles": profiles, "rows": table}


def history_rows(history) -> dict:
    """The runs so far: the chart of the overall kill rate per profile, and per run its overall cells."""
    overall = history.overall()
    rows = []
    for r in history.runs:
        points = [s.points.get(r.id) for s in overall]
        rows.append({"run": r, "cells": [None if p is None else _cell(p.kill_rate, *p.tally) for p in points]})
    chart = svg_line_chart(overall, history.runs) if history.runs else ""
    return {"runs": history.runs, "overall": overall, "rows": rows, "chart": chart}


def mutant_sections(rows: list[Result], pages: dict[str, str]) -> list[dict]:
    """The survivors, then the mutants no test covers (when there are any), each with a link to its line."""
    sections = []
    for status, title in ((Status.SURVIVED, "Survivors: mutants no test killed"),
                          (Status.NO_COVERAGE, "Not covered: mutants no test executes")):
        found = group_mutants(rows, (status,))
        if status is Status.NO_COVERAGE and not found:
            continue
        groups = [(None, found)]
        if status is Status.SURVIVED and any(r.outcome.why for r, _ in found):  # grouped by why they survived
            groups = [(why, [(r, p) for r, p in found if r.outcome.why == why]) for why in (*Why, None)]
            groups = [(why, members) for why, members in groups if members]
        for why, members in groups:
            sections.append({"status": status, "anchor": f"{status}-{why}" if why else status,
                             "title": f"{title}: {why.title}" if why else title, "mutants": [
                                 (r, profiles, f'{pages[r.mutant.file]}#L{r.mutant.line}')
                                 for r, profiles in members]})
    return sections


def file_rows(rows: list[Result], pages: dict[str, str]) -> list[dict]:
    by_file: dict[str, list[Result]] = defaultdict(list)
    for row in rows:
        by_file[row.mutant.file].append(row)
    table = []
    for file in sorted(by_file):
        here = by_file[file]
        statuses = Counter(r.status.value for r in here)
        other = sum(n for s, n in statuses.items() if not Status(s).counts)
        table.append({**_counts(here), "file": file, "page": pages[file], "mutants": len({r.mutant.id for r in here}),
                      "survived": statuses[Status.SURVIVED], "no_coverage": statuses[Status.NO_COVERAGE],
                      "other": other})
    return table


def _teeth_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "?"
