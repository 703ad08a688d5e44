"""The Starlette application: the routes over one Service (its store per worker thread, token checks, the body
limit)."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Route

from teeth.serve import DEFAULT_MAX_BODY, api, pages
from teeth.serve.service import Service


def create_app(db: Path | str, reads: str = "open", max_body: int = DEFAULT_MAX_BODY) -> Starlette:
    app = Starlette(routes=[
        Route("/api/runs", api.push_run, methods=["POST"]),
        Route("/api/targets", api.targets),
        Route("/api/targets/{name:str}/history", api.history),
        Route("/api/runs/{run_id:int}", api.run),
        Route("/api/runs/{run_id:int}/survivors", api.survivors),
        Route("/api/mutants/{mutant_id:str}", api.mutant),
        Route("/api/targets/{name:str}/mutants/{mutant_id:str}", api.mutant),
        Route("/", pages.index),
        Route("/targets/{name:str}", pages.target),
        Route("/runs/{run_id:int}", pages.run),
        Route("/mutants/{mutant_id:str}", pages.mutant),
        Route("/targets/{name:str}/mutants/{mutant_id:str}", pages.mutant),
        Route("/badge/{name:str}.svg", pages.badge),
    ])
    app.state.service = Service(Path(db), reads, max_body)
    return app
