"""teeth vs mutmut 3.8.1 on the same batcher files and the same tests, in one run on this machine.

    python benchmarks/bench_vs_mutmut.py [--jobs 2]

Copies src/batcher and tests/batcher into a temp project, runs `mutmut run` there, then
`teeth run` with the generic operators only (mutmut's own library: the same kind of
mutants) and with every operator. Prints wall time, mutants, mutants per second, wall per
mutant, and teeth's per-mutant overhead beyond the tests' own time (from the child's
timing of each test). Figures are ratios measured in one run: the machine is noisy.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PYPROJECT = """
[tool.mutmut]
source_paths = ["src/batcher"]
pytest_add_cli_args_test_selection = ["tests/batcher"]

[tool.teeth.targets.batcher]
files = ["src/batcher/*.py"]
tests = ["tests/batcher"]

[tool.pytest.ini_options]
pythonpath = ["src"]
addopts = "-p no:cacheprovider"
"""


def project(root: Path) -> None:
    shutil.copytree(REPO / "src" / "batcher", root / "src" / "batcher", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "tests" / "batcher", root / "tests" / "batcher",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(PYPROJECT)


def timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - started, done


def mutmut(root: Path, jobs: int) -> dict:
    wall, done = timed([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)], root)
    if done.returncode != 0:
        raise SystemExit(f"mutmut failed ({done.returncode}): {done.stderr[-2000:]}")
    listing = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=root,
                             capture_output=True, text=True).stdout
    statuses = re.findall(r"^\s*\S+: (\w[\w ]*)$", listing, re.M)
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    stats = json.loads((root / "mutants" / "mutmut-stats.json").read_text())
    return {"wall": wall, "mutants": len(statuses), "statuses": counts,
            "tests_in_stats": len(stats.get("duration_by_test", {}))}


def teeth(root: Path, jobs: int, operators: list[str], db: Path) -> dict:
    args = [sys.executable, "-m", "teeth.cli", "run", "--target", "batcher", "--jobs", str(jobs), "--db", str(db)]
    for name in operators:
        args += ["--operator", name]
    wall, done = timed(args, root)
    if done.returncode != 0:
        raise SystemExit(f"teeth failed ({done.returncode}): {done.stderr[-2000:]}")
    with sqlite3.connect(db) as conn:
        run_id, timings = conn.execute("select id, timings from runs order by id desc limit 1").fetchone()
        rows = conn.execute("select status, duration, test_seconds, tests_run from outcomes where run_id = ?",
                            [run_id]).fetchall()
    ran = [r for r in rows if r[1]]
    counts: dict[str, int] = {}
    for status, *_ in rows:
        counts[status] = counts.get(status, 0) + 1
    child = sum(r[1] for r in ran)
    tests = sum(r[2] or 0 for r in ran)
    return {"wall": wall, "mutants": len(rows), "statuses": counts, "timings": json.loads(timings),
            "executed": len(ran), "child_seconds": child, "test_seconds": tests,
            "tests_run": sum(r[3] or 0 for r in ran)}


def line(name: str, result: dict, jobs: int) -> str:
    per = result["wall"] / max(result["mutants"], 1)
    text = (f"{name:28s} wall {result['wall']:7.1f} s  mutants {result['mutants']:4d}  "
            f"{result['mutants'] / result['wall']:6.2f} mutants/s  {1000 * per:6.1f} ms wall/mutant")
    if "child_seconds" in result and result["executed"]:
        overhead = (result["child_seconds"] - result["test_seconds"]) / result["executed"]
        text += (f"  overhead beyond tests {1000 * overhead:5.1f} ms/mutant (child time {result['child_seconds']:.1f} s"
                 f", tests' own {result['test_seconds']:.1f} s, {result['tests_run']} test runs)")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the temp project")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="teeth-bench-"))
    try:
        project(root)
        results = {"mutmut": mutmut(root, args.jobs)}
        shutil.rmtree(root / "mutants")
        results["teeth --operator generic"] = teeth(root, args.jobs, ["generic"], root / "generic.db")
        results["teeth (every operator)"] = teeth(root, args.jobs, [], root / "all.db")
        for name, result in results.items():
            print(line(name, result, args.jobs))
            print(f"{'':28s} outcomes {result['statuses']}")
        m, t = results["mutmut"], results["teeth --operator generic"]
        ratio = (t["wall"] / t["mutants"]) / (m["wall"] / m["mutants"])
        print(f"teeth wall per mutant / mutmut wall per mutant = {ratio:.2f} (goal <= 0.33); jobs={args.jobs}")
        print(json.dumps(results, indent=1, default=str), file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
