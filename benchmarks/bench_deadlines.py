"""Time per timeout: the mutant's deadline alone (the rule before per-test deadlines) against each test's own.

    python benchmarks/bench_deadlines.py [--loops 8] [--test-ms 30] [--jobs 1]

Writes a target of LOOPS functions, each `while i < n: i += 1` with one test of about TEST_MS milliseconds (a
sleep beside the call), and runs `teeth run --no-cache --no-infection` on it twice, side by side on fresh
databases: "mutant deadline" with `test_timeout_floor` out of reach (only `timeout_floor` + `timeout_factor` x the
tests' baseline applies: the rule before), then "test deadline" with the defaults. `generic.augmented_assignment`
makes every loop endless (`i = 1`); `generic.number` gives finishing mutants (`i = 1`, `i += 2`), whose children
show the fixed cost around the tests (fork, putting the mutant in place, pytest's protocol): child seconds minus
the tests' own seconds. Prints per rule the timeouts, the mean seconds per timeout (outcomes.duration) and the
budget its detail names, the wall time, and the ratio.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FUNCTION = '''

def count_up_{k}(n):
    i = 0
    while i < n:
        i += 1
    return i
'''
TEST = '''

def test_counts_up_{k}():
    time.sleep({seconds})
    assert count_up_{k}(5) == 5
'''
CONFIG = '''[tool.teeth.targets.loops]
files = ["loops.py"]
tests = ["tests"]
operators = ["generic.augmented_assignment", "generic.number"]
{extra}
[tool.pytest.ini_options]
pythonpath = ["."]
'''
RULES = {"mutant deadline": "test_timeout_floor = 1e9\n", "test deadline": ""}


def write_target(root: Path, loops: int, test_ms: float, extra: str) -> None:
    (root / "tests").mkdir(parents=True)
    (root / "loops.py").write_text('"""Loops that never end when their step is mutated."""\n'
                                   + "".join(FUNCTION.format(k=k) for k in range(loops)))
    names = ", ".join(f"count_up_{k}" for k in range(loops))
    (root / "tests" / "test_loops.py").write_text(f"import time\n\nfrom loops import {names}\n"
                                                  + "".join(TEST.format(k=k, seconds=test_ms / 1000)
                                                            for k in range(loops)))
    (root / "pyproject.toml").write_text(CONFIG.format(extra=extra))


def measure(root: Path, jobs: int) -> dict:
    db = root.parent / f"{root.name}.db"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "teeth.cli", "run", "--target", "loops", "--no-cache",
                           "--no-infection", "--jobs", str(jobs), "--db", str(db)],
                          cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"teeth run failed ({done.returncode}): {done.stderr[-1500:]}")
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select status, duration, test_seconds, detail from outcomes").fetchall()
    timeouts = [(duration, detail) for status, duration, _, detail in rows if status == "timeout"]
    budgets = [float(m[1]) for _, detail in timeouts
               if (m := re.search(r"(?:its own budget of|its budget was) ([0-9.]+) s", detail or ""))]
    overheads = [duration - seconds for status, duration, seconds, _ in rows
                 if status in ("killed", "survived") and seconds is not None]
    return {"timeouts": len(timeouts), "per_timeout": statistics.mean(d for d, _ in timeouts) if timeouts else 0.0,
            "budget": statistics.mean(budgets) if budgets else 0.0, "wall": wall,
            "overhead": statistics.median(overheads) if overheads else 0.0, "finished": len(overheads)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loops", type=int, default=8)
    parser.add_argument("--test-ms", type=float, default=30.0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="teeth-bench-deadlines-"))
    found = {}
    for i, (rule, extra) in enumerate(RULES.items()):
        root = work / f"rule{i}"
        write_target(root, args.loops, args.test_ms, extra)
        found[rule] = measure(root, args.jobs)
    print(f"{args.loops} looping mutants, tests of {args.test_ms:g} ms, --jobs {args.jobs}")
    print(f"{'rule':<16} {'timeouts':>8} {'s per timeout':>14} {'budget s':>9} {'wall s':>7} "
          f"{'child overhead ms (finished mutants)':>38}")
    for rule, r in found.items():
        print(f"{rule:<16} {r['timeouts']:>8} {r['per_timeout']:>14.2f} {r['budget']:>9.2f} {r['wall']:>7.1f} "
              f"{1000 * r['overhead']:>30.1f} ({r['finished']})")
    before, after = found["mutant deadline"], found["test deadline"]
    if before["per_timeout"]:
        print(f"time per timeout, test deadline / mutant deadline: {after['per_timeout'] / before['per_timeout']:.2f}; "
              f"wall: {after['wall'] / before['wall']:.2f}")


if __name__ == "__main__":
    main()
