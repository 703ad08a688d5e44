"""The Ray backend: same outcomes as the local one, survives a killed worker, cancels cleanly, one-line errors."""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.cli import results_of
from teeth.config.targets import load_config
from teeth.run.lab import Lab, Progress
from teeth.run.request import RunRequest
from teeth.store.db import Store
from teeth.workers.local import LocalBackends

REPO = Path(__file__).resolve().parents[2]
# A few dozen batcher mutants, some killed and some surviving under the local backend.
BATCHER_OPS = ["Saved.__init__", "_version", "unknown_path", "Invoke.replace"]


def require_ray():
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("ray is not installed; CI must install the ray extra: pip install -e '.[ray]'")
        pytest.skip("ray is not installed (pip install -e '.[ray]')")
    import ray

    return ray


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray cluster with 2 CPUs for the whole module; its temp dir under pytest's tmp path."""
    ray = require_ray()
    previous = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
             _temp_dir=str(tmp_path_factory.mktemp("ray")))
    yield ray
    ray.shutdown()
    if previous is None:
        os.environ.pop("RAY_AUTH_MODE", None)
    else:
        os.environ["RAY_AUTH_MODE"] = previous


class Recorder(Progress):
    """Counts every outcome the lab announces, per mutant; may act once on the first executed one."""

    def __init__(self, on_first_executed=None):
        self.seen: Counter = Counter()
        self.on_first_executed = on_first_executed

    def advance(self, mutant, status, measured=True):
        self.seen[mutant.id] += 1
        if self.on_first_executed and status in ("killed", "survived"):
            action, self.on_first_executed = self.on_first_executed, None
            action()


def run_lab(root: Path, target_name: str, db: Path, factory, ops=None, progress=None, jobs=2):
    request = RunRequest.of_run(load_config(str(root / "pyproject.toml")), target_name, ops=ops or (), jobs=jobs,
                                cache=False)
    store = Store(db)
    summary = Lab(request, store, factory, progress).run()
    statuses = {r.mutant.id: r.status for r in store.results(summary.run_id)}
    return summary, statuses


def ray_factory(created: list):
    from teeth.workers.ray_backend import RayBackends
    from teeth.workers.ray_cluster import RaySession

    class Recording(RayBackends):
        def open(self, target, profile, jobs):
            backend = super().open(target, profile, jobs)
            created.append(backend)
            return backend

    return Recording(RaySession())  # the module's cluster is already initialised: the session uses it and leaves it


def test_ray_backend_records_the_same_outcome_as_the_local_backend_for_every_mutant(cluster, tmp_path):
    local, local_statuses = run_lab(REPO, "batcher", tmp_path / "local.db", LocalBackends(), ops=BATCHER_OPS)
    created, progress = [], Recorder()
    remote, ray_statuses = run_lab(REPO, "batcher", tmp_path / "ray.db", ray_factory(created), ops=BATCHER_OPS,
                                   progress=progress)
    assert remote.status == "completed"
    assert len(created[0].actors) == 0  # closed: its actors are killed once the profile is done
    assert {"killed", "survived"} <= set(local_statuses.values())
    assert ray_statuses == local_statuses
    assert set(progress.seen) == set(local_statuses) and set(progress.seen.values()) == {1}
    # the infection pass runs on an actor too: the same survivors decided without a child, the same whys
    local_whys, ray_whys = whys(tmp_path / "local.db"), whys(tmp_path / "ray.db")
    assert ("not_infected", 0) in local_whys.values()
    assert ray_whys == local_whys


def whys(db: Path) -> dict[str, tuple[str, int]]:
    """Each survivor of the latest run: (why, tests run)."""
    with sqlite3.connect(db) as conn:
        return {mutant: (why, tests_run) for mutant, why, tests_run in conn.execute(
            "select mutant_id, why, tests_run from outcomes where status = 'survived' "
            "and run_id = (select max(id) from runs)")}


