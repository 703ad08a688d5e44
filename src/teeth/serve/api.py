"""The JSON API: push a run (token, size and schema checked), and read targets, history, survivors, mutants."""

from __future__ import annotations

from functools import wraps

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from teeth.store.records import Result
from teeth.serve.service import Service, error, read_denied, request_token
from teeth.serve.payload import NewerSchema, digest, parse_push
from teeth.serve.store import Ambiguous


class TooLarge(Exception):
    pass


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


async def push_run(request: Request) -> JSONResponse:
    """POST /api/runs: 201 stored, 200 already stored, 401 token, 403 another target's token, 400 malformed, 413 too
    large, 409 newer schema."""
    service: Service = request.app.state.service
    token = await run_in_threadpool(lambda: service.store().token(request_token(request)))
    if token is None:
        return error(401, "a valid push token is required (Authorization: Bearer T; create one with "
                          "`teeth serve token create NAME`; a revoked token is refused)")
    try:
        body = await _body(request, service.max_body)
    except TooLarge:
        return error(413, f"the run is larger than this server accepts ({service.max_body} bytes)")
    except ClientDisconnect:
        return error(400, "the client went away before sending the whole run")

    def store() -> JSONResponse:
        try:
            run = parse_push(body)
            key = digest(run)
        except NewerSchema as exc:
            return error(409, str(exc))
        except RecursionError:
            return error(400, "malformed run: nested too deeply")
        except ValueError as exc:
            return error(400, f"malformed run: {exc}")
        if not token.may_push(run.run.target):
            return error(403, f"token {token.name!r} may push runs of {', '.join(token.targets)} only, "
                              f"not of target {run.run.target!r}; nothing stored")
        run_id, created = service.store().store_push(run, key, token.name)
        return JSONResponse({"run": run_id, "target": run.run.target, "stored": created,
                             "mutants": len(run.mutants), "outcomes": len(run.outcomes)},
                            status_code=201 if created else 200)

    return await run_in_threadpool(store)


def reader(query):
    """A read endpoint (run in the thread pool): token check when reads need one, LookupError -> 404."""

    @wraps(query)
    def endpoint(request: Request):
        denied = read_denied(request)
        if denied is not None:
            return denied
        try:
            return JSONResponse(query(request.app.state.service.store(), **request.path_params))
        except Ambiguous as exc:
            return error(409, exc.args[0])
        except LookupError as exc:
            return error(404, exc.args[0])

    return endpoint


@reader
def targets(store):
    """GET /api/targets: each target, its run count, latest run and that run's kill rate."""
    return store.target_summaries()


@reader
def history(store, name):
    """GET /api/targets/NAME/history: per run, commit, time and kill rate per op x profile x operator."""
    return {"target": name, "runs": store.target_history(name)}


@reader
def run(store, run_id):
    """GET /api/runs/ID: a run's metadata and its kill rate per op x profile."""
    return {"run": store.find_run(run_id).to_json(), "kill_rates": [r.to_json() for r in store.kill_rates(run_id)]}


def survivor_json(result: Result) -> dict:
    """A survivor as GET /api/runs/ID/survivors shows it (`mutant`: the old key of `mutant_id`, until teeth 0.2.0)."""
    m, o = result.mutant, result.outcome
    return {"mutant_id": m.id, "file": m.file, "line": m.line, "end_line": m.end_line, "function": m.function,
            "op": m.op, "operator": m.operator, "original": m.original, "replacement": m.replacement, "diff": m.diff,
            "profile": result.profile, "status": o.status.value, "detail": o.detail, "mutant": m.id}


@reader
def survivors(store, run_id):
    """GET /api/runs/ID/survivors: the run's surviving mutants with their diffs (`mutant`: the old key of
    `mutant_id`, kept until teeth 0.2.0)."""
    return [survivor_json(r) for r in store.survivors(run_id)]


@reader
def mutant(store, mutant_id, name=None):
    """GET /api/mutants/ID (409 when several targets hold the id) or /api/targets/NAME/mutants/ID: a mutant and its
    outcome in every run of its target."""
    return store.mutant_history(mutant_id, name)
