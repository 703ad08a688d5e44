"""`teeth check` on the batcher: a one-function change vs the full run, and an unchanged tree's wall time.

    python benchmarks/bench_check.py [--jobs 2]

Copies src/batcher and tests/batcher into a temp git repository (main = the copy), times a
full `teeth run --target batcher` on main, then on a branch that changes one function
(`narrow`, behaviour kept) times `teeth check --base main` (its mutants run), the same check
again (unchanged tree: every outcome reused, no worker), and a check with no change at all.
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
PYPROJECT = """
[tool.teeth.targets.batcher]
files = ["src/batcher/*.py"]
tests = ["tests/batcher"]

[tool.pytest.ini_options]
pythonpath = ["src"]
addopts = "-p no:cacheprovider"
"""
BEFORE = "    k = rows_per_item(value.shape[0], total)\n"
AFTER = "    rows = value.shape[0]\n    k = rows_per_item(rows, total)\n"


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
        run_id, = conn.execute("select max(id) from runs").fetchone()
        counts = dict(conn.execute("select coalesce(reused_from is not null, 0), count(*) from outcomes "
                                   "where run_id = ? group by 1", [run_id]).fetchall())
    return {"run": run_id, "ran": counts.get(0, 0), "reused": counts.get(1, 0)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2)
    jobs = str(parser.parse_args().jobs)
    with tempfile.TemporaryDirectory(prefix="teeth-bench-check-") as tmp:
        root, db = Path(tmp) / "project", Path(tmp) / "teeth.db"
        shutil.copytree(REPO / "src" / "batcher", root / "src" / "batcher", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "tests" / "batcher", root / "tests" / "batcher",
                        ignore=shutil.ignore_patterns("__pycache__"))
        (root / "pyproject.toml").write_text(PYPROJECT)
        sh(root, "init", "-q", "-b", "main")
        sh(root, "add", "-A")
        sh(root, "commit", "-q", "-m", "base")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        interpreter = time.perf_counter() - start
        empty, _ = timed(["check", "--base", "main", "--db", str(db), "--jobs", jobs], root)
        full, _ = timed(["run", "--target", "batcher", "--db", str(db), "--jobs", jobs], root)
        full_run = last_run(db)
        sh(root, "checkout", "-q", "-b", "feature")
        scoping = root / "src" / "batcher" / "scoping.py"
        assert BEFORE in scoping.read_text()
        scoping.write_text(scoping.read_text().replace(BEFORE, AFTER))
        sh(root, "commit", "-q", "-am", "change narrow")
        changed, done = timed(["check", "--base", "main", "--db", str(db), "--jobs", jobs], root)
        changed_run = last_run(db)
        with sqlite3.connect(db) as conn:
            stages = json.loads(conn.execute("select timings from runs where id = ?", [changed_run["run"]]).fetchone()[0])
        cached, again = timed(["check", "--base", "main", "--db", str(db), "--jobs", jobs], root)
        cached_run = last_run(db)
    figures = {
        "interpreter_start_s": round(interpreter, 2),
        "full_run_s": round(full, 1), "full_run_mutants": full_run["ran"],
        "one_function_check_s": round(changed, 1), "one_function_check_mutants": changed_run["ran"],
        "one_function_check_vs_full": f"{100 * changed / full:.1f}%",
        "one_function_check_stages_s": {k: round(v, 2) for k, v in stages.items()},
        "unchanged_tree_check_s": round(cached, 2), "unchanged_tree_reused": cached_run["reused"],
        "unchanged_tree_ran": cached_run["ran"],
        "unchanged_tree_beyond_interpreter_s": round(cached - interpreter, 2),
        "no_change_check_s": round(empty, 2),
    }
    print(done.stdout)
    print(again.stdout)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
