"""The HTML report's shared pieces: the page shell with inline CSS, escaping, diffs, rate classes, file names."""

from __future__ import annotations

import hashlib
import re
from html import escape

from teeth.report.chart import rate_text

CSS = """
:root { --bad: #c62828; --bad-bg: #fdecea; --ok: #8d6e00; --ok-bg: #fff6d5; --good: #1b5e20; --good-bg: #e8f5e9;
        --none-bg: #f3f3f3; --line: #ddd; --muted: #666; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; margin: 0;
       background: #fafafa; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; }
h1, h1.mono { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid
     var(--line); padding-bottom: 4px; }
a { color: #0b57d0; text-decoration: none; } a:hover { text-decoration: underline; }
.meta { color: var(--muted); margin: 0 0 8px; } .meta b { color: #1a1a1a; font-weight: 600; }
.headline { font-size: 28px; font-weight: 700; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
.cell { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.cell .counts { color: var(--muted); font-size: 11px; margin-left: 4px; }
.cell svg { vertical-align: middle; margin-left: 6px; }
.good { background: var(--good-bg); color: var(--good); } .ok { background: var(--ok-bg); color: var(--ok); }
.bad { background: var(--bad-bg); color: var(--bad); } .none { background: var(--none-bg); color: var(--muted); }
.chart .grid { stroke: #e3e3e3; } .chart .axis { font-size: 11px; fill: #555; }
.chart .small { font-size: 9.5px; fill: #888; } .chart .legend { font-size: 12px; fill: #222; }
.chart { background: #fff; border: 1px solid var(--line); }
.mutant { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--bad); margin: 8px 0;
          padding: 6px 10px; }
.mutant.no_coverage { border-left-color: #ef6c00; }
.mutant .head { margin-bottom: 4px; } .mutant .id { font-weight: 600; }
.tag { display: inline-block; padding: 0 6px; border-radius: 8px; background: #eee; font-size: 12px; margin-left: 4px; }
pre.diff { margin: 0; padding: 4px 6px; background: #fbfbfb; overflow-x: auto; white-space: pre; }
.diff span { display: block; } .diff .d-add { color: #1b5e20; background: #e6f4ea; }
.diff .d-del { color: #b71c1c; background: #fce8e6; } .diff .d-hunk { color: #6a1b9a; }
.diff .d-file { color: #777; }
table.source { width: 100%; border: 1px solid var(--line); }
table.source td { border: none; padding: 0 8px; }
table.source td.ln { color: #999; text-align: right; width: 1%; user-select: none; }
table.source td.ln a { color: inherit; } table.source td.marks { width: 1%; white-space: nowrap; }
table.source td.code { white-space: pre; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace;
                       font-size: 12.5px; }
tr.line-survived td { background: var(--bad-bg); } tr.line-no_coverage td { background: #fff0e0; }
tr.line-killed td.code { background: #f4fbf5; } tr.line-other td.code { background: #f6f6f6; }
tr.detail td { background: #fff; padding: 2px 8px 8px; }
.badge { display: inline-block; min-width: 22px; padding: 0 4px; border-radius: 3px; font-size: 11px;
         font-family: ui-monospace, monospace; text-align: center; margin-right: 2px; }
.badge.killed { background: var(--good-bg); color: var(--good); }
.badge.survived { background: var(--bad); color: #fff; }
.badge.no_coverage { background: #ef6c00; color: #fff; }
.badge.other { background: #ddd; color: #333; }
.notice { background: var(--ok-bg); border: 1px solid #e6d38a; padding: 6px 10px; margin: 8px 0; }
footer { color: var(--muted); font-size: 12px; margin-top: 32px; }
"""


def e(value) -> str:
    """Escape anything for HTML text or a quoted attribute."""
    return escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)}</title><style>{CSS}</style></head>\n<body><main>\n{body}\n</main></body></html>\n")


def rate_class(rate: float | None) -> str:
    if rate is None:
        return "none"
    return "good" if rate >= 0.9 else "ok" if rate >= 0.6 else "bad"


def rate_cell(rate: float | None, caught: int, counted: int, extra: str = "", attrs: str = "") -> str:
    shown = rate_text(rate) if counted else "-"
    return (f'<td class="cell {rate_class(rate)}"{attrs}>{shown}<span class="counts">{caught}/{counted}</span>'
            f"{extra}</td>")


def diff_html(diff: str | None) -> str:
    """A unified diff as a <pre>, one span per line, coloured by kind."""
    spans = []
    for line in (diff or "").splitlines():
        kind = ("file" if line.startswith(("+++", "---")) else "add" if line.startswith("+")
                else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else "ctx")
        spans.append(f'<span class="d-{kind}">{e(line) or " "}</span>')
    return f'<pre class="diff">{"".join(spans)}</pre>'


def mutant_card(mutant: dict, profiles: list[str], link: str | None = None) -> str:
    """A surviving (or uncovered) mutant: id, place, op, operator, profiles, and its diff."""
    where = f"{mutant['file']}:{mutant['line']}"
    where_html = f'<a href="{e(link)}">{e(where)}</a>' if link else e(where)
    tags = "".join(f'<span class="tag">{e(p)}</span>' for p in profiles)
    return (f'<div class="mutant {e(mutant["status"])}" id="m-{e(mutant["mutant"])}" '
            f'data-mutant="{e(mutant["mutant"])}"><div class="head"><span class="id mono">{e(mutant["mutant"])}</span>'
            f' {where_html} · op <code>{e(mutant["op"])}</code> · <code>{e(mutant["operator"])}</code>'
            f' · {e(mutant["status"].replace("_", " "))} in{tags}</div>{diff_html(mutant["diff"])}</div>')


def file_page_name(file: str) -> str:
    """A safe, unique page name for a target file: `files/<flattened>-<hash>.html`, never outside DIR."""
    flat = re.sub(r"[^A-Za-z0-9_.-]+", "_", file).strip("._")[-80:] or "file"
    return f"files/{flat}-{hashlib.sha1(file.encode()).hexdigest()[:8]}.html"


def group_mutants(rows: list[dict], statuses: tuple[str, ...]) -> list[tuple[dict, list[str]]]:
    """The rows with one of `statuses`, one entry per mutant and status with the profiles it had it in."""
    found: dict[tuple[str, str], tuple[dict, list[str]]] = {}
    for row in rows:
        if row["status"] in statuses:
            found.setdefault((row["mutant"], row["status"]), (row, []))[1].append(row["profile"])
    return list(found.values())
