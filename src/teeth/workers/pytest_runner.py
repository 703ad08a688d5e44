"""The worker process: pytest collects the target's tests once, then the supervisor forks a child per scenario and
this runner runs its tests (the baseline with per-test coverage, or a mutant's tests until one fails)."""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
import time
from collections.abc import Callable

import pytest
from _pytest.runner import runtestprotocol

from teeth.core import Check, Infection, MutantScenario, Outcome, Status, WorkerFailure
from teeth.workers.coverage import CollectionLines, measure
from teeth.workers.shadowing import shadowing
from teeth.workers import interpreter
from teeth.workers.apply import MutantNotApplied, clear_caches, install_schema, prepare_mutant
from teeth.workers.compiled_code import CompiledCode
from teeth.workers.kernel_launches import kernel_launches
from teeth.syntax.sources import read_source
from teeth.workers.probe import Recorder, Undecided
from teeth.workers.propagation import Meter, Unmeasured, originals
from teeth.workers import random_state
from teeth.workers.random_state import RandomStates
from teeth.workers.protocol import BaselineDone, Collected, Fatal, InfectionDone, Running, WorkerSpec, decode
from teeth.workers.sandbox import restrict_writes
from teeth.workers.schema import Site, build_schema
from teeth.workers.supervisor import Channel, Supervisor, die_with_parent


def _failure(item, reports) -> dict | None:
    """The first failing phase of a test: its id, the check it performs and a short reason."""
    for report in reports:
        if report.failed:
            marker = item.get_closest_marker("check")
            check = getattr(report, "teeth_check", None) or (marker.args[0] if marker and marker.args else Check.BEHAVIOUR)
            failure = {"test": item.nodeid, "check": check, "detail": _reason(report)[:300]}
            denied = getattr(report, "teeth_denied", None)
            return {**failure, "denied": denied} if denied else failure
    return None


def denied_path(exc: BaseException | None) -> str | None:
    """The path of a write the system refused (EACCES, EPERM, EROFS): what the sandbox refuses looks so."""
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) and exc.filename:
        return os.fsdecode(exc.filename)
    return None


def _reason(report) -> str:
    """One line: the exception and the first line of its message (`AssertionError: assert [12] == [11, 12]`, set by
    the plugin's makereport hook), else the last line of pytest's failure text, else the phase that failed."""
    reason = getattr(report, "teeth_reason", None)
    if reason:
        return reason
    lines = str(report.longrepr or "").strip().splitlines()
    return lines[-1] if lines else report.when


def check_of(exc: BaseException | None) -> str | None:
    """The check an exception names (`teeth_check`), its own or that of an exception it was raised from: the
    triton interpreter re-raises a kernel's exception (a bounds check's `OutOfBounds`) as InterpreterError."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if getattr(exc, "teeth_check", None):
            return exc.teeth_check
        exc = exc.__cause__ or exc.__context__
    return None


# Reports pytest logs while a test runs but runtestprotocol does not return: a failed `subTest` (unittest) or
# `subtests.test()` block is one (pytest's SubtestReport), while the test's own call report says passed.
_LOGGED: list = []


def _run_item(item) -> dict | None:
    """The test's first failure: a failing phase of its own, or else a failing subtest of it."""
    _LOGGED.clear()
    reports = runtestprotocol(item, log=False, nextitem=None)
    return _failure(item, [*reports, *(r for r in _LOGGED if r.nodeid == item.nodeid)])


