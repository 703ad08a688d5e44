"""`teeth push`: send one local run to a teeth server's POST /api/runs."""

from __future__ import annotations

import json

import httpx

from teeth.errors import EXIT_PUSH_FAILED, TeethError
from teeth.serve.store import ServeStore

TIMEOUT = httpx.Timeout(120.0, connect=10.0)


def push_run(url: str, token: str, store: ServeStore, run_id: int) -> dict:
    """POST the run to `url`; the server's JSON answer, or a one-line error."""
    body = json.dumps(store.export_run(run_id)).encode()
    endpoint = url.rstrip("/") + "/api/runs"
    try:
        answer = httpx.post(endpoint, content=body, timeout=TIMEOUT,
                            headers={"authorization": f"Bearer {token}", "content-type": "application/json"})
    except httpx.InvalidURL as exc:
        raise TeethError(f"not a server URL: {url!r} ({exc})") from None
    except httpx.HTTPError as exc:
        raise TeethError(f"cannot reach {endpoint}: {exc or type(exc).__name__}", EXIT_PUSH_FAILED) from None
    try:
        reply = answer.json()
    except ValueError:
        reply = {"error": answer.text[:200].strip() or answer.reason_phrase}
    if answer.status_code not in (200, 201):
        raise TeethError(f"{endpoint} refused run {run_id} (HTTP {answer.status_code}): "
                         f"{reply.get('error', reply) if isinstance(reply, dict) else reply}", EXIT_PUSH_FAILED)
    return {**reply, "local_run": run_id}
