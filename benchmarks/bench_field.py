"""teeth vs mutmut 3.8.1 on third-party packages with their own unmodified tests, side by side in one run.

    python benchmarks/bench_field.py [--package einops --package opt_einsum --package batcher] [--jobs 2]

For each package: its wheel from PyPI (`pip download`, pinned below) is unpacked into a temp project
(src/PKG, the tests inside the package as shipped; `batcher` is this repository's own, as a reference),
then, on the same files and the same tests:
1. `mutmut run` (its own operators); wall per mutant;
2. `teeth run --operator generic` (mutmut's operator library: the same kind of mutants), fresh database;
   wall per mutant, the stages (interpreter start measured apart, discovery, baseline, execute) and the
   kill-cost ratio: mean test seconds of killed mutants / mean baseline seconds of their killing tests;
3. the same `teeth run` again with nothing changed (every outcome reused: the wall of a no-change run);
4. `teeth run --no-cache` again: every mutant measured once more, now killer-first (the kill history of
   run 2): its kill-cost ratio and tests run per kill.
Figures are ratios measured in one run: the machine is noisy. Needs the package registry (pip download).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Package:
    name: str  # the import name: src/NAME
    wheel: str | None  # "dist==version" downloaded from PyPI; None: this repository's src/NAME and tests/NAME
    files: tuple[str, ...]  # mutated, relative to src/NAME
    tests: tuple[str, ...]  # relative to the project root
    pytest_args: tuple[str, ...] = ()
    env: dict = field(default_factory=dict)


PACKAGES = {
    # einops' own tests of the mutated modules, minus the torch.compile ones (6 s each, compiled per process);
    # test_layers.py (torch.jit.script/trace cannot take the trampolines mutmut puts in every function) is left out
    "einops": Package("einops", "einops==0.8.2", ("einops.py", "packing.py", "parsing.py"),
                      tuple(f"src/einops/tests/{t}" for t in ("test_ops.py", "test_packing.py", "test_parsing.py")),
                      ("-k", "not compile"), {"EINOPS_TEST_BACKENDS": "numpy,torch"}),
    # the mutated modules' own test files (its whole suite is 7780 tests, 10+ minutes per mutmut mutant);
    # pytest-benchmark, if installed here, claims the `benchmark` name its tests parametrize over
    "opt_einsum": Package("opt_einsum", "opt_einsum==3.4.0", ("parser.py", "blas.py"),
                          tuple(f"src/opt_einsum/tests/{t}" for t in ("test_parser.py", "test_blas.py",
                                                                       "test_input.py", "test_edge_cases.py")),
                          ("-p", "no:benchmark")),
    "batcher": Package("batcher", None, ("*.py",), ("tests/batcher",)),
}


def project(root: Path, package: Package) -> None:
    """The package's code in src/NAME (and its tests where it ships them), with both tools configured."""
    if package.wheel is None:
        shutil.copytree(REPO / "src" / package.name, root / "src" / package.name,
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "tests" / package.name, root / "tests" / package.name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    else:
        download = root / "wheel"
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", package.wheel, "-d",
                        str(download)], check=True)
        wheel = next(download.glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith(f"{package.name}/")]
            archive.extractall(root / "src", members)
        shutil.rmtree(download)
    files = [f"src/{package.name}/{f}" for f in package.files]
    pytest_args = json.dumps(list(package.pytest_args))
    tests = json.dumps(list(package.tests))
    (root / "pyproject.toml").write_text(f"""
[tool.mutmut]
source_paths = ["src/{package.name}"]
only_mutate = {json.dumps(files)}
pytest_add_cli_args_test_selection = {tests}
pytest_add_cli_args = {pytest_args}

[tool.teeth.targets.{package.name}]
files = {json.dumps(files)}
tests = {tests}
pytest_args = {pytest_args}

[tool.pytest.ini_options]
pythonpath = ["src"]
addopts = "-p no:cacheprovider"
""")


def timed(command: list[str], cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    return time.perf_counter() - started, done


def mutmut(root: Path, jobs: int, env: dict, diffs: bool = False) -> dict:
    """`mutmut run`: wall, counts by status, the survivors' names (and with `diffs`, each survivor's diff)."""
    wall, done = timed([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)], root, env)
    if done.returncode != 0:
        raise SystemExit(f"mutmut failed ({done.returncode}): {done.stdout[-1500:]} {done.stderr[-1500:]}")
    listing = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=root,
                             capture_output=True, text=True, env=env).stdout
    statuses = dict(re.findall(r"^\s*(\S+): (\w[\w ]*)$", listing, re.M))
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    survived = sorted(name for name, status in statuses.items() if status == "survived")
    result = {"wall": wall, "mutants": sum(counts.values()), "statuses": counts, "survived": survived}
    if diffs:
        result["diffs"] = mutmut_diffs(root, survived, env)
    shutil.rmtree(root / "mutants", ignore_errors=True)
    return result


def mutmut_diffs(root: Path, names: list[str], env: dict) -> dict[str, str]:
    """Each mutant's diff, as `mutmut show NAME` prints it, from one process (mutants/ must still be there)."""
    script = ("import json, sys\nfrom mutmut.mutation.diff_apply import get_diff_for_mutant\n"
              "print(json.dumps({n: get_diff_for_mutant(n) for n in json.loads(sys.stdin.read())}))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=root, input=json.dumps(names), capture_output=True,
                          text=True, env=env)
    return json.loads(done.stdout) if done.returncode == 0 else {name: "" for name in names}


