"""The Ray backend: warm actors, each owning one warm zygote, run mutants for a single-writer coordinator."""

from __future__ import annotations

import os
import socket
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from teeth.config import Target
from teeth.errors import TeethError, WorkerFailed
from teeth.profiles import Profile
from teeth.workers.base import Backend, Result, Task
from teeth.workers.local import LocalBackend
from teeth.workers.ray_cluster import RaySession

WINDOW = 2  # tasks queued on each actor: one running, the next already there when it finishes
MAX_ATTEMPTS = 3  # a mutant whose worker dies this often is recorded as an error, not retried forever
MAX_RESTARTS = 4  # Ray restarts a dead actor (collection and baseline again) this often
CLOSE_GRACE = 2.0  # seconds the actors get to stop their zygotes before they are killed


class WarmWorker:
    """A Ray actor: one warm zygote (the local backend with one slot), collected and baselined at start."""

    def __init__(self, target: Target, profile: Profile, baseline_timeout: float):
        self.local: LocalBackend | None = None
        self.tests_run: dict[str, dict] | None = None
        self.error: str | None = None
        try:
            self.local = LocalBackend(target, profile, jobs=1)
            # Also warms the zygote (lazy imports, first calls) so that each forked mutant starts warm.
            self.tests_run = self.local.baseline(baseline_timeout)
        except TeethError as exc:
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported to the coordinator as one line
            self.error = f"{type(exc).__name__}: {exc}"

    def ready(self) -> dict:
        failing = sorted(t for t, r in (self.tests_run or {}).items() if r["failure"])
        return {"pid": os.getpid(), "node": socket.gethostname(), "error": self.error, "failing": failing}

    def tests(self) -> list[str]:
        return self.local.tests

    def baseline(self) -> dict[str, dict]:
        return self.tests_run

    def shutdown(self) -> None:
        if self.local is not None:
            self.local.close()  # the zygote and its log file; the coordinator then kills this actor
            self.local = None

    def run(self, task: Task) -> Result:
        try:
            return next(iter(self.local.execute([task])))
        except WorkerFailed:
            os._exit(1)  # the zygote is gone: die, so that Ray restarts this actor and the task goes elsewhere


@dataclass
class Worker:
    """The coordinator's view of one actor."""

    index: int
    actor: object
    pid: int | None = None
    node: str | None = None
    load: int = 0
    recovering: object = None  # the ready() call awaited after the actor died
    retired: str | None = None
    deaths: int = 0


@dataclass
class Dispatch:
    """Bookkeeping of one execute(): what is in flight where, what must be retried, what is done."""

    pending: Iterator[Task]
    retry: deque = field(default_factory=deque)
    in_flight: dict = field(default_factory=dict)  # ObjectRef -> (Task, Worker)
    attempts: dict = field(default_factory=dict)
    done: set = field(default_factory=set)

    def next_task(self) -> Task | None:
        if self.retry:
            return self.retry.popleft()
        return next(self.pending, None)


