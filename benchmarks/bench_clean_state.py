"""The price of clean-state mutants on the warm path: the same mutants with teeth before and after the baseline moved
into a forked child (REV's src against this checkout's), side by side in one run.

    python benchmarks/bench_clean_state.py [--before REV] [--target batcher] [--op OP ...] [--repeat N]

Exports REV's src/ into a temp dir and runs `teeth run --no-cache --execution warm` with it and with this checkout,
alternately, on fresh databases; prints per side the mean forked-child seconds per mutant (`outcomes.duration`), the
wall per outcome, the baseline's seconds, the ratios after/before, and the statuses that differ.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run(src: Path, args, db: Path) -> dict:
    command = [sys.executable, "-m", "teeth.cli", "run", "--target", args.target, "--no-cache", "--db", str(db),
               "--execution", "warm", "--jobs", str(args.jobs), *(a for op in args.op or () for a in ("--op", op))]
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"teeth ({src}) failed ({done.returncode}): {done.stderr[-1500:]}")
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("select mutant_id || ' ' || profile, status from outcomes"))
        ran = [r[0] for r in conn.execute("select duration from outcomes where status in "
                                          "('killed', 'survived', 'timeout', 'error')")]
        timings = json.loads(conn.execute("select timings from runs").fetchone()[0])
    return {"wall": wall / max(len(statuses), 1), "statuses": statuses, "child": statistics.mean(ran) if ran else 0.0,
            "ran": len(ran), "baseline": sum(v for k, v in timings.items() if k.startswith("baseline."))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main")
    parser.add_argument("--target", default="batcher")
    parser.add_argument("--op", action="append")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="teeth-bench-clean-"))
    archive = subprocess.run(["git", "archive", args.before, "src"], cwd=REPO, capture_output=True, check=True).stdout
    (work / "before").mkdir()
    subprocess.run(["tar", "x", "-C", str(work / "before")], input=archive, check=True)
    sides = {"before": work / "before" / "src", "after": REPO / "src"}
    found: dict[str, list[dict]] = {side: [] for side in sides}
    for i in range(args.repeat):
        for side, src in sides.items():
            found[side].append(run(src, args, work / f"{side}-{i}.db"))
    mean = {side: {k: statistics.mean(r[k] for r in rs) for k in ("child", "wall", "baseline")}
            for side, rs in found.items()}
    for side in sides:
        m = mean[side]
        print(f"{args.target} warm, {side:6} ({args.before if side == 'before' else 'this checkout'}): "
              f"{found[side][0]['ran']} mutants run; {1000 * m['child']:.0f} ms per mutant (forked child), "
              f"{1000 * m['wall']:.0f} ms wall per outcome, baseline {m['baseline']:.1f} s")
    ratio = {k: mean["after"][k] / mean["before"][k] if mean["before"][k] else float("nan")
             for k in ("child", "wall", "baseline")}
    print(f"after/before: per mutant {ratio['child']:.2f}x, wall per outcome {ratio['wall']:.2f}x, "
          f"baseline {ratio['baseline']:.2f}x")
    before, after = found["before"][0]["statuses"], found["after"][0]["statuses"]
    changed = sorted(k for k in before if after.get(k) != before[k])
    print(f"statuses that differ: {len(changed)}" + "".join(f"\n  {k}: {before[k]} -> {after.get(k)}" for k in changed))


if __name__ == "__main__":
    main()
