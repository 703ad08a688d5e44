"""The main loop: discover, baseline, schedule, execute and record one run of one target."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import platform
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from teeth import DISTRIBUTION
from teeth.run import infection
from teeth.run.audit import Audit
from teeth.config.targets import Target
from teeth.core import MutantScenario, Outcome, Status, kill_rate
from teeth.run.coverage_map import CoverageMap
from teeth.discovery.discover import Discovery, Mutant, discover
from teeth.errors import BaselineFailed, ConfigError, StoreFull
from teeth.run.evidence import evidence, judge_baseline
from teeth.run.incremental import OutcomeCache
from teeth.run.ordering import KillHistory
from teeth.config.profiles import Profile
from teeth.store.records import RunKind, RunStatus
from teeth.run.request import RunRequest
from teeth.run.selection import BaselineSelection
from teeth.store.db import Store
from teeth.store.opening import disk_full
from teeth.workers.base import Backends

VERSIONED = ("teeth", "torch", "triton", "pytest", "mutmut", "libcst", "coverage")
FLUSH_EVERY, FLUSH_SECONDS = 50, 0.5  # outcomes are written in batches, at least twice a second


class Progress:
    """What the lab tells the person watching; the CLI draws it, tests may record it."""

    def stage(self, text: str) -> None: ...
    def start(self, profile: str, total: int) -> None: ...
    def advance(self, mutant: Mutant, status: Status, measured: bool = True) -> None:
        """measured=False: settled without a worker (reused, skipped, no_coverage): says nothing of the pace."""

    def finish(self) -> None: ...


@dataclass
class RunSummary:
    run_id: int
    discovery: Discovery
    mutants: list[Mutant]
    status: str
    timings: dict = field(default_factory=dict)
    totals: dict = field(default_factory=dict)  # how many outcomes have each status, and the mutants not made
    notes: list[str] = field(default_factory=list)  # what the run found about the suite: flaky tests, an audit

    @property
    def kill_rate(self) -> float | None:
        """The run's kill rate, from its recorded outcomes (a resumed run's earlier ones included)."""
        return kill_rate(self.totals)


def run_metadata(target: Target, options: dict) -> dict:
    versions = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(DISTRIBUTION if name == "teeth" else name)
        except importlib.metadata.PackageNotFoundError:
            pass
    commit, dirty = None, None
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=target.root, capture_output=True, text=True,
                                check=True).stdout.strip() or None
        status = subprocess.run(["git", "status", "--porcelain", "--", *map(str, target.files)], cwd=target.root,
                                capture_output=True, text=True, check=True).stdout
        dirty = int(bool(status.strip()))
    except (OSError, subprocess.CalledProcessError):
        pass
    return {"commit": commit, "dirty": dirty, "versions": versions, "options": {**options, "config": target.digest()}}


def command_clock() -> dict:
    """A command's clock, from the process's own start: `started` on time.perf_counter's scale, `startup` from then
    to now (the interpreter's start and teeth's imports), `entered`: now, when the command begins its own work."""
    import psutil

    entered = time.perf_counter()
    age = max(0.0, time.time() - psutil.Process().create_time())
    return {"started": entered - age, "startup": age, "entered": entered}


def stale_equivalents(request: RunRequest, mutants: list[Mutant]) -> str | None:
    """The warning for the target's `equivalent` ids that match no mutant of its files as they are now (the code
    changed?); None when every one matches, or when --operator left operators out (not every mutant was made)."""
    if request.operator_names:
        return None
    stale = sorted(set(request.target.equivalent) - {m.id for m in mutants})
    if not stale:
        return None
    return (f"teeth: warning: target {request.target.name}: equivalent id(s) that match no mutant of its files as "
            f"they are now (the code changed?): {', '.join(stale)}")


def select_ops(mutants: list[Mutant], ops: list[str] | None) -> list[Mutant]:
    if not ops:
        return mutants
    known = sorted({m.op for m in mutants})
    for op in ops:
        if op not in known:
            raise ConfigError(f"unknown op {op!r}; ops with mutants in this target: {', '.join(known)}")
    return [m for m in mutants if m.op in ops]


class Lab:
    def __init__(self, request: RunRequest, store: Store, backends: Backends, progress: Progress | None = None):
        """Runs what `request` asks: its audit runs survived and no_coverage mutants again against the whole suite
        (`teeth run --audit`); a full matrix runs each mutant against every test that executes it and records every
        verdict; the infection pass decides the mutants no test infects without running them (teeth.run.infection)."""
        self.request, self.target, self.store, self.backends = request, request.target, store, backends
        self.full_matrix = request.full_matrix
        self.infection = request.infection and not request.full_matrix  # a full matrix wants every test's verdict
        self.progress = progress or Progress()
        self.cache = OutcomeCache(self.target, store, reuse=request.reuses)  # keys are always recorded
        # What each baseline test executed is always recorded; only `teeth check` selects from it (not --no-cache).
        self.selection = BaselineSelection(self.target, store, self.cache,
                                           enabled=request.kind is RunKind.CHECK and request.cache)
        self.run_id: int | None = None  # set once the run is in the database
        self.notes: list[str] = []
        self.audit = None if request.audit is None else Audit(None if request.audit == "all" else request.audit)

    def run(self, scope: Callable[[list[Mutant]], list[Mutant]] | None = None, files: list | None = None,
            discovery: Discovery | None = None, clock: dict | None = None) -> RunSummary:
        """The request's mutants: of its ops, in its shard, the chosen ones, and then those `scope` keeps (teeth
        check: the changed functions'). `files`: discover mutants in these of the target's files only (the workers
        still see them all); `discovery`: mutants already discovered (the CLI checks --op before it opens the
        database); `clock`: the command's stages so far, "started" its start (time.perf_counter): the run's timings
        then start there too."""
        request = self.request
        clock = {"started": time.perf_counter(), **(clock or {})}
        since = time.perf_counter()
        operators, profiles = list(request.operators), list(request.profiles)
        self.operators = {o.name: o for o in operators}
        searched = self.target if files is None else dataclasses.replace(self.target, files=files)
        if discovery is None:
            self.progress.stage(f"discovering mutants in {len(searched.files)} file(s)")
            discovery = discover(searched, operators)
        mutants = [m for m in select_ops(discovery.mutants, list(request.ops)) if request.holds(m.id)]
        if scope is not None:
            mutants = scope(mutants)
        try:
            self.store.record_mutants(mutants)  # the mutant list is written before any test runs
            clock["discover"] = clock.get("discover", 0.0) + time.perf_counter() - since
            run_id, done = self._open_run(operators, profiles)
        except sqlite3.OperationalError as exc:
            if disk_full(exc):
                raise self._full(exc) from None
            raise
        summary = RunSummary(run_id, discovery, mutants, RunStatus.RUNNING, notes=self.notes)
        try:
            for profile in profiles:
                self._profile(run_id, profile, [m for m in mutants if (m.id, profile.name) not in done], clock)
        except KeyboardInterrupt:
            summary.status = RunStatus.INTERRUPTED
            raise
        except BaselineFailed:
            summary.status = RunStatus.BASELINE_FAILED
            raise
        except Exception as exc:
            if not disk_full(exc):
                summary.status = RunStatus.FAILED
                raise
            summary.status = RunStatus.INTERRUPTED  # what was recorded stays; --resume continues once there is space
            raise self._full(exc) from None
        else:
            summary.status = RunStatus.COMPLETED
        finally:
            self.progress.finish()
            if self.audit is not None:
                self.notes.extend(self.audit.notes())
            clock["total"] = time.perf_counter() - clock.pop("started")
            summary.timings = clock
            summary.totals = self.store.outcome_counts(run_id)
            summary.totals.update(arid=discovery.arid, duplicates=discovery.duplicates, unviable=discovery.unviable)
            try:
                self.store.finish_run(run_id, summary.status if summary.status is not RunStatus.RUNNING
                                      else RunStatus.INTERRUPTED,
                                      clock, summary.totals, self.notes)
            except sqlite3.OperationalError as exc:
                if not disk_full(exc):
                    raise
                if summary.status is RunStatus.COMPLETED:
                    raise self._full(exc) from None
                # else the error in flight stands; the run stays `running`: once this process has exited, it is
                # abandoned, and --resume continues it
        return summary

    def _full(self, exc: sqlite3.OperationalError) -> StoreFull:
        then = f"; free some space, then continue it: teeth run --target {self.target.name} --resume" \
            if self.run_id is not None else ""
        return StoreFull(f"cannot record in {self.store.path}: {exc}; what was recorded is kept{then}")

    def _open_run(self, operators, profiles) -> tuple[int, set]:
        if self.request.resume:
            previous = self.store.latest_run(self.target.name)
            if previous is None or not (previous.status is RunStatus.INTERRUPTED or self.store.abandoned(previous)):
                raise ConfigError(f"nothing to resume: the latest run of target {self.target.name!r} "
                                  f"is {previous.status if previous else 'missing'}, not interrupted")
            self.store.claim_run(previous.id)
            self.run_id = previous.id
            return previous.id, self.store.done_keys(previous.id)
        meta = run_metadata(self.target, self.request.recorded_options())
        run_id = self.store.start_run(self.target.name, [p.name for p in profiles], [o.name for o in operators], meta)
        self.run_id = run_id
        return run_id, set()

    def _profile(self, run_id: int, profile: Profile, mutants: list[Mutant], clock: dict) -> None:
        self.progress.start(profile.name, len(mutants))
        reason = self.backends.unavailable_reason(profile)  # a Ray cluster judges its own GPUs
        if reason:
            self._record(run_id, profile, [(m, Outcome(m.id, Status.SKIPPED, detail=reason)) for m in mutants])
            return
        reasons = {m.id: self._not_exercised(m, profile) for m in mutants}
        # Mutants only a profile of another dtype kills: run here, and skipped unless this profile saw them change
        # a value (teeth.run.infection.below_dtype).
        bound = {m.id: why for m in mutants if not reasons[m.id] and (why := self._other_dtype(m, profile))}
        self._record(run_id, profile, [(m, Outcome(m.id, Status.SKIPPED, detail=reasons[m.id]))
                                       for m in mutants if reasons[m.id]])
        mutants = [m for m in mutants if not reasons[m.id]]
        by_id = {m.id: m for m in mutants}
        reused, mutants = self.cache.partition(profile, mutants)
        if reused:
            self.store.record_outcomes(run_id, profile.name, reused)
            for outcome in reused:
                self.progress.advance(by_id[outcome.mutant_id], outcome.status, measured=False)
        if not mutants or (self.cache.reuse and all(m.skip for m in mutants)):  # nothing needs a test: no worker
            self._record(run_id, profile, [(m, Outcome(m.id, Status.SKIPPED, detail=m.skip)) for m in mutants])
            return
        started = time.perf_counter()
        self.progress.stage(f"{profile.name}: starting warm worker and collecting tests")
        with self.backends.open(self.target, profile, self.request.jobs) as backend:
            clock[f"worker.{profile.name}"] = time.perf_counter() - started  # start, scratch copy, collection
            started = time.perf_counter()
            if backend.protection:
                self.store.record_protection(run_id, profile.name, backend.protection)
                self.progress.stage(f"{profile.name}: isolation: {backend.protection}")
            only = self.selection.tests_for(profile, backend.tests, mutants)
            shown = f"{len(backend.tests)} tests" if only is None else \
                f"{len(only)} of {len(backend.tests)} tests, selected from recorded coverage"
            self.progress.stage(f"{profile.name}: baseline with per-test coverage ({shown})")
            baseline = backend.baseline(self.target.baseline_timeout, only)
            self.selection.record(run_id, profile, baseline)
            said = judge_baseline(self.target, profile, baseline)
            if said:
                self.notes.append(said)
            clock[f"baseline.{profile.name}"] = time.perf_counter() - started
            coverage = CoverageMap.from_baseline(baseline)
            history = KillHistory.from_rows(self.store.kill_history(self.target.name, profile.name))
            scenarios, immediate = self._schedule(mutants, coverage, history)
            observed: set[str] = set()
            if self.infection and scenarios:
                started = time.perf_counter()
                scenarios, decided, observed = self._infect(backend, profile, scenarios, by_id)
                immediate += decided
                clock[f"infection.{profile.name}"] = time.perf_counter() - started
            immediate = [(m, infection.below_dtype(o, bound.get(m.id), observed)) for m, o in immediate]
            self._record(run_id, profile, immediate)
            settled = {o.mutant_id: o for o in [*reused, *(outcome for _, outcome in immediate)]}
            batch: list[tuple[Mutant, Outcome]] = []
            executed = flushed = time.perf_counter()
            clock.setdefault("first_mutant", executed - clock["started"])  # the fixed cost, from the command's start
            try:
                for outcome in backend.execute(scenarios):
                    outcome = settled[outcome.mutant_id] = evidence(outcome, coverage)
                    batch.append((by_id[outcome.mutant_id], outcome))
                    self.progress.advance(by_id[outcome.mutant_id], outcome.status)
                    if len(batch) >= FLUSH_EVERY or time.perf_counter() - flushed > FLUSH_SECONDS:
                        self._record(run_id, profile, batch, announce=False)
                        batch, flushed = [], time.perf_counter()
            finally:  # an interrupt or a failure keeps every outcome already received (and shown)
                self._record(run_id, profile, batch, announce=False)
            clock[f"execute.{profile.name}"] = time.perf_counter() - executed
            if self.infection:
                started = time.perf_counter()
                self._propagation(run_id, profile, backend, scenarios, settled, by_id)
                clock[f"propagation.{profile.name}"] = time.perf_counter() - started
            self._record(run_id, profile, [(by_id[i], below) for i in bound if i in settled and
                                           (below := infection.below_dtype(settled[i], bound[i], observed))
                                           is not settled[i]], announce=False)
            if self.audit is not None:
                self._audit(profile, backend, settled, coverage, history, by_id)

    def _infect(self, backend, profile: Profile, scenarios: list[MutantScenario],
                by_id: dict) -> tuple[list, list, set[str]]:
        """The infection pass over the scheduled mutants it can evaluate: those no test infects are decided here.
        Also returns the mutants a probe saw take another value."""
        pass_, texts = infection.plan(scenarios, by_id, self.target.baseline_timeout)
        if pass_ is None:
            return scenarios, [], set()
        self.progress.stage(f"{profile.name}: infection pass ({sum(map(len, pass_.files.values()))} mutants, "
                            f"{len(pass_.tests)} tests)")
        done = backend.infection(pass_)
        if done is None:
            self.notes.append(f"{profile.name}: the infection pass did not finish; every mutant ran its tests")
            return scenarios, [], set()
        return (*infection.decide(scenarios, by_id, done, texts), infection.observed(done))

    def _propagation(self, run_id: int, profile: Profile, backend, scenarios: list[MutantScenario],
                     settled: dict[str, Outcome], by_id: dict) -> None:
        """Each survivor that ran its tests runs them again with its function's outputs compared with the original's
        (teeth.workers.propagation): its why is not_propagated, not_checked or unmeasured, its detail the figures."""
        again = [dataclasses.replace(s, compare=True, timeout=3 * s.timeout,  # comparing costs: 3x each deadline
                                     test_timeouts={t: 3 * b for t, b in (s.test_timeouts or {}).items()})
                 for s in scenarios
                 if settled[s.id].status is Status.SURVIVED and settled[s.id].why is None]
        if not again:
            return
        self.progress.stage(f"{profile.name}: comparing the outputs of {len(again)} survivor(s) with the original's")
        found = []
        for outcome in backend.execute(again):
            first = settled[outcome.mutant_id]
            if outcome.status is Status.SURVIVED and outcome.why is not None:
                why, detail = outcome.why, outcome.detail
            else:
                why, detail = "unmeasured", f"the run that compares outputs ended {outcome.status}" + (
                    f": {outcome.detail}" if outcome.detail else "")
            settled[outcome.mutant_id] = first.replace(why=why, detail=detail)
            found.append((by_id[outcome.mutant_id], settled[outcome.mutant_id]))
        self._record(run_id, profile, found, announce=False)

    def _audit(self, profile: Profile, backend, settled: dict[str, Outcome], coverage: CoverageMap,
               history: KillHistory, by_id: dict) -> None:
        picked = self.audit.pick(list(settled.values()))
        if not picked:  # said all the same: nothing escaped selection because nothing was left to escape it
            self.audit.judge(profile.name, settled, [], by_id)
            return
        self.progress.stage(f"{profile.name}: audit: {len(picked)} survived or no_coverage mutant(s) against "
                            f"all {len(coverage.durations)} tests")
        scenarios = self.audit.scenarios(picked, by_id, coverage, self.target, history)
        full = [evidence(outcome, coverage) for outcome in backend.execute(scenarios)]
        self.audit.judge(profile.name, settled, full, by_id)

    def _other_dtype(self, mutant: Mutant, profile: Profile) -> str | None:
        """Why only a profile of another dtype is expected to kill this mutant (Operator.dtypes), or None."""
        operator = self.operators.get(mutant.operator)
        return operator.unkillable_on(profile) if operator is not None else None

    def _not_exercised(self, mutant: Mutant, profile: Profile) -> str | None:
        """Why a profile cannot kill this mutant at all (so it is skipped, not a survivor), or None. A mutant
        another dtype's profile kills is not skipped here unless it is skipped anyway (an equivalence): whether the
        profile's dtype makes its change nothing is measured (teeth.run.infection.below_dtype)."""
        other = self._other_dtype(mutant, profile)
        if other and mutant.skip:
            return other
        if not self.target.exercises(profile.name, mutant.path):
            return f"{mutant.file} is not code that profile {profile.name} runs"
        return None

    def _schedule(self, mutants: list[Mutant], coverage: CoverageMap,
                  history: KillHistory | None = None) -> tuple[list[MutantScenario], list]:
        scenarios, immediate = [], []
        for mutant in mutants:
            if mutant.skip:
                immediate.append((mutant, Outcome(mutant.id, Status.SKIPPED, detail=mutant.skip)))
                continue
            tests = coverage.tests_for(mutant.path, mutant.lines, module_level=not mutant.swap)
            if not tests:
                immediate.append((mutant, Outcome(mutant.id, Status.NO_COVERAGE, detail="no test executes its lines")))
                continue
            if history is not None and not self.full_matrix:
                tests = history.order(mutant, tests)  # killer-first: the likely killer runs before the rest
            recollect = coverage.collected(mutant.path, mutant.lines, module_level=not mutant.swap)
            scenarios.append(MutantScenario(id=mutant.id, path=mutant.path, swap=mutant.swap, code=mutant.code,
                                            tests=tests, full_matrix=self.full_matrix and not recollect,
                                            recollect=recollect, **coverage.deadlines(tests, self.target, recollect)))
        return scenarios, immediate

    def _record(self, run_id: int, profile: Profile, pairs: list, announce: bool = True) -> None:
        keyed = []
        for mutant, outcome in pairs:
            if announce:
                self.progress.advance(mutant, outcome.status, measured=False)
            keyed.append(outcome.replace(cache_key=self.cache.key(mutant, profile, outcome.status, outcome.killed_by)))
        if keyed:
            self.store.record_outcomes(run_id, profile.name, keyed)
        matrices = {outcome.mutant_id: outcome.matrix for _, outcome in pairs if outcome.matrix is not None}
        if matrices:
            self.store.record_matrix(run_id, profile.name, matrices)
