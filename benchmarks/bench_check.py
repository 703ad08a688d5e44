"""`teeth check` on a one-function change vs the full run, and an unchanged tree's wall time.

    python benchmarks/bench_check.py [--target batcher|kernels] [--jobs 2] [--verify]

Copies the target's code and tests into a temp git repository (main = the copy) and times a full
`teeth run --target T` on main. Then, for each one-function change below (behaviour kept), on its own
branch from main: `teeth check --base main --target T` (the changed function's mutants run; the baseline
runs the tests selected from the full run's recorded coverage; with --verify the check is repeated with
--no-cache, the whole baseline, and the outcomes compared). After the last change the same check runs
again (unchanged tree: every outcome reused, no worker). A check with no change at all is timed first.
Interpreter start (`python -c pass`) is printed so the check's own time can be read off.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BATCHER_PYPROJECT = """
[tool.teeth.targets.batcher]
files = ["src/batcher/*.py"]
tests = ["tests/batcher"]

[tool.pytest.ini_options]
pythonpath = ["src"]
addopts = "-p no:cacheprovider"
"""
# target -> (folders copied, pyproject.toml text or None for the repository's, [(name, file, before, after)])
TARGETS = {
    "batcher": (["src/batcher", "tests/batcher"], BATCHER_PYPROJECT, [
        ("narrow", "src/batcher/scoping.py", "    k = rows_per_item(value.shape[0], total)\n",
         "    rows = value.shape[0]\n    k = rows_per_item(rows, total)\n"),
    ]),
    "kernels": (["kernels", "tests/kernels", "src/batcher", "tests/batcher"], None, [
        ("torch RMSNorm.backward", "kernels/torch_ops/rmsnorm.py",
         "        contrib = dyf * xhat\n",
         "        contrib = xhat * dyf\n"),
        ("triton _rmsnorm_fwd", "kernels/triton_ops/rmsnorm.py",
         "    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / D + eps)\n",
         "    mean_sq = tl.sum(sq, axis=0) / D\n    rstd = 1.0 / tl.sqrt(mean_sq + eps)\n"),
    ]),
}


def sh(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args], cwd=root,
                   check=True, capture_output=True)


def timed(args: list[str], root: Path, ok=(0, 1)) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "teeth.cli", *args], cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in ok:
        raise SystemExit(f"teeth {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, done


def last_run(db: Path) -> dict:
    with sqlite3.connect(db) as conn:
        run_id, timings = conn.execute("select id, timings from runs order by id desc limit 1").fetchone()
        counts = dict(conn.execute("select case when reused_from is not null then 'reused' when status = 'skipped' "
                                   "then 'skipped' else 'ran' end, count(*) from outcomes where run_id = ? "
                                   "group by 1", [run_id]).fetchall())
        tests = dict(conn.execute("select profile, count(*) from tests where run_id = ? group by 1", [run_id]))
    return {"run": run_id, "ran": counts.get("ran", 0), "reused": counts.get("reused", 0),
            "skipped": counts.get("skipped", 0), "baseline_tests": tests,
            "stages_s": {k: round(v, 2) for k, v in json.loads(timings or "{}").items()}}


def outcomes(db: Path, run_id: int) -> dict:
    """(mutant, profile) -> (status, killing test) of one run."""
    with sqlite3.connect(db) as conn:
        return {(m, p): (s, k) for m, p, s, k in conn.execute(
            "select mutant_id, profile, status, killed_by from outcomes where run_id = ?", [run_id])}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", choices=sorted(TARGETS), default="batcher")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verify", action="store_true",
                        help="after each selected check, run it with --no-cache (whole baseline) and compare outcomes")
    options = parser.parse_args()
    name, jobs = options.target, str(options.jobs)
    folders, pyproject, changes = TARGETS[name]
    check = ["check", "--base", "main", "--target", name, "--jobs", jobs]
    with tempfile.TemporaryDirectory(prefix="teeth-bench-check-") as tmp:
        root, db = Path(tmp) / "project", Path(tmp) / "teeth.db"
        for folder in folders:
            shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
        (root / "pyproject.toml").write_text(pyproject or (REPO / "pyproject.toml").read_text())
        sh(root, "init", "-q", "-b", "main")
        sh(root, "add", "-A")
        sh(root, "commit", "-q", "-m", "base")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        interpreter = time.perf_counter() - start
        empty, _ = timed([*check, "--db", str(db)], root)
        full, _ = timed(["run", "--target", name, "--db", str(db), "--jobs", jobs], root)
        figures = {"target": name, "interpreter_start_s": round(interpreter, 2), "full_run_s": round(full, 1),
                   "full_run": last_run(db), "one_function_checks": []}
        for change, file, before, after in changes:
            sh(root, "checkout", "-q", "-B", "change", "main")
            path = root / file
            assert before in path.read_text(), (file, before)
            path.write_text(path.read_text().replace(before, after))
            sh(root, "commit", "-q", "-am", f"change {change}")
            wall, done = timed([*check, "--db", str(db)], root)
            print(done.stdout)
            figures["one_function_checks"].append({
                "function": change, "check_s": round(wall, 1), "vs_full_run": f"{100 * wall / full:.1f}%",
                **last_run(db)})
            if options.verify:
                selected = outcomes(db, figures["one_function_checks"][-1]["run"])
                wall, _ = timed([*check, "--db", str(db), "--no-cache"], root)
                whole = outcomes(db, last_run(db)["run"])
                figures["one_function_checks"][-1]["whole_baseline"] = {
                    "check_s": round(wall, 1), "outcomes": len(whole),
                    "same_statuses": {k: v[0] for k, v in selected.items()} == {k: v[0] for k, v in whole.items()},
                    # tests run fastest first by measured duration, so the first failing one may differ by noise
                    "same_killing_test": sum(selected.get(k) == v for k, v in whole.items())}
        cached, again = timed([*check, "--db", str(db)], root)
        print(again.stdout)
        figures.update({
            "unchanged_tree_check_s": round(cached, 2), "unchanged_tree": last_run(db),
            "unchanged_tree_beyond_interpreter_s": round(cached - interpreter, 2),
            "no_change_check_s": round(empty, 2),
        })
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
