"""Pygments syntax highlighting for the HTML pages: Python sources line by line, and the code in unified diffs."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

STYLE = "default"
SCOPES = (".code", ".diff")  # the elements whose highlighted text the token rules colour
_FORMATTER = HtmlFormatter(nowrap=True, style=STYLE)


def token_css() -> str:
    """Pygments' CSS rules for its token classes, scoped to SCOPES, to inline in a page's <style>."""
    return "\n".join(_FORMATTER.get_token_style_defs(list(SCOPES))) + "\n"


def highlight_lines(lines: list[str]) -> list[Markup]:
    """Python source lines as escaped, highlighted HTML, one per line (each line's spans closed in that line).

    The lines are lexed together, so a string or comment that spans lines is coloured as Python reads it."""
    if not lines:
        return []
    html = highlight("\n".join(lines) + "\n", PythonLexer(stripnl=False), _FORMATTER)
    html = html.removesuffix("\n").split("\n")
    if len(html) != len(lines):  # never seen; plain escaped text keeps the line numbers right
        return [escape(line) for line in lines]
    return [Markup(line) for line in html]


@dataclass(frozen=True)
class DiffLine:
    kind: str  # file, hunk, add, del, ctx
    sign: str  # the leading +, - or space of a body line; "" otherwise
    code: Markup  # the rest, highlighted (body lines) or escaped (headers)


def diff_lines(diff: str | None) -> list[DiffLine]:
    """A unified diff's lines, each with its kind; the code of the old side (context and removed lines) and of
    the new side (context and added lines) is highlighted as two pieces of Python."""
    raw = (diff or "").splitlines()
    kinds = [_kind(line) for line in raw]
    context = [i for i, k in enumerate(kinds) if k == "ctx" and raw[i][:1] == " "]
    code: dict[int, Markup] = {}
    for changed in ("del", "add"):
        side = sorted(context + [i for i, k in enumerate(kinds) if k == changed])
        for i, html in zip(side, highlight_lines([raw[i][1:] for i in side])):
            if kinds[i] == changed or i not in code:
                code[i] = html
    out = []
    for i, (line, kind) in enumerate(zip(raw, kinds)):
        if i in code:
            out.append(DiffLine(kind, line[0], code[i]))
        else:
            out.append(DiffLine(kind, "", escape(line)))
    return out


def _kind(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return "hunk" if line.startswith("@@") else "ctx"