class PytestRunner:
    """Runs collected pytest items: the baseline with per-test coverage, a mutant's tests until one fails."""

    def __init__(self, items: dict, files: list[str], copies: dict[str, str] | None = None,
                 concurrency: list[str] | None = None, collection: dict[str, list[int]] | None = None,
                 collected_in: float = 0.0, args: list[str] | None = None):
        """`copies`: a target file -> its copy in the scratch tree, where the tests may import it from instead;
        `concurrency`: coverage.py's concurrency models for the baseline (None: those the tests import);
        `collection`: the lines of the target's functions that ran while pytest collected the tests
        (`CollectionLines`), which took `collected_in` seconds; `args`: pytest's arguments, for a mutant that must be
        collected again."""
        self.items, self.files = items, files
        self.concurrency = concurrency
        self.copies = copies or {}
        self.originals = {os.path.realpath(copy): file for file, copy in self.copies.items()}
        self.collection = {self.originals.get(path, path): lines for path, lines in (collection or {}).items()}
        self.collected_in = collected_in
        self.args = list(args or [])
        self.random = RandomStates()  # each test's random state in the baseline, restored before it in later children

    def baseline(self, only: list[str] | None, report: Callable[[Running], object] = lambda running: None,
                 retries: int = 0) -> BaselineDone:
        """In the baseline's child: every test once under coverage; `report` says which test runs now, so that a
        crash can name it; a failing test runs again up to `retries` times, and one that then passes is flaky."""
        before = set(sys.modules)
        clear_caches([*self.files, *self.copies.values()])
        items = list(self.items.values()) if only is None else [self.items[t] for t in only if t in self.items]
        files = [*self.files, *self.copies.values()]
        counted = iter(range(1, len(items) + 1))

        compiled = CompiledCode(files)  # what torch compiles runs where coverage cannot see it

        states = RandomStates()

        def reported(item):
            report(Running(item.nodeid, next(counted)))
            states.record(item.nodeid)  # before its fixtures: what the test starts from
            with compiled.test(item.nodeid):
                return _run_item(item)

        launches = kernel_launches()
        with compiled.installed():
            if launches is None:
                tests = measure(items, files, reported, self.concurrency)
            else:  # interpreted triton kernels: coverage at launch level, not line by line per program instance
                def run_item(item):
                    with launches.test(item.nodeid):
                        return reported(item)

                with launches.installed():
                    tests = measure(items, files, run_item, self.concurrency)
                launches.credit(tests, {os.path.realpath(f) for f in files})
        compiled.credit(tests)
        for nodeid, record in tests.items():
            for attempt in range(1, retries + 1 if record["failure"] else 0):
                report(Running(nodeid, len(items)))
                if _run_item(self.items[nodeid]) is None:  # passed on a retry: flaky, never kill evidence
                    record["failure"] = {**record["failure"], "flaky": True, "passed_on_retry": attempt}
                    break
        for record in tests.values():  # lines of a copy are lines of the target's file
            record["lines"] = {self.originals.get(path, path): lines for path, lines in record["lines"].items()}
            if self.collection:  # what ran while the tests were collected: any test may see what it made
                for path, lines in self.collection.items():
                    if lines:
                        record["lines"][path] = sorted({*record["lines"].get(path, ()), *lines})
                record["collection"] = self.collection
                record["collected_in"] = self.collected_in  # what collecting them again costs, about
        shadowed = shadowing([*self.files, *self.copies.values()])
        if shadowed:
            shadowed = (self.originals.get(shadowed[0], shadowed[0]), shadowed[1])
        imported = [name for name in list(sys.modules) if name not in before]
        return BaselineDone(tests, shadowed, self._target_modules(), imported, states.encoded())

    def _target_modules(self) -> list[str]:
        """The modules of the target's files (or their copies) the tests imported."""
        wanted = {os.path.realpath(f) for f in [*self.files, *self.copies.values()]}
        return sorted(name for name, module in list(sys.modules.items())
                      if isinstance(getattr(module, "__file__", None), str)
                      and os.path.realpath(module.__file__) in wanted)

    def import_modules(self, names: list[str]) -> None:
        """Cold path: the target's modules that the tests import lazily were imported by the baseline's child only;
        import them here too, where mutants are prepared (importing does not initialise CUDA; a fork checks)."""
        for name in names:
            if name not in sys.modules:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 - a mutant of it is then an error that says it was never imported
                    pass

    def prepare(self, scenario: MutantScenario):
        """The mutant, applied to the module the tests imported: the target's file, or its copy in the scratch tree."""
        try:
            return prepare_mutant(scenario.path, scenario.swap, scenario.code)
        except MutantNotApplied:
            copy = self.copies.get(scenario.path)
            if copy is None:
                raise
            return prepare_mutant(copy, scenario.swap, scenario.code)

    def infection(self, scenario: Infection, report: Callable[[Running], object]) -> InfectionDone:
        """In the infection pass's child: every file's schema in place, then every test once; per mutant, what the
        probes saw (teeth.run.infection)."""
        recorder = Recorder()
        instrumented: list[str] = []
        keys: dict[str, str] = {}
        for number, (path, rows) in enumerate(scenario.files.items()):
            sites = [Site(*row) for row in rows]
            schema = build_schema(path, read_source(path), sites, prefix=f"{number}.")
            if schema is None:
                continue
            keys.update(schema.keys)
            for where in (path, self.copies.get(path)):
                try:
                    installed = set(install_schema(where, schema.tree, schema.swaps, recorder.probe))
                except MutantNotApplied:
                    continue
                instrumented += [s.mutant for s in sites if s.mutant in schema.keys and s.swap in installed]
                break
        failed: dict[str, str] = {}
        undecided = Undecided(instrumented, scenario.covers)
        compiled = CompiledCode([*self.files, *self.copies.values()])  # the probes cannot see compiled code run
        with compiled.installed():
            for count, nodeid in enumerate(scenario.tests, 1):
                if nodeid not in self.items or not undecided.needs(nodeid):
                    continue
                report(Running(nodeid, count))
                recorder.test = nodeid
                self.random.restore(nodeid)
                with compiled.test(nodeid):
                    failure = _run_item(self.items[nodeid])
                if failure:
                    failed[nodeid] = failure["detail"]
                undecided.ran(nodeid, bool(failure), recorder, keys)
        recorder.test = None
        seen = {mutant: recorder.seen[key] for mutant, key in keys.items() if key in recorder.seen}
        return InfectionDone(seen, instrumented, failed, compiled.tests())

    def mutant(self, scenario: MutantScenario, put_in_place, report: Callable[[Running], object]) -> Outcome:
        """In the mutant's child: put it in place and run its tests until one fails; `report` says which test runs
        now, so that a crash can name its test."""
        functions, meter, unmeasured = None, None, None
        if scenario.compare:
            try:
                functions = self._originals(scenario)
            except Unmeasured as exc:  # nothing to compare (a kernel, module-level code): running the tests
                # again would only repeat the survivor's verdict
                return Outcome(scenario.id, Status.SURVIVED, tests_run=0, why="unmeasured", detail=str(exc))
        try:
            put_in_place()
        except MutantNotApplied as exc:
            return Outcome.failed(scenario.id, WorkerFailure.NOT_APPLIED, str(exc))
        if functions:
            try:
                meter = Meter(*functions)
            except Unmeasured as exc:
                unmeasured = str(exc)
        test_seconds = 0.0
        matrix: list[list] = []  # --full-matrix: every test's verdict; otherwise the first failure stops
        first = None
        if scenario.recollect:  # its code ran while the tests were collected: collect them again, as by hand
            started = time.perf_counter()
            first, ran = self._collected_again(scenario.tests, report)
            test_seconds = time.perf_counter() - started
            if first:
                return Outcome(scenario.id, Status.KILLED, killed_by=first["test"], check=first["check"],
                               detail=first["detail"], tests_run=ran, test_seconds=test_seconds)
            return Outcome(scenario.id, Status.SURVIVED, tests_run=ran, test_seconds=test_seconds,
                           why="unmeasured" if scenario.compare else None,
                           detail="collected again with the mutant in place: its outputs were not compared"
                           if scenario.compare else None)
        for count, nodeid in enumerate(scenario.tests, 1):
            report(Running(nodeid, count))
            started = time.perf_counter()
            self.random.restore(nodeid)  # the inputs it drew in the baseline, whatever ran before it here
            failure = _run_item(self.items[nodeid])
            test_seconds += time.perf_counter() - started
            matrix.append([nodeid, failure["check"], failure["detail"]] if failure else [nodeid, None, None])
            first = first or failure
            if failure and not scenario.full_matrix:
                break
        full = matrix if scenario.full_matrix else None
        if first:
            return Outcome(scenario.id, Status.KILLED, killed_by=first["test"], check=first["check"],
                           detail=first["detail"], tests_run=len(matrix), test_seconds=test_seconds, matrix=full)
        why, detail = meter.verdict() if meter else ("unmeasured", unmeasured) if scenario.compare else (None, None)
        return Outcome(scenario.id, Status.SURVIVED, tests_run=len(matrix), test_seconds=test_seconds, matrix=full,
                       why=why, detail=detail)

    def _collected_again(self, tests: list[str], report: Callable[[Running], object]) -> tuple[dict | None, int]:
        """In a mutant's child, with the mutant in place: the test modules (and conftests) imported again and `tests`
        collected and run by a new pytest session, until one fails (a collection error is a failure, as in a plain
        run). (first failure, how many tests ran)."""
        wanted = {os.path.realpath(str(item.path)) for item in self.items.values()}
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and (os.path.realpath(file) in wanted or os.path.basename(file) == "conftest.py"):
                del sys.modules[name]
        report(Running(AGAIN, 0))  # no test's own deadline: only the mutant's
        again = _Again(set(tests), report)
        pytest.main([*self.args, "-p", "no:cacheprovider"], plugins=[again])
        return again.failure, again.ran

    def _originals(self, scenario: MutantScenario) -> tuple:
        """(the functions the mutant is swapped into, their original code), before it is."""
        for path in (scenario.path, self.copies.get(scenario.path)):
            try:
                functions = originals(path, scenario.swap) if path else None
            except MutantNotApplied:
                continue
            if functions:
                return functions, functions[0].__code__
        raise Unmeasured(f"{scenario.swap or 'module-level code'}: not found in the modules the tests imported")


