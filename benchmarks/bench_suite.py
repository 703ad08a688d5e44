"""The test suite's time, module by module: a revision's tests against the working tree's, side by side in one run.

    python benchmarks/bench_suite.py [--before REV] tests/teeth/test_run_fixtures.py [MODULE ...]

Each module runs in its own pytest, the revision's copy (`git archive REV`, its own src) and the working tree's one
after the other, so that both see the same load. Per module it prints the CPU seconds (the pytest process and every
child it waited for: the CLIs, workers and forked mutants of each `teeth run`) and the wall seconds of its tests.
On a machine others share, compare CPU seconds: wall time there measures the neighbours. On a quiet machine the
suite's wall time is about its CPU time (a run forks its mutants `--jobs` at a time, most tests start one process).

As a pytest plugin (`-p bench_suite`, with benchmarks/ on PYTHONPATH) it writes each test's CPU and wall seconds to
the JSON file $SUITE_CLOCK_OUT, for the whole suite's `sum of durations`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_tests: list[tuple[str, float, float]] = []


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = cpu_seconds(), time.monotonic()
    yield
    _tests.append((item.nodeid, cpu_seconds() - cpu, time.monotonic() - wall))


def pytest_sessionfinish(session):
    if out := os.environ.get("SUITE_CLOCK_OUT"):
        Path(out).write_text(json.dumps(_tests))


def clock(tree: Path, module: str) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, pytest's last line) of one module's tests in a tree."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = {**os.environ, "SUITE_CLOCK_OUT": out.name,
               "PYTHONPATH": os.pathsep.join([str(tree / "src"), str(tree), str(REPO / "benchmarks")])}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "bench_suite", module], cwd=tree, env=env,
                              capture_output=True, text=True)
        tests = json.loads(Path(out.name).read_text() or "[]")
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return sum(t[1] for t in tests), sum(t[2] for t in tests), last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD~1", help="the revision to compare with (default HEAD~1)")
    parser.add_argument("modules", nargs="+", help="test modules, as paths from the repository root")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="teeth-bench-suite-") as scratch:
        before = Path(scratch)
        archive = subprocess.run(["git", "archive", args.before], cwd=REPO, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        print(f"{'module':44} {'cpu before':>10} {'cpu after':>10} {'ratio':>6} {'wall before':>11} {'wall after':>10}")
        totals = [0.0, 0.0]
        for module in args.modules:
            cpu_b, wall_b, last_b = clock(before, module)
            cpu_a, wall_a, last_a = clock(REPO, module)
            totals = [totals[0] + cpu_b, totals[1] + cpu_a]
            print(f"{Path(module).stem:44} {cpu_b:10.1f} {cpu_a:10.1f} {cpu_a / max(cpu_b, 1e-9):6.2f} "
                  f"{wall_b:11.1f} {wall_a:10.1f}   {last_b} | {last_a}")
        print(f"{'all':44} {totals[0]:10.1f} {totals[1]:10.1f} {totals[1] / max(totals[0], 1e-9):6.2f}")


if __name__ == "__main__":
    main()
