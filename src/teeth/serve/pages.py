"""The HTML pages (Jinja2, autoescaped, no scripts; the report's page shell and macros) and the kill-rate badge."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from teeth.core import COUNTED, Status, kill_rate
from teeth.report.history import load_history
from teeth.report import badge as kill_rate_badge
from teeth.report.chart import svg_line_chart
from teeth.report.html_page import environment, rate_class
from teeth.report.rates import rate_text
from teeth.serve.service import read_denied
from teeth.serve.store import Ambiguous

MAX_CHART_LINES = 8
templates = environment("teeth.serve")  # serve's templates, then the report's (page.html, macros.html)


def page(render):
    """A page endpoint (run in the thread pool): token check when reads need one, LookupError -> 404 page."""

    @wraps(render)
    def endpoint(request: Request) -> Response:
        denied = read_denied(request)
        if denied is not None:
            return denied
        token = request.query_params.get("token")
        try:
            name, context = render(request.app.state.service.store(), **request.path_params)
            status = 200
        except LookupError as exc:
            name, context = "missing.html", {"message": exc.args[0]}
            status = 409 if isinstance(exc, Ambiguous) else 404
        suffix = "?" + urlencode({"token": token}) if token else ""
        return HTMLResponse(templates.get_template(name).render(suffix=suffix, **context), status_code=status)

    return endpoint


@page
def index(store):
    return "index.html", {"targets": store.target_summaries()}


@page
def target(store, name):
    runs = store.target_history(name)  # LookupError when there is no such target
    history = load_history(store, name)
    lines = history.overall()
    if len(lines) + len(history.series()) <= MAX_CHART_LINES:
        lines += history.series()
    table = []
    for run in reversed(runs):
        cells = run["kill_rates"]
        totals = {k: sum(c[k] for c in cells) for k in COUNTED}
        table.append({**run, "kill_rate": kill_rate(totals), "survived": totals[Status.SURVIVED]})
    return "target.html", {"name": name, "chart": svg_line_chart(lines, history.runs), "runs": table}


@page
def run(store, run_id):
    row = store.find_run(run_id)
    rates = store.kill_rates(run_id)
    ops = sorted({r.op for r in rates})
    profiles = sorted({r.profile for r in rates})
    matrix = {(r.op, r.profile): r for r in rates}
    survivors: dict[str, tuple] = {}  # mutant id -> (its first result, the profiles it survived in)
    for s in store.survivors(run_id):
        survivors.setdefault(s.mutant.id, (s, []))[1].append(s.profile)
    return "run.html", {"run": row, "ops": ops, "profiles": profiles, "matrix": matrix,
                        "survivors": list(survivors.values())}


@page
def mutant(store, mutant_id, name=None):
    return "mutant.html", {"mutant": store.mutant_history(mutant_id, name)}


def badge(request: Request) -> Response:
    """GET /badge/NAME.svg: the target's latest kill rate, coloured like the reports' cells."""
    denied = read_denied(request)
    if denied is not None:
        return denied
    name = request.path_params["name"]
    found = next((t for t in request.app.state.service.store().target_summaries() if t["target"] == name), None)
    rate = found["kill_rate"] if found else None
    svg = kill_rate_badge.svg(name, rate, None if found else "unknown")
    return Response(svg, media_type="image/svg+xml", status_code=200 if found else 404,
                    headers={"cache-control": "no-cache"})