def _annotated(report, call):
    """A test's report with what teeth reads of its exception: the check it names, a write refused, one line."""
    if call.excinfo is not None:
        report.teeth_check = check_of(call.excinfo.value)
        report.teeth_denied = denied_path(call.excinfo.value)
        message = str(call.excinfo.value).strip().splitlines()
        report.teeth_reason = call.excinfo.typename + (f": {message[0]}" if message else "")
    return report


AGAIN = "(the tests collected again)"  # what a mutant's child runs outside any test of a session run again


class _Again:
    """A pytest plugin for a session run again in a mutant's child: only the mutant's tests, stopped at the first
    failure, which it keeps."""

    def __init__(self, tests: set[str], report: Callable[[Running], object]):
        self.tests, self.failure, self.ran, self.session = tests, None, 0, None
        self.report = report

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        return _annotated((yield), call)

    def pytest_runtest_logstart(self, nodeid, location):
        self.report(Running(nodeid, self.ran + 1))  # its own deadline runs from here

    def pytest_runtest_logfinish(self, nodeid, location):
        self.report(Running(AGAIN, self.ran))  # between tests and after the last: the mutant's deadline only

    def pytest_sessionstart(self, session):
        self.session = session

    def pytest_collection_modifyitems(self, items, config):
        kept = [item for item in items if item.nodeid in self.tests]
        dropped = [item for item in items if item.nodeid not in self.tests]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_collectreport(self, report):
        if report.failed and self.failure is None:  # a test of that file (it passed in the baseline) is the killer
            lines = str(report.longrepr or "").strip().splitlines()
            tests = sorted(self.tests)
            test = next((t for t in tests if report.nodeid and t.startswith(report.nodeid)), tests[0] if tests else "")
            self.failure = {"test": test, "check": Check.BEHAVIOUR,
                            "detail": (f"collecting {report.nodeid or 'the tests'} failed: "
                                       + (lines[-1] if lines else ""))[:300]}

    def pytest_runtest_logreport(self, report):
        self.ran += report.when == "call"
        if report.failed and self.failure is None:
            self.failure = {"test": report.nodeid, "check": getattr(report, "teeth_check", None) or Check.BEHAVIOUR,
                            "detail": _reason(report)[:300]}
            if self.session is not None:
                self.session.shouldstop = "a test failed"


