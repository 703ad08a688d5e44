"""The HTML pages' shared pieces: the Jinja2 environment (autoescaped, with the inline CSS), rate classes, file
names and grouped mutants. The markup itself lives in templates/ (page.html, macros.html, index.html, file.html)."""

from __future__ import annotations

import hashlib
import re
from importlib.resources import files

from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from teeth.store.records import Result
from teeth.report.rates import rate_text
from teeth.report.highlight import diff_lines, token_css

# The pages' one <style>: teeth's rules, then Pygments' token colours. Not a template: CSS is raw text in <style>.
STYLE = Markup((files("teeth.report") / "templates" / "report.css").read_text(encoding="utf-8") + token_css())


def rate_class(rate: float | None) -> str:
    if rate is None:
        return "none"
    return "good" if rate >= 0.9 else "ok" if rate >= 0.6 else "bad"


def environment(*packages: str) -> Environment:
    """Templates from each package's templates/ folder (earlier packages win), then the report's own; autoescaped
    (.html, .svg), with the helpers every page uses."""
    env = Environment(loader=ChoiceLoader([PackageLoader(p, "templates") for p in (*packages, "teeth.report")]),
                      autoescape=select_autoescape(["html", "svg"]), trim_blocks=True, lstrip_blocks=True)
    env.globals.update(style=STYLE, rate_text=rate_text, rate_class=rate_class)
    env.filters["diff_lines"] = diff_lines
    return env


templates = environment()


def render(name: str, **context) -> str:
    return templates.get_template(name).render(**context) + "\n"


def file_page_name(file: str) -> str:
    """A safe, unique page name for a target file: `files/<flattened>-<hash>.html`, never outside DIR."""
    flat = re.sub(r"[^A-Za-z0-9_.-]+", "_", file).strip("._")[-80:] or "file"
    return f"files/{flat}-{hashlib.sha1(file.encode()).hexdigest()[:8]}.html"


def group_mutants(rows: list[Result], statuses: tuple[str, ...]) -> list[tuple[Result, list[str]]]:
    """The results with one of `statuses`, one entry per mutant and status with the profiles it had it in."""
    found: dict[tuple[str, str], tuple[Result, list[str]]] = {}
    for row in rows:
        if row.status in statuses:
            found.setdefault((row.mutant.id, row.status), (row, []))[1].append(row.profile)
    return list(found.values())
