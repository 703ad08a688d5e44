"""The infection pass measured on a target, side by side in one script: the same run with the pass and without it
(`--no-infection`), every outcome measured (`--no-cache`). Sound when the killed sets are equal and every mutant the
pass called `not_infected` survived when it ran its tests anyway; also the time each run took.

    python benchmarks/infection_soundness.py --target batcher [--target kernels] [--profile P] [--op OP] [--jobs N]
        [--keep DIR]
    python benchmarks/infection_soundness.py --field torch_geometric [--field kornia ...] [--operator domain]

A `--field NAME` package is benchmarks/field/NAME.toml, set up as benchmarks/field_report.py sets it up (its upstream
tests extracted from the mirror at the tag, the installed release mutated, the [package] table's `env` set); it must
already be installed (field_report.py installs it). Its operators default to the domain ones.
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))


@dataclass(frozen=True)
class Where:
    """Where a target's `teeth run` runs: the folder, the config (None: the folder's pyproject.toml), extra env."""
    cwd: Path = ROOT
    config: Path | None = None
    env: dict = field(default_factory=dict)


def run(target: str, db: Path, jobs: int | None, *flags: str, where: Where = Where()) -> tuple[dict, dict, float]:
    """(outcomes by (mutant, profile), the run's timings, wall seconds) of one `teeth run`."""
    paths = [str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, **where.env, "PYTHONPATH": os.pathsep.join(paths)}
    config = ["--config", str(where.config)] if where.config else []
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "teeth.cli", "run", "--target", target, *config, "--no-cache",
                           "--db", str(db), *(["--jobs", str(jobs)] if jobs else []), *flags], cwd=where.cwd, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: under fail_under, still a whole run
        sys.exit(f"teeth run --target {target} {' '.join(flags)} failed ({done.returncode}): {done.stderr[-2000:]}")
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        run_id, timings = conn.execute("select id, timings from runs order by id desc limit 1").fetchone()
        rows = {(r["mutant_id"], r["profile"]): dict(r) for r in conn.execute(
            "select mutant_id, profile, status, why, detail from outcomes where run_id = ?", [run_id])}
    return rows, json.loads(timings or "{}"), wall


def field_project(name: str, root: Path) -> Where:
    """benchmarks/field/NAME.toml's project under root/NAME (its upstream tests, its config), as field_report.py
    makes it."""
    from field_report import BAD_INPUT, FIELD, FieldError, load_package, mirror, teeth_project

    try:
        package = load_package(FIELD / f"{name}.toml")
        config = teeth_project(package, mirror(package, Path("/work/.mirror")), root / name)
    except FieldError as exc:
        print(f"infection_soundness: {exc}", file=sys.stderr)
        sys.exit(BAD_INPUT)
    return Where(cwd=root / name, config=config, env=package.env)


def measure(target: str, jobs: int | None, profiles: list[str], keep: str | None, ops: list[str] = (),
            operators: list[str] = (), field_package: bool = False) -> dict:
    flags = ([f for p in profiles for f in ("--profile", p)] + [f for op in ops for f in ("--op", op)]
             + [f"--operator={name}" for name in operators])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        where = field_project(target, folder) if field_package else Where()
        with_pass, timings_with, wall_with = run(target, folder / f"{target}-with.db", jobs, *flags, where=where)
        without, timings_without, wall_without = run(target, folder / f"{target}-without.db", jobs, *flags,
                                                     "--no-infection", where=where)
    killed = {key for key, row in with_pass.items() if row["status"] == "killed"}
    killed_without = {key for key, row in without.items() if row["status"] == "killed"}
    decided = [key for key, row in with_pass.items() if row["why"] == "not_infected"]
    not_surviving = [(key, without[key]["status"]) for key in decided if without[key]["status"] != "survived"]
    return {
        "target": target, "operators": list(operators), "mutants": len(with_pass), "killed": len(killed),
        "killed_without": len(killed_without),
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
    parser.add_argument("--target", action="append", default=[], help="a target of this repository's pyproject.toml")
    parser.add_argument("--field", action="append", default=[], help="a package of benchmarks/field/ (NAME.toml)")
    parser.add_argument("--operator", action="append", default=None,
                        help="only these operators ('domain', 'generic' or a name; default: all for --target, "
                             "domain for --field)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--profile", action="append", default=[], help="only these profiles (default: all)")
    parser.add_argument("--keep", default=None, help="keep the two databases in this folder")
    parser.add_argument("--op", action="append", default=[], help="only these ops (default: all)")
    args = parser.parse_args()
    if not args.target and not args.field:
        parser.error("name at least one --target or --field")
    failed = False
    for target, field_package in [(t, False) for t in args.target] + [(f, True) for f in args.field]:
        operators = args.operator if args.operator is not None else (["domain"] if field_package else [])
        figures = measure(target, args.jobs, args.profile, args.keep, args.op, operators, field_package)
        print(json.dumps(figures), flush=True)
        failed |= not figures["killed_sets_equal"] or bool(figures["not_infected_that_did_not_survive_when_run"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
