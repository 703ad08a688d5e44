"""The full kill matrix's price per mutant: the same mutants run first-failure-stops and with `--full-matrix`, side by
side in one run.

    python benchmarks/bench_full_matrix.py [--target batcher] [--op OP ...] [--jobs 1] [--repeat N]

Runs `teeth run --no-cache --execution warm` on fresh databases, alternately without and with `--full-matrix`; prints
per side the mean forked-child seconds per mutant (`outcomes.duration`), the wall per outcome, the tests run per mutant
(`outcomes.tests_run`: up to the first failure, or every test that executes it), the ratios full/first, and the
statuses that differ (none expected: the matrix changes what is recorded, not the verdict).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MEASURED = "('killed', 'survived', 'timeout', 'error')"


def run(args, db: Path, full: bool) -> dict:
    command = [sys.executable, "-m", "teeth.cli", "run", "--target", args.target, "--no-cache", "--db", str(db),
               "--execution", "warm", "--jobs", str(args.jobs), *(a for op in args.op or () for a in ("--op", op)),
               *(["--full-matrix"] if full else [])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"teeth ({'full' if full else 'first'}) failed ({done.returncode}): {done.stderr[-1500:]}")
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("select mutant_id || ' ' || profile, status from outcomes"))
        measured = list(conn.execute(f"select duration, tests_run from outcomes where status in {MEASURED}"))
    ran, tests = [r[0] for r in measured], [r[1] or 0 for r in measured]
    return {"wall": wall / max(len(statuses), 1), "statuses": statuses, "child": statistics.mean(ran) if ran else 0.0,
            "ran": len(ran), "tests": statistics.mean(tests) if tests else 0.0, "total": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="batcher")
    parser.add_argument("--op", action="append")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="teeth-bench-matrix-"))
    found: dict[str, list[dict]] = {"first": [], "full": []}
    for i in range(args.repeat):
        for side in found:
            found[side].append(run(args, work / f"{side}-{i}.db", side == "full"))
    mean = {side: {k: statistics.mean(r[k] for r in rs) for k in ("child", "wall", "total")}
            for side, rs in found.items()}
    for side, label in (("first", "first failure stops"), ("full", "--full-matrix")):
        m = mean[side]
        print(f"{args.target} warm, {label:19}: {found[side][0]['ran']} mutants run; {1000 * m['child']:.0f} ms per "
              f"mutant (forked child), {1000 * m['wall']:.0f} ms wall per outcome, {m['total']:.0f} s in all, "
              f"{found[side][0]['tests']:.1f} tests run per mutant")
    ratio = {k: mean["full"][k] / mean["first"][k] if mean["first"][k] else float("nan") for k in ("child", "wall")}
    print(f"full/first: per mutant {ratio['child']:.2f}x, wall per outcome {ratio['wall']:.2f}x")
    first, full = found["first"][0]["statuses"], found["full"][0]["statuses"]
    changed = sorted(k for k in first if full.get(k) != first[k])
    print(f"statuses that differ: {len(changed)}" + "".join(f"\n  {k}: {first[k]} -> {full.get(k)}" for k in changed))


if __name__ == "__main__":
    main()