def teeth(root: Path, package: Package, jobs: int, db: Path, env: dict, *extra: str) -> dict:
    args = [sys.executable, "-m", "teeth.cli", "run", "--target", package.name, "--jobs", str(jobs), "--db", str(db),
            "--operator", "generic", *extra]
    wall, done = timed(args, root, env)
    if done.returncode not in (0, 1):  # 1: the target's fail_under gate (none is set here)
        raise SystemExit(f"teeth failed ({done.returncode}): {done.stderr[-2000:]}")
    with sqlite3.connect(db) as conn:
        run_id, timings = conn.execute("select id, timings from runs order by id desc limit 1").fetchone()
        rows = conn.execute("select status, reused_from, tests_run from outcomes where run_id = ?", [run_id]).fetchall()
        kills = conn.execute("""select o.test_seconds, t.duration, o.tests_run from outcomes o
                                join tests t on t.run_id = o.run_id and t.profile = o.profile and t.test = o.killed_by
                                where o.run_id = ? and o.status = 'killed' and o.reused_from is null""",
                             [run_id]).fetchall()
    counts: dict[str, int] = {}
    for status, *_ in rows:
        counts[status] = counts.get(status, 0) + 1
    result = {"wall": wall, "mutants": len(rows), "statuses": counts, "timings": json.loads(timings),
              "reused": sum(1 for r in rows if r[1] is not None)}
    if kills:
        result.update(kills=len(kills), kill_cost=sum(k[0] for k in kills) / max(sum(k[1] for k in kills), 1e-9),
                      tests_per_kill=statistics.mean(k[2] for k in kills))
    return result


def interpreter_start(root: Path, env: dict) -> float:
    """`python -c 'import teeth.cli'`: what every teeth command pays before it does anything."""
    walls = [timed([sys.executable, "-c", "import teeth.cli"], root, env)[0] for _ in range(3)]
    return min(walls)


def measure(package: Package, jobs: int, keep: bool, skip_mutmut: bool = False) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"teeth-field-{package.name}-"))
    env = {**__import__("os").environ, **package.env}
    try:
        project(root, package)
        result = {"mutmut": mutmut(root, jobs, env) if not skip_mutmut else None,
                  "start": interpreter_start(root, env)}
        db = root / "teeth.db"
        result["teeth"] = teeth(root, package, jobs, db, env)
        result["no_change"] = teeth(root, package, jobs, db, env)
        result["killer_first"] = teeth(root, package, jobs, db, env, "--no-cache")
        return result
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def report(name: str, r: dict) -> list[str]:
    m, t, again, first = r["mutmut"], r["teeth"], r["no_change"], r["killer_first"]
    per_t = t["wall"] / max(t["mutants"], 1)
    per_m = m["wall"] / max(m["mutants"], 1) if m else float("nan")
    m = m or {"mutants": 0, "wall": float("nan"), "statuses": "not run (--no-mutmut)"}
    stages = t["timings"]
    baseline = sum(v for k, v in stages.items() if k.startswith("baseline."))
    worker = sum(v for k, v in stages.items() if k.startswith("worker."))
    execute = sum(v for k, v in stages.items() if k.startswith("execute."))
    infection = sum(v for k, v in stages.items() if k.startswith("infection."))
    propagation = sum(v for k, v in stages.items() if k.startswith("propagation."))
    fixed = t["wall"] - execute - propagation - r["start"]
    without = (t["wall"] - propagation) / max(t["mutants"], 1)  # per mutant, without the survivors' comparison
    rest = t["wall"] - r["start"] - stages.get("discover", 0) - worker - baseline - infection - execute - propagation
    return [
        f"{name}: mutmut {m['mutants']} mutants in {m['wall']:.1f} s ({1000 * per_m:.0f} ms each) {m['statuses']}",
        f"{name}: teeth  {t['mutants']} mutants in {t['wall']:.1f} s ({1000 * per_t:.0f} ms each) {t['statuses']}",
        f"{name}: teeth/mutmut wall per mutant = {per_t / per_m:.2f} (goal <= 0.33); without the survivors' output "
        f"comparison (the whys, which mutmut does not give) {without / per_m:.2f}",
        f"{name}: stages: interpreter start {r['start']:.2f} s, discover {stages.get('discover', 0):.2f} s, "
        f"worker start (copy, collect) {worker:.2f} s, baseline {baseline:.2f} s, infection pass {infection:.2f} s, "
        f"execute {execute:.2f} s, survivors' output comparison {propagation:.2f} s, the rest {rest:.2f} s; "
        f"fixed cost beyond interpreter start "
        f"{fixed:.2f} s (goal <= 2 on the batcher)",
        f"{name}: kill-cost ratio {t.get('kill_cost', float('nan')):.2f} ({t.get('tests_per_kill', 0):.2f} tests per "
        f"kill); killer-first rerun {first.get('kill_cost', float('nan')):.2f} "
        f"({first.get('tests_per_kill', 0):.2f} tests per kill) (goal <= 2)",
        f"{name}: no-change teeth run {again['wall']:.2f} s, {again['reused']} of {again['mutants']} reused "
        f"(goal < 3 s)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", action="append", choices=sorted(PACKAGES), help="default: all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the temp projects")
    parser.add_argument("--no-mutmut", action="store_true", help="teeth's figures only (stages, kill cost, no-change)")
    args = parser.parse_args()
    results = {}
    for name in args.package or list(PACKAGES):
        try:
            results[name] = measure(PACKAGES[name], args.jobs, args.keep, args.no_mutmut)
        except SystemExit as exc:  # one package's tool failure is its line; the others are still measured
            print(f"{name}: not measured: {str(exc)[:300]}", flush=True)
            continue
        print("\n".join(report(name, results[name])), flush=True)
    print(json.dumps(results, indent=1, default=str), file=sys.stderr)


if __name__ == "__main__":
    main()
