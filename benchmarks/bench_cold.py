"""The price of the cold execution path (the CUDA profiles' path) on CPU: the same mutants through both paths.

    python benchmarks/bench_cold.py [--target batcher] [--op OP ...] [--profile P ...]

Runs `teeth run --no-cache` with `--execution warm` and `--execution cold`, alternately (`--repeat`), on fresh
databases, and prints per path: the mean forked-child seconds per mutant (`outcomes.duration`), the wall per
mutant, the baseline's seconds, and whether every mutant got the same status through both paths.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run(execution: str, args, db: Path) -> dict:
    command = [sys.executable, "-m", "teeth.cli", "run", "--target", args.target, "--no-cache", "--db", str(db),
               "--execution", execution, *(a for op in args.op or () for a in ("--op", op)),
               *(a for p in args.profile or () for a in ("--profile", p))]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"teeth --execution {execution} failed ({done.returncode}): {done.stderr[-1500:]}")
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("select mutant_id || ' ' || profile, status from outcomes"))
        ran = [r[0] for r in conn.execute("select duration from outcomes where status in "
                                          "('killed', 'survived', 'timeout', 'error')")]
        timings = json.loads(conn.execute("select timings from runs").fetchone()[0])
    baseline = sum(v for k, v in timings.items() if k.startswith("baseline."))
    return {"wall": wall, "statuses": statuses, "child_s": statistics.mean(ran) if ran else 0.0, "ran": len(ran),
            "baseline_s": baseline}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="batcher")
    parser.add_argument("--op", action="append")
    parser.add_argument("--profile", action="append")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="teeth-bench-cold-"))
    found: dict[str, list[dict]] = {"warm": [], "cold": []}
    for i in range(args.repeat):
        for execution in ("warm", "cold"):
            found[execution].append(run(execution, args, work / f"{execution}-{i}.db"))
    same = all(r["statuses"] == found["warm"][0]["statuses"] for rs in found.values() for r in rs)
    for execution, rs in found.items():
        child = statistics.mean(r["child_s"] for r in rs)
        wall = statistics.mean(r["wall"] / max(len(r["statuses"]), 1) for r in rs)
        print(f"{args.target} {execution}: {rs[0]['ran']} mutants run; {1000 * child:.0f} ms per mutant (forked "
              f"child), {1000 * wall:.0f} ms wall per outcome, baseline {statistics.mean(r['baseline_s'] for r in rs):.1f} s")
    print(f"same status for every mutant through both paths: {same}")


if __name__ == "__main__":
    main()