class WorkerPlugin:
    """A pytest plugin that hands the run loop to the supervisor once collection is done."""

    def __init__(self, spec: WorkerSpec, channel: Channel, protection: str | None):
        self.spec, self.channel, self.protection = spec, channel, protection
        self.collect_errors: list[str] = []
        self.served = False
        self.collecting: CollectionLines | None = None  # started before pytest collects (`main`)

    def pytest_runtest_logreport(self, report):
        if report.failed:
            _LOGGED.append(report)  # a subtest's failure (`_run_item`)

    def pytest_collectreport(self, report):
        if report.failed:
            lines = str(report.longrepr or "").strip().splitlines()
            self.collect_errors.append(f"{report.nodeid}: {lines[-1] if lines else 'collection failed'}")

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session):
        try:
            return (yield)
        except pytest.UsageError as exc:  # a test id that matches nothing: say which
            self.collect_errors.extend(" ".join(str(arg).split()) for arg in exc.args)
            raise

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        return _annotated((yield), call)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        self.served = True
        if self.collect_errors:
            self.channel.send(Fatal("test collection failed: " + "; ".join(self.collect_errors)))
            return True
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(1)
            if torch.cuda.is_initialized():
                self.channel.send(Fatal("the tests initialised CUDA during collection; "
                                        "a process that has initialised CUDA cannot be forked"))
                return True
        collection = self.collecting.stop() if self.collecting is not None else {}
        items = {item.nodeid: item for item in session.items}
        self.channel.send(Collected(list(items), self.protection))
        runner = PytestRunner(items, self.spec.files, self.spec.copies, self.spec.concurrency, collection,
                              self.collecting.seconds if self.collecting is not None else 0.0, self.spec.args)
        Supervisor(runner, self.channel, self.spec.execution).serve()
        return True


