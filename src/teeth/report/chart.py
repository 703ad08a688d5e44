"""Kill-rate charts over runs: unicode sparklines and a rich table for the terminal, inline SVG for HTML."""

from __future__ import annotations

from html import escape

from rich.console import Group
from rich.table import Table
from rich.text import Text

from teeth.history import History, Run, Series

BLOCKS = "▁▂▃▄▅▆▇█"
GAP = "·"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
MAX_TERMINAL_RUNS = 40


def rate_text(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def rate_style(rate: float | None) -> str:
    if rate is None:
        return "dim"
    return "green" if rate >= 0.9 else "yellow" if rate >= 0.6 else "red"


def sparkline(rates: list[float | None]) -> Text:
    """One block per run on a fixed 0-100% scale (rows compare), coloured by rate; `·` where unmeasured."""
    text = Text()
    for rate in rates:
        if rate is None:
            text.append(GAP, style="dim")
        else:
            text.append(BLOCKS[round(rate * (len(BLOCKS) - 1))], style=rate_style(rate))
    return text


def _change(values: list[float]) -> Text:
    if len(values) < 2:
        return Text("")
    delta = 100 * (values[-1] - values[0])
    return Text(f"{delta:+.1f}", style="green" if delta > 0 else "red" if delta < 0 else "dim")


def history_table(history: History, max_runs: int = MAX_TERMINAL_RUNS) -> Group:
    """The runs shown, then one row per op x profile: sparkline, latest rate, change since the first run,
    and the latest counts (caught / counted; `@N` when its latest run is not the newest shown)."""
    runs = history.runs[-max_runs:]
    hidden = len(history.runs) - len(runs)
    multi_target = len(history.targets) > 1
    runs_table = Table(title="runs (oldest first)", title_justify="left")
    for column in ("run", "target", "started", "commit", "status"):
        runs_table.add_column(column)
    for run in runs:
        commit = (run.commit or "no git")[:10] + (" +dirty" if run.dirty else "")
        runs_table.add_row(str(run.id), Text(run.target), (run.started_at or "")[:16].replace("T", " "), commit,
                           Text(run.status, style="" if run.status == "completed" else "yellow"))
    if hidden:
        runs_table.caption = f"{hidden} earlier run(s) not shown (narrow with --since)"
    chart = Table(title=f"kill rate per op x profile, runs {runs[0].id}..{runs[-1].id}", title_justify="left",
                  caption=f"history: one block per run, {BLOCKS[0]} 0% .. {BLOCKS[-1]} 100%, {GAP} not measured",
                  caption_justify="left")
    if multi_target:
        chart.add_column("target")
    widest = max(len(s.op) for s in history.series())
    chart.add_column("op", no_wrap=True, min_width=min(widest, 36))
    chart.add_column("profile")
    chart.add_column("history", no_wrap=True, min_width=min(len(runs), max_runs))
    for column in ("latest", "change", "caught"):
        chart.add_column(column, justify="right", no_wrap=True)
    for series in history.overall():
        chart.add_row(*_row(series, runs, multi_target))
    chart.add_section()
    for series in history.series():
        chart.add_row(*_row(series, runs, multi_target))
    return Group(runs_table, chart)


def _row(series: Series, runs: list[Run], multi_target: bool) -> list:
    values = series.measured()
    last = max(series.points)
    point = series.points[last]
    caught = point["killed"] + point["timeout"]
    counted = caught + point["survived"] + point["no_coverage"]
    cells = [Text(series.op, style="bold" if series.op.startswith("(") else ""), Text(series.profile),
             sparkline(series.rates([r for r in runs if r.target == series.target])),
             Text(rate_text(point["kill_rate"]), style=rate_style(point["kill_rate"])),
             _change(values), f"{caught}/{counted}" + ("" if last == runs[-1].id else f" @{last}")]
    return ([Text(series.target)] if multi_target else []) + cells


def svg_sparkline(rates: list[float | None], width: int = 64, height: int = 16) -> str:
    """A tiny inline SVG of rates on 0-100%: one polyline, a dot on the last measured run."""
    points = [(i, r) for i, r in enumerate(rates) if r is not None]
    if not points:
        return ""
    step = (width - 4) / max(len(rates) - 1, 1)
    coords = [(2 + i * step, 2 + (1 - r) * (height - 4)) for i, r in points]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    x, y = coords[-1]
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
            f'<polyline points="{line}" fill="none" stroke="currentColor" stroke-width="1.2"/>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="1.8" fill="currentColor"/></svg>')


def svg_line_chart(series_list: list[Series], runs: list[Run], width: int = 760, height: int = 260) -> str:
    """Kill rate (0-100%) per series across runs: gridlines, one coloured line each, a legend, tooltips."""
    left, right, top, bottom = 48, 16, 16, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(len(runs) - 1, 1)

    def x(i: int) -> float:
        return left + (i * step if len(runs) > 1 else plot_w / 2)

    def y(rate: float) -> float:
        return top + (1 - rate) * plot_h

    parts = [f'<svg class="chart" width="{width}" height="{height + 22 * len(series_list)}" '
             f'viewBox="0 0 {width} {height + 22 * len(series_list)}" role="img" '
             f'aria-label="kill rate over runs">']
    for pct in (0, 25, 50, 75, 100):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(pct / 100):.1f}" y2="{y(pct / 100):.1f}" '
                     f'class="grid"/><text x="{left - 6}" y="{y(pct / 100) + 4:.1f}" text-anchor="end" '
                     f'class="axis">{pct}%</text>')
    label_every = max(1, len(runs) // 12)
    for i, run in enumerate(runs):
        if i % label_every == 0 or i == len(runs) - 1:
            parts.append(f'<text x="{x(i):.1f}" y="{height - bottom + 16}" text-anchor="middle" class="axis">'
                         f'#{run.id}</text><text x="{x(i):.1f}" y="{height - bottom + 30}" text-anchor="middle" '
                         f'class="axis small">{escape((run.commit or "")[:7])}</text>')
    for n, series in enumerate(series_list):
        colour = PALETTE[n % len(PALETTE)]
        rates = series.rates(runs)
        for segment in _segments(rates):
            if len(segment) > 1:
                line = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in segment)
                parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for i, rate in enumerate(rates):
            if rate is not None:
                tip = escape(f"{runs[i].label} · {series.op} · {series.profile}: {rate_text(rate)}")
                parts.append(f'<circle cx="{x(i):.1f}" cy="{y(rate):.1f}" r="3.5" fill="{colour}">'
                             f'<title>{tip}</title></circle>')
        ly = height + 22 * n + 6
        latest = series.measured()[-1] if series.measured() else None
        parts.append(f'<rect x="{left}" y="{ly}" width="14" height="4" fill="{colour}"/>'
                     f'<text x="{left + 20}" y="{ly + 6}" class="legend">{escape(series.op)} · '
                     f'{escape(series.profile)} (latest {rate_text(latest)})</text>')
    parts.append("</svg>")
    return "".join(parts)


def _segments(rates: list[float | None]) -> list[list[tuple[int, float]]]:
    segments: list[list[tuple[int, float]]] = [[]]
    for i, rate in enumerate(rates):
        if rate is None:
            segments.append([])
        else:
            segments[-1].append((i, rate))
    return [s for s in segments if s]
