"""The kill-rate badge: an SVG, and the JSON that shields.io's endpoint badge reads. `teeth badge` writes both;
`teeth serve` answers /badge/NAME.svg with the same SVG."""

from __future__ import annotations

import json

from jinja2 import Environment

from teeth.core import kill_rate
from teeth.errors import TeethError
from teeth.report.html_page import rate_class
from teeth.report.rates import rate_text
from teeth.store.db import Store

LABEL = "kill rate"
COLOURS = {"good": "#2e7d32", "ok": "#b08800", "bad": "#c62828", "none": "#9e9e9e"}  # the reports' cell colours
SVG = Environment(autoescape=True).from_string(
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="20" role="img" '
    'aria-label="{{ name }}: {{ label }} {{ value }}">\n<title>{{ name }}: {{ label }} {{ value }}</title>\n'
    '<rect width="60" height="20" fill="#555"/><rect x="60" width="60" height="20" fill="{{ colour }}"/>\n'
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">\n'
    '<text x="30" y="14">{{ label }}</text><text x="90" y="14">{{ value }}</text></g></svg>')


def message(rate: float | None) -> str:
    """The badge's right-hand text: the rate, or why there is none (shields.io refuses an empty message)."""
    return "no mutants" if rate is None else rate_text(rate)


def colour(rate: float | None) -> str:
    return COLOURS[rate_class(rate)]


def svg(name: str, rate: float | None, value: str | None = None) -> str:
    """The badge; `value` replaces the rate's text (the service's "unknown" for a target it has not seen)."""
    return SVG.render(name=name, label=LABEL, value=value or message(rate), colour=colour(rate)) + "\n"


def endpoint(rate: float | None) -> str:
    """shields.io's endpoint badge JSON (https://shields.io/badges/endpoint-badge)."""
    return json.dumps({"schemaVersion": 1, "label": LABEL, "message": message(rate), "color": colour(rate)}) + "\n"


def run_rate(store: Store, run: dict, shown_as: str) -> float | None:
    """The kill rate of a run (`teeth badge`: the target's latest whole `teeth run`, the run `teeth results` lists);
    a one-line error, naming the run as `shown_as`, when it recorded no outcome."""
    counts = store.outcome_counts(run.id)
    if not any(counts.values()):
        raise TeethError(f"{shown_as} recorded no outcome: no kill rate to show (`teeth results --target "
                         f"{run.target}` lists the same run)")
    return kill_rate(counts)
