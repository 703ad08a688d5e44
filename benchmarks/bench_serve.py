"""`teeth serve` under load on loopback: concurrent pushes of large runs and concurrent queries, nothing lost.

    python benchmarks/bench_serve.py [--pushes 20] [--mutants 1000] [--queries 200]

Records `--pushes` + 1 different runs of `--mutants` mutants each (every mutant in two profiles) in a local
database, starts `teeth serve --port 0` in a subprocess, pushes one run, then sends the other `--pushes` and
`--queries` queries (target list, history, a run, its survivors, a mutant, the pages and the badge, in turn) all
at once from one asyncio client. Then it pushes every run again at once (each must be answered "already stored").
It prints p50/p95/max latency of pushes and queries, and compares counts: runs, outcomes and tests on the server
against what was pushed, and every query answered 200. Exit 1 when anything was lost or refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.helpers.serve_runs import live_server, record_run  # noqa: E402

from teeth.serve.store import ServeStore  # noqa: E402

QUERIES = ("/api/targets", "/api/targets/load/history", "/api/runs/1", "/api/runs/1/survivors",
           "/api/mutants/load-r00-00007", "/targets/load", "/runs/1", "/mutants/load-r00-00007", "/badge/load.svg")


def percentile(values: list[float], pct: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1] if len(values) > 1 else values[0]


def latency_line(name: str, seconds: list[float]) -> str:
    ms = [1000 * s for s in seconds]
    return (f"{name}: {len(ms)} requests, p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms, "
            f"max {max(ms):.0f} ms")


async def timed(client: httpx.AsyncClient, method: str, path: str, **kwargs) -> tuple[int, float, str]:
    start = time.perf_counter()
    answer = await client.request(method, path, **kwargs)
    return answer.status_code, time.perf_counter() - start, answer.text[:200]


async def burst(url: str, token: str, bodies: list[bytes], queries: list[str]) -> tuple[list, list]:
    """Every push and every query at once; returns ([(status, seconds, text)] of pushes, ... of queries)."""
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    limits = httpx.Limits(max_connections=len(bodies) + len(queries), max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=httpx.Timeout(600.0)) as client:
        pushes = [timed(client, "POST", "/api/runs", content=body, headers=headers) for body in bodies]
        reads = [timed(client, "GET", path) for path in queries]
        done = await asyncio.gather(*pushes, *reads)
    return done[:len(bodies)], done[len(bodies):]


def counts(db: Path) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"select count(*) from {t}").fetchone()[0] for t in ("runs", "outcomes", "tests"))


def measure(work: Path, pushes: int, mutants: int, queries: int) -> dict:
    """Run the load; returns latencies, statuses and the lost counts (all zero when nothing was lost)."""
    local, served = work / "local.db", work / "server.db"
    for n in range(pushes + 1):  # run 1 is pushed first, so that the queries have something to read
        record_run(local, target="load", mutants=mutants, survivors=mutants // 10, commit=f"{n:040x}",
                   seed=f"r{n:02d}-")
    exported = [ServeStore(local).export_run(n + 1) for n in range(pushes + 1)]
    bodies = [json.dumps(body).encode() for body in exported]
    token = ServeStore(served).serving().create_token("bench")
    paths = [QUERIES[i % len(QUERIES)] for i in range(queries)]
    with live_server(served) as url:
        first = httpx.post(f"{url}/api/runs", content=bodies[0], timeout=600,
                           headers={"authorization": f"Bearer {token}", "content-type": "application/json"})
        assert first.status_code == 201, first.text
        start = time.perf_counter()
        pushed, read = asyncio.run(burst(url, token, bodies[1:], paths))
        wall = time.perf_counter() - start
        after_burst = counts(served)
        again, _ = asyncio.run(burst(url, token, bodies, []))
    expected = (pushes + 1, sum(len(b["outcomes"]) for b in exported), sum(len(b["tests"]) for b in exported))
    return {"pushes": pushed, "queries": read, "again": again, "wall": wall, "expected": expected,
            "stored": after_burst, "stored_after_again": counts(served), "bytes": len(bodies[0])}


def lost(result: dict) -> list[str]:
    """What went wrong, one line each; empty when every push was stored once and every query answered."""
    problems = []
    problems += [f"push answered {s}: {t}" for s, _, t in result["pushes"] if s != 201]
    problems += [f"query answered {s}: {t}" for s, _, t in result["queries"] if s != 200]
    problems += [f"second push answered {s}: {t}" for s, _, t in result["again"] if s != 200]
    if result["stored"] != result["expected"]:
        problems.append(f"stored (runs, outcomes, tests) {result['stored']}, pushed {result['expected']}")
    if result["stored_after_again"] != result["expected"]:
        problems.append(f"after pushing again: {result['stored_after_again']}, pushed {result['expected']}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushes", type=int, default=20)
    parser.add_argument("--mutants", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        result = measure(Path(work), args.pushes, args.mutants, args.queries)
    print(f"{args.pushes + 1} runs of {args.mutants} mutants x 2 profiles ({result['bytes'] / 2**20:.1f} MiB each): "
          f"1 pushed first, then {len(result['pushes'])} pushes and {len(result['queries'])} queries at once "
          f"({result['wall']:.1f} s wall)")
    print(latency_line("pushes", [s for _, s, _ in result["pushes"]]))
    print(latency_line("queries", [s for _, s, _ in result["queries"]]))
    print(latency_line("pushes again (already stored)", [s for _, s, _ in result["again"]]))
    print(f"stored (runs, outcomes, tests): {result['stored']}; pushed: {result['expected']}; "
          f"after pushing all again: {result['stored_after_again']}")
    problems = lost(result)
    print("nothing lost" if not problems else "\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
