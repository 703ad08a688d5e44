"""The infection pass measured on a target, side by side in one script: the same run with the pass and without it
(`--no-infection`), every outcome measured (`--no-cache`). Sound when the killed sets are equal and every mutant the
pass called `not_infected` survived when it ran its tests anyway; also the time each run took.

    python benchmarks/infection_soundness.py --target batcher [--target kernels] [--profile P] [--op OP] [--jobs N]
        [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(target: str, db: Path, jobs: int | None, *flags: str) -> tuple[dict, dict, float]:
    """(outcomes by (mutant, profile), the run's timings, wall seconds) of one `teeth run`."""
    paths = [str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "teeth.cli", "run", "--target", target, "--no-cache", "--db", str(db),
                           *(["--jobs", str(jobs)] if jobs else []), *flags], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: under fail_under, still a whole run
        sys.exit(f"teeth run --target {target} {' '.join(flags)} failed ({done.returncode}): {done.stderr[-2000:]}")
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        run_id, timings = conn.execute("select id, timings from runs order by id desc limit 1").fetchone()
        rows = {(r["mutant_id"], r["profile"]): dict(r) for r in conn.execute(
            "select mutant_id, profile, status, why, detail from outcomes where run_id = ?", [run_id])}
    return rows, json.loads(timings or "{}"), wall


def measure(target: str, jobs: int | None, profiles: list[str], keep: str | None, ops: list[str] = ()) -> dict:
    flags = [f for p in profiles for f in ("--profile", p)] + [f for op in ops for f in ("--op", op)]
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(keep or tmp)
        where.mkdir(parents=True, exist_ok=True)
        with_pass, timings_with, wall_with = run(target, where / f"{target}-with.db", jobs, *flags)
        without, timings_without, wall_without = run(target, where / f"{target}-without.db", jobs, *flags,
                                                     "--no-infection")
    killed = {key for key, row in with_pass.items() if row["status"] == "killed"}
    killed_without = {key for key, row in without.items() if row["status"] == "killed"}
    decided = [key for key, row in with_pass.items() if row["why"] == "not_infected"]
    not_surviving = [(key, without[key]["status"]) for key in decided if without[key]["status"] != "survived"]
    return {
        "target": target, "mutants": len(with_pass), "killed": len(killed), "killed_without": len(killed_without),
        "killed_sets_equal": killed == killed_without,
        "only_with": sorted(map(list, killed - killed_without)),
        "only_without": sorted(map(list, killed_without - killed)),
        "survived": sum(row["status"] == "survived" for row in with_pass.values()),
        "survivors_without_a_why": sum(row["status"] == "survived" and not row["why"] for row in with_pass.values()),
        "not_infected": len(decided), "not_infected_that_did_not_survive_when_run": not_surviving,
        "seconds_with": round(wall_with, 1), "seconds_without": round(wall_without, 1),
        "infection_seconds": round(sum(v for k, v in timings_with.items() if k.startswith("infection.")), 2),
        "execute_seconds_with": round(sum(v for k, v in timings_with.items() if k.startswith("execute.")), 2),
        "execute_seconds_without": round(sum(v for k, v in timings_without.items() if k.startswith("execute.")), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", required=True)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--profile", action="append", default=[], help="only these profiles (default: all)")
    parser.add_argument("--keep", default=None, help="keep the two databases in this folder")
    parser.add_argument("--op", action="append", default=[], help="only these ops (default: all)")
    args = parser.parse_args()
    failed = False
    for target in args.target:
        figures = measure(target, args.jobs, args.profile, args.keep, args.op)
        print(json.dumps(figures))
        failed |= not figures["killed_sets_equal"] or bool(figures["not_infected_that_did_not_survive_when_run"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
