"""The static HTML report: index.html (matrix, history chart, survivors, files) plus a page per target file."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from teeth.errors import TeethError
from teeth.history import load_history
from teeth.report.chart import rate_text, svg_line_chart, svg_sparkline
from teeth.report.html_page import e, file_page_name, group_mutants, mutant_card, page, rate_cell, rate_class
from teeth.report.html_source import read_source, source_page
from teeth.store import Store, kill_rate


def resolve_run(store: Store, run_ref: str, target: str | None) -> dict:
    """`--run latest` (of `--target`, if given) or a run id, as its runs row; one-line errors."""
    if run_ref == "latest":
        row = store.latest_run(target)
        if row is None:
            raise TeethError(f"no runs{f' of target {target!r}' if target else ''} in {store.path}")
        return row
    try:
        return store.run(int(run_ref))
    except ValueError:
        raise TeethError(f"--run takes a run id or 'latest', not {run_ref!r}") from None


def source_root(target: str, root: str | None, config_path: str | None) -> Path:
    """Where the target's files are read from: `--root`, else the target's root in the config, else cwd."""
    if root:
        return Path(root)
    from teeth.config import load_config

    try:
        config = load_config(config_path)
    except TeethError:
        if config_path:
            raise
        return Path.cwd()
    return config.targets[target].root if target in config.targets else config.path.parent


def write_html_report(store: Store, run_id: int, out_dir: str | Path, root: Path) -> Path:
    """Write DIR/index.html and DIR/files/*.html for one run; returns the index's path."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise TeethError(f"--html {out} is an existing file; give a folder")
    run = store.run(run_id)
    rows = store.report_rows(run_id)
    by_file: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_file[row["file"]].append(row)
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


def index_page(store: Store, run: dict, rows: list[dict], pages: dict[str, str]) -> str:
    history = load_history(store, run["target"], until_run=run["id"])
    counts = Counter(r["status"] for r in rows)
    overall = kill_rate(counts)
    commit = (run["commit"] or "no git")[:12] + (" (dirty)" if run["dirty"] else "")
    totals = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items())) or "no outcomes"
    profiles = ", ".join(json.loads(run["profiles"] or "[]"))
    body = [f'<h1>teeth report: target {e(run["target"])}, run {e(run["id"])}</h1>',
            f'<p class="meta">started <b>{e(run["started_at"])}</b> · commit <b class="mono">{e(commit)}</b> · '
            f'status <b>{e(run["status"])}</b> · profiles <b>{e(profiles)}</b></p>',
            f'<p><span class="headline {rate_class(overall)}" id="overall">{rate_text(overall)}</span> '
            f'kill rate · {e(totals)}</p>',
            '<p class="meta">Kill rate = (killed + timeout) / (killed + timeout + survived + no coverage); '
            'errors and skipped mutants are not counted.</p>',
            matrix_section(rows, history, pages),
            history_section(history),
            survivors_section(rows, pages),
            files_section(rows, pages),
            f'<footer>Written by teeth {e(_teeth_version())} from {e(store.path.name)}. '
            f'Static and offline: no scripts, no network.</footer>']
    return page(f"teeth report · {run['target']} · run {run['id']}", "\n".join(body))


def _counts(rows: list[dict]) -> tuple[float | None, int, int]:
    statuses = Counter(r["status"] for r in rows)
    caught = statuses["killed"] + statuses["timeout"]
    return kill_rate(statuses), caught, caught + statuses["survived"] + statuses["no_coverage"]


def matrix_section(rows: list[dict], history, pages: dict[str, str]) -> str:
    """The op x profile kill-rate matrix; each cell with its counts and a sparkline over the runs."""
    profiles = sorted({r["profile"] for r in rows})
    cells: dict[tuple[str, str], list[dict]] = defaultdict(list)
    first_line: dict[str, dict] = {}
    for row in rows:
        cells[(row["op"], row["profile"])].append(row)
        first_line.setdefault(row["op"], row)
    series = {(s.op, s.profile): s for s in history.series()}
    head = "".join(f'<th class="num">{e(p)}</th>' for p in profiles)
    lines = [f'<h2 id="matrix">Kill rate by op × profile</h2><table class="matrix"><thead><tr><th>op</th>'
             f'<th>where</th>{head}</tr></thead><tbody>']
    for op in sorted({r["op"] for r in rows}):
        place = first_line[op]
        link = f'{pages[place["file"]]}#L{place["line"]}'
        tds = []
        for profile in profiles:
            here = cells.get((op, profile))
            if not here:
                tds.append('<td class="cell none"></td>')
                continue
            rate, caught, counted = _counts(here)
            trend = series.get((op, profile))
            spark = svg_sparkline(trend.rates(history.runs)) if trend and len(history.runs) > 1 else ""
            tds.append(rate_cell(rate, caught, counted, spark,
                                 f' data-op="{e(op)}" data-profile="{e(profile)}"'))
        lines.append(f'<tr><td><code>{e(op)}</code></td><td><a class="mono" href="{e(link)}">'
                     f'{e(place["file"])}:{e(place["line"])}</a></td>{"".join(tds)}</tr>')
    lines.append("</tbody></table>")
    return "\n".join(lines)


def history_section(history) -> str:
    runs = history.runs
    if not runs:
        return '<h2 id="history">History</h2><p class="meta">No runs with outcomes.</p>'
    rows = "".join(
        f'<tr><td class="num">{e(r.id)}</td><td>{e(r.started_at)}</td><td class="mono">'
        f'{e((r.commit or "no git")[:12])}{" (dirty)" if r.dirty else ""}</td><td>{e(r.status)}</td>'
        f'{"".join(_overall_cell(s, r.id) for s in history.overall())}</tr>' for r in runs)
    heads = "".join(f'<th class="num">{e(s.profile)}</th>' for s in history.overall())
    return (f'<h2 id="history">History: {len(runs)} run(s) of {e(runs[-1].target)}</h2>'
            f'{svg_line_chart(history.overall(), runs)}'
            f'<table class="runs"><thead><tr><th>run</th><th>started</th><th>commit</th><th>status</th>{heads}'
            f'</tr></thead><tbody>{rows}</tbody></table>')


def _overall_cell(series, run_id: int) -> str:
    point = series.points.get(run_id)
    if point is None:
        return '<td class="cell none"></td>'
    caught = point["killed"] + point["timeout"]
    return rate_cell(point["kill_rate"], caught, caught + point["survived"] + point["no_coverage"])


def survivors_section(rows: list[dict], pages: dict[str, str]) -> str:
    parts = []
    for status, title in (("survived", "Survivors: mutants no test killed"),
                          ("no_coverage", "Not covered: mutants no test executes")):
        found = group_mutants(rows, (status,))
        if status == "no_coverage" and not found:
            continue
        parts.append(f'<h2 id="{status}">{title} ({len(found)})</h2>')
        if not found:
            parts.append('<p class="meta">None: every mutant was killed.</p>')
        parts.extend(mutant_card(m, profiles, f'{pages[m["file"]]}#L{m["line"]}') for m, profiles in found)
    return "\n".join(parts)


def files_section(rows: list[dict], pages: dict[str, str]) -> str:
    by_file: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_file[row["file"]].append(row)
    lines = ['<h2 id="files">Files</h2><table class="files"><thead><tr><th>file</th><th class="num">mutants</th>'
             '<th class="num">killed</th><th class="num">survived</th><th class="num">no coverage</th>'
             '<th class="num">other</th><th class="num">kill rate</th></tr></thead><tbody>']
    for file in sorted(by_file):
        here = by_file[file]
        statuses = Counter(r["status"] for r in here)
        rate, caught, counted = _counts(here)
        other = sum(n for s, n in statuses.items() if s not in ("killed", "timeout", "survived", "no_coverage"))
        lines.append(f'<tr><td><a class="mono" href="{e(pages[file])}">{e(file)}</a></td>'
                     f'<td class="num">{len({r["mutant"] for r in here})}</td><td class="num">{caught}</td>'
                     f'<td class="num">{statuses["survived"]}</td><td class="num">{statuses["no_coverage"]}</td>'
                     f'<td class="num">{other}</td>{rate_cell(rate, caught, counted)}</tr>')
    lines.append("</tbody></table>")
    return "\n".join(lines)


def _teeth_version() -> str:
    try:
        return version("teeth")
    except PackageNotFoundError:
        return "?"
