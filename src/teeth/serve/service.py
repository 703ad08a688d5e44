"""What every request of the service needs: its database and read policy, this thread's store, token checks and
error replies."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse

from teeth.serve import DEFAULT_MAX_BODY, READS
from teeth.serve.store import ServeStore
from teeth.serve.tokens import bearer


@dataclass
class Service:
    """What every request needs: the database, who may read, and how big a push may be."""

    db: Path
    reads: str = "open"
    max_body: int = DEFAULT_MAX_BODY

    def __post_init__(self):
        if self.reads not in READS:
            raise ValueError(f"reads must be one of {READS}")
        self._local = threading.local()
        ServeStore(self.db).serving()  # migrate and create the service's tables once, before any request

    def store(self) -> ServeStore:
        """This thread's connection (sqlite3 connections stay on the thread that opened them)."""
        found = getattr(self._local, "store", None)
        if found is None:
            found = self._local.store = ServeStore(self.db)
        return found


def request_token(request: Request) -> str | None:
    return bearer(request.headers.get("authorization")) or request.query_params.get("token")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def read_denied(request: Request) -> JSONResponse | None:
    """None when the request may read; a 401 when reads need a token and it has no valid one."""
    service: Service = request.app.state.service
    if service.reads == "open" or service.store().token_name(request_token(request)):
        return None
    return error(401, "reads on this server need a token (Authorization: Bearer T, or ?token=T)")
