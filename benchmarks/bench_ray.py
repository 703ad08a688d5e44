"""Ray vs local: per-mutant overhead on a real target; coordinator time and memory on 1k/10k synthetic mutants."""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from teeth.config.targets import load_config
from teeth.run.lab import Lab
from teeth.run.request import RunRequest
from teeth.store.db import Store
from teeth.workers.local import LocalBackends

REPO = Path(__file__).resolve().parents[1]
PER_FILE = 100  # functions per synthetic module; each has 4 mutants (2 numbers, 2 operators)


def write_synthetic(root: Path, mutants: int) -> None:
    """A target of N mutants, each covered by exactly one fast parametrized test case."""
    functions = max(1, mutants // 4)
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.teeth.targets.syn]\nfiles = ["pkg/*.py"]\ntests = ["tests"]\n'
                                         '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    for index, start in enumerate(range(0, functions, PER_FILE)):
        ks = range(start, min(start + PER_FILE, functions))
        (root / "pkg" / f"mod_{index}.py").write_text(
            "\n\n".join(f"def f_{k}(x):\n    return x * {k % 7 + 2} + {k % 5 + 1}\n" for k in ks))
        (root / "tests" / f"test_mod_{index}.py").write_text(
            f"import pytest\nimport pkg.mod_{index} as m\n\n\n"
            f"@pytest.mark.parametrize('k', range({ks.start}, {ks.stop}))\n"
            f"def test_f(k):\n    assert getattr(m, f'f_{{k}}')(3) == 3 * (k % 7 + 2) + (k % 5 + 1)\n")


class CountingStore(Store):
    """Counts the write transactions of outcomes, to show that they are batched."""

    writes = 0

    def record_outcomes(self, run_id, profile, outcomes):
        CountingStore.writes += 1
        super().record_outcomes(run_id, profile, outcomes)


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this process only: never the workers or Ray's daemons
    return usage.ru_utime + usage.ru_stime


def measure(root: Path, target_name: str, backend: str, jobs: int, ops=None, operators=None) -> dict:
    """One run in this process; call once per process (ru_maxrss is the process's peak)."""
    factory, session = LocalBackends(), None
    if backend == "ray":
        import ray

        from teeth.workers.ray_backend import RayBackends
        from teeth.workers.ray_cluster import RaySession

        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
                 _temp_dir=tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        session = RaySession()
        factory = RayBackends(session)
    request = RunRequest.of_run(load_config(str(root / "pyproject.toml")), target_name, ops=ops or (),
                                operator_names=operators or (), jobs=jobs, cache=False)
    store = CountingStore(Path(tempfile.mkdtemp()) / "bench.db")
    lab = Lab(request, store, factory)
    rss_before, cpu_before, started = rss_mib(), cpu_seconds(), time.perf_counter()
    summary = lab.run()
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
    executed = sum(summary.totals[s] for s in ("killed", "survived", "timeout", "error"))
    execute = sum(v for k, v in summary.timings.items() if k.startswith("execute."))
    if session is not None:
        session.ray.shutdown()
    return {"backend": backend, "mutants": len(summary.mutants), "executed": executed, "wall_s": round(wall, 2),
            "discover_s": round(summary.timings["discover"], 2), "execute_s": round(execute, 2),
            "per_mutant_ms": round(1000 * execute * jobs / max(executed, 1), 2),
            "coordinator_cpu_s": round(cpu, 2), "coordinator_peak_rss_mib": round(rss_mib(), 1),
            "rss_growth_mib": round(rss_mib() - rss_before, 1), "db_writes": CountingStore.writes,
            "totals": {k: v for k, v in summary.totals.items() if v}}


def child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "one", *args], capture_output=True, text=True, cwd=REPO)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    over = sub.add_parser("overhead", help="per-mutant time, local vs ray, on the batcher target")
    over.add_argument("--operator", action="append", default=None)
    over.add_argument("--jobs", type=int, default=2)
    syn = sub.add_parser("synthetic", help="coordinator time and memory on synthetic targets")
    syn.add_argument("--mutants", type=int, action="append", default=None)
    syn.add_argument("--backend", action="append", default=None)
    syn.add_argument("--jobs", type=int, default=2)
    one = sub.add_parser("one")
    one.add_argument("spec")
    args = parser.parse_args()
    if args.cmd == "one":
        spec = json.loads(args.spec)
        if "synthetic" in spec:
            root = Path(tempfile.mkdtemp(prefix="teeth-syn-"))
            write_synthetic(root, spec["synthetic"])
            print(json.dumps(measure(root, "syn", spec["backend"], spec["jobs"])))
        else:
            print(json.dumps(measure(REPO, "batcher", spec["backend"], spec["jobs"], operators=spec["operators"])))
        return
    if args.cmd == "overhead":
        rows = [child(json.dumps({"backend": b, "jobs": args.jobs, "operators": args.operator}))
                for b in ("local", "ray")]
        rows.append({"ray_minus_local_per_mutant_ms": round(rows[1]["per_mutant_ms"] - rows[0]["per_mutant_ms"], 2)})
    else:
        rows = [child(json.dumps({"synthetic": n, "backend": b, "jobs": args.jobs}))
                for b in (args.backend or ["ray"]) for n in (args.mutants or [1000, 10000])]
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
