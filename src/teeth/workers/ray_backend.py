"""The Ray backend: Ray actors, each owning one warm worker, run mutants for a single-writer coordinator."""

from __future__ import annotations

import os
import socket
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from teeth.config.targets import Target
from teeth.core import MutantScenario, Outcome, WorkerFailure
from teeth.errors import TeethError, WorkerFailed
from teeth.config.profiles import Profile
from teeth.workers.base import Backend
from teeth.workers.local import LocalBackend
from teeth.workers.ray_cluster import RaySession

WINDOW = 2  # scenarios queued on each actor: one running, the next already there when it finishes
MAX_ATTEMPTS = 3  # a mutant whose worker dies this often is recorded as an error, not retried forever
MAX_RESTARTS = 4  # Ray restarts a dead actor (collection and baseline again) this often
CLOSE_GRACE = 2.0  # seconds the actors get to stop their workers before they are killed


class Actor:
    """A Ray actor: one warm worker (the local backend with one slot), collected and baselined at start."""

    def __init__(self, target: Target, profile: Profile, baseline_timeout: float):
        self.local: LocalBackend | None = None
        self.tests_run: dict[str, dict] | None = None
        self.error: str | None = None
        try:
            self.local = LocalBackend(target, profile, jobs=1)
            # Also warms the worker (lazy imports, first calls) so that each forked mutant starts warm.
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
            self.local.close()  # the worker and its log file; the coordinator then kills this actor
            self.local = None

    def infection(self, scenario):
        """The infection pass on this actor's warm worker (one forked child, as on the local backend)."""
        try:
            return self.local.infection(scenario)
        except WorkerFailed:
            os._exit(1)  # the worker is gone: die, so that Ray restarts this actor

    def run(self, scenario: MutantScenario) -> Outcome:
        try:
            return next(iter(self.local.execute([scenario])))
        except WorkerFailed:
            os._exit(1)  # the worker is gone: die, so that Ray restarts this actor and the scenario goes elsewhere


@dataclass
class ActorState:
    """The coordinator's view of one actor."""

    index: int
    handle: object  # the Ray actor handle
    pid: int | None = None
    node: str | None = None
    load: int = 0
    recovering: object = None  # the ready() call awaited after the actor died
    retired: str | None = None
    deaths: int = 0


@dataclass
class Dispatch:
    """Bookkeeping of one execute(): what is in flight where, what must be retried, what is done."""

    pending: Iterator[MutantScenario]
    retry: deque = field(default_factory=deque)
    in_flight: dict = field(default_factory=dict)  # ObjectRef -> (MutantScenario, ActorState)
    attempts: dict = field(default_factory=dict)
    done: set = field(default_factory=set)

    def next_scenario(self) -> MutantScenario | None:
        if self.retry:
            return self.retry.popleft()
        return next(self.pending, None)