def test_a_worker_killed_mid_mutant_has_that_mutant_retried_and_recorded_exactly_once(cluster, project, tmp_path):
    root = project("slow_suite")  # each mutant's test sleeps 0.2 s: a kill lands mid-mutant
    _, local_statuses = run_lab(root, "steps", tmp_path / "local.db", LocalBackends())
    created, killed = [], []

    def kill_a_worker():
        actor = created[0].actors[0]
        os.kill(actor.pid, signal.SIGKILL)
        killed.append(actor.pid)

    progress = Recorder(on_first_executed=kill_a_worker)
    summary, statuses = run_lab(root, "steps", tmp_path / "ray.db", ray_factory(created), progress=progress)
    assert killed and summary.status == "completed"
    assert created[0].retried >= 1  # the killed worker had a mutant in flight, and it ran again elsewhere
    assert set(progress.seen.values()) == {1} and set(progress.seen) == set(local_statuses)
    assert statuses == local_statuses


def wait_for_free_cpus(ray, count: int, timeout: float = 15) -> float:
    deadline = time.monotonic() + timeout
    while ray.available_resources().get("CPU", 0) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return ray.available_resources().get("CPU", 0)


def test_an_interrupt_in_the_coordinator_kills_every_actor_while_the_cluster_lives_on(cluster, project, tmp_path):
    root = project("slow_suite")
    created = []

    def interrupt():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_lab(root, "steps", tmp_path / "ray.db", ray_factory(created), progress=Recorder(interrupt))
    assert created and created[0].actors == []
    assert wait_for_free_cpus(cluster, 2) == 2  # this process, their owner, is alive: only a kill frees them
    with sqlite3.connect(tmp_path / "ray.db") as conn:
        assert conn.execute("select status from runs").fetchall() == [("interrupted",)]


def test_cancelling_a_ray_run_records_it_interrupted_and_frees_every_worker(cluster, project, tmp_path):
    root = project("slow_suite")
    db = tmp_path / "state" / "teeth.db"
    address = cluster.get_runtime_context().gcs_address
    process = subprocess.Popen([sys.executable, "-m", "teeth.cli", "run", "--target", "steps", "--backend", "ray",
                                "--address", address, "--db", str(db)], cwd=root, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "RAY_AUTH_MODE": "disabled"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with sqlite3.connect(db) as conn:
                if conn.execute("select count(*) from outcomes").fetchone()[0] >= 2:
                    break
        except sqlite3.OperationalError:
            pass
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select status from runs").fetchall() == [("interrupted",)]
    assert wait_for_free_cpus(cluster, 2) == 2  # every actor of the cancelled run is gone


def test_an_unreachable_address_is_a_one_line_error_within_seconds(project, teeth):
    require_ray()
    root = project("weak_suite")
    started = time.monotonic()
    done = teeth("run", "--target", "rows", "--backend", "ray", "--address", "127.0.0.1:1", cwd=root, timeout=60)
    assert done.returncode == 2 and time.monotonic() - started < 30
    assert done.stderr.strip().splitlines() == ["teeth: error: cannot reach a Ray cluster at 127.0.0.1:1: "
                                                "Connection refused"]
    assert not teeth.db.exists()  # nothing written


def test_without_ray_the_local_backend_runs_and_the_ray_backend_says_how_to_install_it(project, teeth, tmp_path,
                                                                                       monkeypatch):
    shadow = tmp_path / "no_ray" / "ray"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('raise ImportError("No module named \'ray\'")\n')
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    root = project("weak_suite")
    done = teeth("run", "--target", "rows", "--backend", "ray", cwd=root)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["teeth: error: the ray backend needs Ray: pip install "
                                                "'teeth-mutation[ray]' (from a checkout: pip install -e '.[ray]')"]
    done = teeth("run", "--target", "rows", cwd=root)
    assert done.returncode == 0, done.stderr
    assert results_of(teeth, root)