def main() -> None:
    spec = decode(sys.argv[1])
    die_with_parent()
    protection = restrict_writes(spec.writable) if spec.writable else None
    channel = Channel(os.dup(0), os.dup(1), spec.token)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.dont_write_bytecode = True
    interpreter.prepare(spec.interpreter)  # interpreter profiles: gaps closed, launches bounds-checked
    random_state.seed()  # every worker starts from the same random state
    plugin = WorkerPlugin(spec, channel, protection)
    plugin.collecting = CollectionLines([*spec.files, *(spec.copies or {}).values()])
    stderr, sys.stderr = sys.stderr, _Kept(sys.stderr)  # what pytest says before it collects (a conftest's error)
    plugin.collecting.start()
    try:
        code = pytest.main(spec.args, plugins=[plugin])
    finally:
        said, sys.stderr = sys.stderr.kept.getvalue(), stderr
    if not plugin.served:
        detail = "; ".join(plugin.collect_errors) or _before_collection(said) or \
            f"pytest exited with code {int(code)} before running tests"
        channel.send(Fatal(detail))


class _Kept(io.TextIOBase):
    """A stream that writes through to another and keeps the first 64 KiB written to it."""

    def __init__(self, stream):
        self.stream, self.kept = stream, io.StringIO()

    def write(self, text: str) -> int:
        if self.kept.tell() < 1 << 16:
            self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.stream.fileno()


def _before_collection(said: str) -> str | None:
    """pytest's own words for why it stopped before collecting: a conftest that fails to import is "ImportError
    while loading conftest 'PATH'." and, last, its error (`E   ModuleNotFoundError: ...`)."""
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    conftest = next((line for line in lines if line.startswith("ImportError while loading conftest")), None)
    errors = [line.removeprefix("E").strip() for line in lines if line.startswith("E ")]
    if conftest:
        return conftest.rstrip(".") + (f": {errors[-1]}" if errors else "")
    return lines[-1] if lines else None


if __name__ == "__main__":
    main()