class RayBackend(Backend):
    """Executes scenarios on warm Ray actors, one per CPU slot (one per GPU for CUDA profiles)."""

    def __init__(self, target: Target, profile: Profile, jobs: int, address: str | None = None,
                 session: RaySession | None = None):
        self.own_session = session is None
        self.session = session or RaySession(address, jobs)
        self.ray = self.session.ray
        self.profile = profile
        self.actors: list[ActorState] = []
        self.retried = 0  # scenarios resubmitted after their actor died
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
        actor_class = self.ray.remote(Actor).options(max_restarts=MAX_RESTARTS, max_task_retries=0, **needs)
        self.actors = [ActorState(i, actor_class.remote(target, profile, target.baseline_timeout))
                       for i in range(count)]
        infos = self._ready_all()
        errors = [info["error"] for info in infos if info["error"]]
        if len(errors) == len(infos):
            raise WorkerFailed(f"every Ray worker failed for profile {profile.name}: {errors[0]}")
        chosen = next(w for w, info in zip(self.actors, infos) if not info["error"])
        failing = next(info["failing"] for info in infos if not info["error"])
        for actor, info in zip(self.actors, infos):
            if info["error"] or info["failing"] != failing:  # a node that disagrees with the chosen baseline
                self._retire(actor, info["error"] or f"its baseline fails {', '.join(info['failing'][:3])}")
        self.chosen = chosen
        self.tests = self.ray.get(chosen.handle.tests.remote())

    def _ready_all(self) -> list[dict]:
        infos = []
        for actor in self.actors:
            try:
                info = self.ray.get(actor.handle.ready.remote())
            except self.ray.exceptions.RayActorError as exc:
                info = {"pid": None, "node": None, "error": f"the actor died while starting: {_first_line(exc)}",
                        "failing": []}
            actor.pid, actor.node = info["pid"], info["node"]
            infos.append(info)
        return infos

    def _retire(self, actor: ActorState, reason: str) -> None:
        actor.retired = reason
        self.ray.kill(actor.handle, no_restart=True)

    def live(self) -> list[ActorState]:
        return [w for w in self.actors if not w.retired and w.recovering is None]

    def baseline(self, timeout: float, tests: list[str] | None = None) -> dict[str, dict]:
        # The actors ran their whole baseline when they started (it warms them); a selection is a subset of it.
        return self.ray.get(self.chosen.handle.baseline.remote())

    def infection(self, scenario):
        """The infection pass on one live actor; None (every mutant then runs its tests) when none is left or the
        actor dies running it (Ray restarts it as it would mid-mutant)."""
        for actor in self.live():
            try:
                return self.ray.get(actor.handle.infection.remote(scenario))
            except self.ray.exceptions.RayActorError:
                actor.deaths += 1
                actor.recovering = actor.handle.ready.remote()  # execute() waits for its restart
                return None
        return None

    def execute(self, scenarios: Iterable[MutantScenario]) -> Iterator[Outcome]:
        state = Dispatch(iter(scenarios))
        while True:
            self._fill(state)
            recovering = {w.recovering: w for w in self.actors if w.recovering is not None}
            if not state.in_flight and not recovering:
                if state.next_scenario() is None:
                    return
                raise WorkerFailed(f"every Ray worker for profile {self.profile.name} died; "
                                   f"last reason: {self._last_reason()}")
            ready, _ = self.ray.wait([*state.in_flight, *recovering], num_returns=1)
            ref = ready[0]
            if ref in recovering:
                self._recovered(recovering[ref], ref)
                continue
            scenario, actor = state.in_flight.pop(ref)
            actor.load -= 1
            try:
                result = self.ray.get(ref)
            except self.ray.exceptions.RayActorError as exc:
                failed = self._died(actor, scenario, state, exc)
                if failed is not None:
                    state.done.add(failed.mutant_id)
                    yield failed
                continue
            if result.mutant_id in state.done:  # a retried scenario that had finished after all: never recorded twice
                continue
            state.done.add(result.mutant_id)
            yield result

    def _fill(self, state: Dispatch) -> None:
        for depth in range(WINDOW):
            for actor in self.live():
                if actor.load > depth:
                    continue
                scenario = state.next_scenario()
                if scenario is None:
                    return
                state.in_flight[actor.handle.run.remote(scenario)] = (scenario, actor)
                actor.load += 1

    def _died(self, actor: ActorState, scenario: MutantScenario, state: Dispatch, exc: Exception) -> Outcome | None:
        """The actor running SCENARIO died: wait for its restart, and run SCENARIO elsewhere (or record an error)."""
        if actor.recovering is None and not actor.retired:
            actor.deaths += 1
            actor.recovering = actor.handle.ready.remote()
        state.attempts[scenario.id] = state.attempts.get(scenario.id, 0) + 1
        if state.attempts[scenario.id] >= MAX_ATTEMPTS:
            reason = f"its Ray worker died {MAX_ATTEMPTS} times running it: {_first_line(exc)}"
            return Outcome.failed(scenario.id, WorkerFailure.LOST, reason[:300])
        self.retried += 1
        state.retry.append(scenario)
        return None

    def _recovered(self, actor: ActorState, ref) -> None:
        actor.recovering = None
        try:
            info = self.ray.get(ref)
        except self.ray.exceptions.RayActorError as exc:
            actor.retired = f"died {actor.deaths} times: {_first_line(exc)}"
            return
        actor.pid, actor.node = info["pid"], info["node"]
        if info["error"]:
            self._retire(actor, info["error"])

    def _last_reason(self) -> str:
        return next((w.retired for w in reversed(self.actors) if w.retired), "unknown")

    def close(self) -> None:
        refs = [w.handle.shutdown.remote() for w in self.actors if not w.retired]
        try:
            self.ray.wait(refs, num_returns=len(refs), timeout=CLOSE_GRACE)  # an actor mid-mutant may miss it
        except Exception:  # noqa: BLE001 - killed below in any case
            pass
        for actor in self.actors:
            try:
                self.ray.kill(actor.handle, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []
        if self.own_session:
            self.session.close()


class RayBackends:
    """The Ray backends of one run: warm actors on the cluster of one session."""

    def __init__(self, session: RaySession):
        self.session = session

    def open(self, target: Target, profile: Profile, jobs: int) -> RayBackend:
        return RayBackend(target, profile, jobs, session=self.session)

    def unavailable_reason(self, profile: Profile) -> str | None:
        """Judged on the cluster, not on this machine: the coordinator may have no GPU while the workers do."""
        if profile.requires == "cuda" and self.session.slots(profile) < 1:
            return "needs CUDA: the Ray cluster has no GPU"
        return None

    def close(self) -> None:
        self.session.close()  # stops a local cluster the session started; leaves a cluster it only joined


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
