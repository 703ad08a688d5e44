"""The cost of isolation (scratch copy, Landlock, supervision): teeth at a commit before it vs the working tree.

    python benchmarks/bench_isolation.py --before 28e932f [--target batcher --target kernels:rmsnorm] [--repeat 2]

For each target (`NAME` or `NAME:OP` for one op), alternately with each teeth (the `--before` commit checked out
in a temp worktree and put first on PYTHONPATH, and this tree): `teeth run --no-cache` on a fresh database, then
from the records: the mean forked-child duration per mutant (`outcomes.duration`), the wall per mutant, and the
scratch copy's time (`runs.protection`). Goals: <= 2 ms added per mutant; <= 1 s for this repository's copy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_once(src: Path, target: str, op: str | None, db: Path) -> dict:
    """`src`'s teeth on the target of its own checkout (its config and its copy of the target's files)."""
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    args = [sys.executable, "-m", "teeth.cli", "run", "--target", target, "--no-cache", "--db", str(db)]
    if op:
        args += ["--op", op]
    started = time.perf_counter()
    done = subprocess.run(args, cwd=src.parent, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"teeth ({src}) failed with {done.returncode}: {done.stderr[-1500:]}")
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        run = dict(conn.execute("select * from runs order by id desc limit 1").fetchone())
        durations = [r[0] for r in conn.execute(
            "select duration from outcomes where run_id = ? and status in ('killed', 'survived') "
            "and reused_from is null", [run["id"]])]
        total = conn.execute("select count(*) from outcomes where run_id = ?", [run["id"]]).fetchone()[0]
    copy = [float(x) for x in re.findall(r"\(([\d.]+) s\)", run.get("protection") or "")]
    return {"wall": wall, "mutants": total, "child_ms": 1000 * statistics.mean(durations) if durations else 0.0,
            "measured": len(durations), "copy_s": max(copy) if copy else None,
            "protection": json.loads(run["protection"]) if run.get("protection") else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a commit without isolation")
    parser.add_argument("--target", action="append", help="NAME or NAME:OP (default: batcher, kernels:rmsnorm)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="teeth-bench-isolation-"))
    before = work / "before"
    subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=REPO, check=True,
                   capture_output=True)
    try:
        results = {}
        for spec in args.target or ["batcher", "kernels:rmsnorm"]:
            target, _, op = spec.partition(":")
            for i in range(args.repeat):  # alternate: the machine's noise falls on both
                for name, src in (("before", before / "src"), ("after", REPO / "src")):
                    db = work / f"{name}-{target}-{i}.db"
                    results.setdefault(spec, {}).setdefault(name, []).append(run_once(src, target, op or None, db))
            b, a = results[spec]["before"], results[spec]["after"]
            child_b = statistics.mean(r["child_ms"] for r in b)
            child_a = statistics.mean(r["child_ms"] for r in a)
            wall_b = statistics.mean(r["wall"] / r["mutants"] for r in b)
            wall_a = statistics.mean(r["wall"] / r["mutants"] for r in a)
            print(f"{spec}: {a[0]['mutants']} mutants; per mutant (forked child) before {child_b:.1f} ms, after "
                  f"{child_a:.1f} ms: {child_a - child_b:+.1f} ms (goal <= +2); wall per mutant before "
                  f"{1000 * wall_b:.0f} ms, after {1000 * wall_a:.0f} ms; scratch copy "
                  f"{max(r['copy_s'] or 0 for r in a):.2f} s (goal <= 1 s); {a[0]['protection']}", flush=True)
        print(json.dumps(results, indent=1), file=sys.stderr)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=REPO, capture_output=True)


if __name__ == "__main__":
    main()
