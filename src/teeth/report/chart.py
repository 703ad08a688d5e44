"""Kill-rate charts over runs: unicode sparklines and a rich table for the terminal, inline SVG (Jinja2 templates)
for HTML."""

from __future__ import annotations

from markupsafe import Markup
from rich.console import Group
from rich.table import Table
from rich.text import Text

from teeth.report.history import History, Series, run_label
from teeth.store.records import Run
from teeth.report.html_page import templates  # the pages' environment (autoescaped .svg)
from teeth.report.rates import rate_style, rate_text

BLOCKS = "▁▂▃▄▅▆▇█"
GAP = "·"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
MAX_TERMINAL_RUNS = 40


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
                           Text(run.status.value, style="" if run.status == "completed" else "yellow"))
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
    caught, counted = point.tally
    cells = [Text(series.op, style="bold" if series.op.startswith("(") else ""), Text(series.profile),
             sparkline(series.rates([r for r in runs if r.target == series.target])),
             Text(rate_text(point.kill_rate), style=rate_style(point.kill_rate)),
             _change(values), f"{caught}/{counted}" + ("" if last == runs[-1].id else f" @{last}")]
    return ([Text(series.target)] if multi_target else []) + cells


def svg_sparkline(rates: list[float | None], width: int = 64, height: int = 16) -> Markup:
    """A tiny inline SVG of rates on 0-100% (templates/sparkline.svg): one polyline, a dot on the last measured
    run; empty when nothing was measured."""
    points = [(i, r) for i, r in enumerate(rates) if r is not None]
    if not points:
        return Markup("")
    step = (width - 4) / max(len(rates) - 1, 1)
    coords = [(f"{2 + i * step:.1f}", f"{2 + (1 - r) * (height - 4):.1f}") for i, r in points]
    return _svg("sparkline.svg", width=width, height=height, points=" ".join(f"{x},{y}" for x, y in coords),
                last=coords[-1])


def svg_line_chart(series_list: list[Series], runs: list[Run], width: int = 760, height: int = 260) -> Markup:
    """Kill rate (0-100%) per series across runs (templates/line_chart.svg): gridlines, one coloured line each,
    a legend, tooltips."""
    left, right, top, bottom = 48, 16, 16, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(len(runs) - 1, 1)

    def x(i: int) -> str:
        return f"{left + (i * step if len(runs) > 1 else plot_w / 2):.1f}"

    def y(rate: float, shift: float = 0) -> str:
        return f"{top + (1 - rate) * plot_h + shift:.1f}"

    label_every = max(1, len(runs) // 12)
    lines = []
    for n, series in enumerate(series_list):
        rates = series.rates(runs)
        measured = series.measured()
        lines.append({
            "series": series, "colour": PALETTE[n % len(PALETTE)], "legend_y": height + 22 * n + 6,
            "latest": measured[-1] if measured else None,
            "segments": [" ".join(f"{x(i)},{y(r)}" for i, r in segment) for segment in _segments(rates)
                         if len(segment) > 1],
            "dots": [(x(i), y(r), f"{run_label(runs[i])} · {series.op} · {series.profile}: {rate_text(r)}")
                     for i, r in enumerate(rates) if r is not None]})
    return _svg("line_chart.svg", width=width, height=height + 22 * len(series_list), left=left,
                right=width - right, axis_y=height - bottom, lines=lines,
                grid=[(pct, y(pct / 100), y(pct / 100, 4)) for pct in (0, 25, 50, 75, 100)],
                labels=[(x(i), run) for i, run in enumerate(runs) if i % label_every == 0 or i == len(runs) - 1])


def _svg(name: str, **context) -> Markup:
    return Markup(templates.get_template(name).render(**context))


def _segments(rates: list[float | None]) -> list[list[tuple[int, float]]]:
    segments: list[list[tuple[int, float]]] = [[]]
    for i, rate in enumerate(rates):
        if rate is None:
            segments.append([])
        else:
            segments[-1].append((i, rate))
    return [s for s in segments if s]