class RayBackend(Backend):
    """Executes tasks on warm Ray actors, one per CPU slot (one per GPU for CUDA profiles)."""

    def __init__(self, target: Target, profile: Profile, jobs: int, address: str | None = None,
                 session: RaySession | None = None):
        self.own_session = session is None
        self.session = session or RaySession(address, jobs)
        self.ray = self.session.ray
        self.profile = profile
        self.workers: list[Worker] = []
        self.retried = 0  # tasks resubmitted after their worker died
        try:
            self._start(target, profile, jobs)
        except BaseException:
            self.close()
            raise

    def _start(self, target: Target, profile: Profile, jobs: int) -> None:
        resource = self.session.resource(profile)
        slots = self.session.slots(profile)
        count = min(jobs, slots) if jobs > 0 else slots
        if count < 1:
            raise WorkerFailed(f"the Ray cluster has no {resource} for profile {profile.name}")
        needs = {"num_cpus": 1, "num_gpus": 1} if resource == "GPU" else {"num_cpus": 1}
        actor_class = self.ray.remote(WarmWorker).options(max_restarts=MAX_RESTARTS, max_task_retries=0, **needs)
        self.workers = [Worker(i, actor_class.remote(target, profile, target.baseline_timeout)) for i in range(count)]
        infos = self._ready_all()
        errors = [info["error"] for info in infos if info["error"]]
        if len(errors) == len(infos):
            raise WorkerFailed(f"every Ray worker failed for profile {profile.name}: {errors[0]}")
        chosen = next(w for w, info in zip(self.workers, infos) if not info["error"])
        failing = next(info["failing"] for info in infos if not info["error"])
        for worker, info in zip(self.workers, infos):
            if info["error"] or info["failing"] != failing:  # a node that disagrees with the chosen baseline
                self._retire(worker, info["error"] or f"its baseline fails {', '.join(info['failing'][:3])}")
        self.chosen = chosen
        self.tests = self.ray.get(chosen.actor.tests.remote())

    def _ready_all(self) -> list[dict]:
        infos = []
        for worker in self.workers:
            try:
                info = self.ray.get(worker.actor.ready.remote())
            except self.ray.exceptions.RayActorError as exc:
                info = {"pid": None, "node": None, "error": f"the actor died while starting: {_first_line(exc)}",
                        "failing": []}
            worker.pid, worker.node = info["pid"], info["node"]
            infos.append(info)
        return infos

    def _retire(self, worker: Worker, reason: str) -> None:
        worker.retired = reason
        self.ray.kill(worker.actor, no_restart=True)

    def live(self) -> list[Worker]:
        return [w for w in self.workers if not w.retired and w.recovering is None]

    def baseline(self, timeout: float, tests: list[str] | None = None) -> dict[str, dict]:
        # The actors ran their whole baseline when they started (it warms them); a selection is a subset of it.
        return self.ray.get(self.chosen.actor.baseline.remote())

    def execute(self, tasks: Iterable[Task]) -> Iterator[Result]:
        state = Dispatch(iter(tasks))
        while True:
            self._fill(state)
            recovering = {w.recovering: w for w in self.workers if w.recovering is not None}
            if not state.in_flight and not recovering:
                if state.next_task() is None:
                    return
                raise WorkerFailed(f"every Ray worker for profile {self.profile.name} died; "
                                   f"last reason: {self._last_reason()}")
            ready, _ = self.ray.wait([*state.in_flight, *recovering], num_returns=1)
            ref = ready[0]
            if ref in recovering:
                self._recovered(recovering[ref], ref)
                continue
            task, worker = state.in_flight.pop(ref)
            worker.load -= 1
            try:
                result = self.ray.get(ref)
            except self.ray.exceptions.RayActorError as exc:
                failed = self._died(worker, task, state, exc)
                if failed is not None:
                    state.done.add(failed.id)
                    yield failed
                continue
            if result.id in state.done:  # a retried task that had finished after all: never recorded twice
                continue
            state.done.add(result.id)
            yield result

    def _fill(self, state: Dispatch) -> None:
        for depth in range(WINDOW):
            for worker in self.live():
                if worker.load > depth:
                    continue
                task = state.next_task()
                if task is None:
                    return
                state.in_flight[worker.actor.run.remote(task)] = (task, worker)
                worker.load += 1

    def _died(self, worker: Worker, task: Task, state: Dispatch, exc: Exception) -> Result | None:
        """The actor running TASK died: wait for its restart, and run TASK elsewhere (or record an error)."""
        if worker.recovering is None and not worker.retired:
            worker.deaths += 1
            worker.recovering = worker.actor.ready.remote()
        state.attempts[task.id] = state.attempts.get(task.id, 0) + 1
        if state.attempts[task.id] >= MAX_ATTEMPTS:
            return Result(task.id, "error", detail=f"its Ray worker died {MAX_ATTEMPTS} times running it: "
                                                   f"{_first_line(exc)}"[:300])
        self.retried += 1
        state.retry.append(task)
        return None

    def _recovered(self, worker: Worker, ref) -> None:
        worker.recovering = None
        try:
            info = self.ray.get(ref)
        except self.ray.exceptions.RayActorError as exc:
            worker.retired = f"died {worker.deaths} times: {_first_line(exc)}"
            return
        worker.pid, worker.node = info["pid"], info["node"]
        if info["error"]:
            self._retire(worker, info["error"])

    def _last_reason(self) -> str:
        return next((w.retired for w in reversed(self.workers) if w.retired), "unknown")

    def close(self) -> None:
        refs = [w.actor.shutdown.remote() for w in self.workers if not w.retired]
        try:
            self.ray.wait(refs, num_returns=len(refs), timeout=CLOSE_GRACE)  # an actor mid-mutant may miss it
        except Exception:  # noqa: BLE001 - killed below in any case
            pass
        for worker in self.workers:
            try:
                self.ray.kill(worker.actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.workers = []
        if self.own_session:
            self.session.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
