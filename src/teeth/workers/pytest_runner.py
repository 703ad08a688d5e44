"""The worker process: pytest collects the target's tests once, then the supervisor forks a child per scenario and
this runner runs its tests (the baseline with per-test coverage, or a mutant's tests until one fails)."""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable

import pytest
from _pytest.runner import runtestprotocol

from teeth.core import MutantScenario, Outcome, Status, WorkerFailure
from teeth.coverage_map import measure
from teeth.shadowing import shadowing
from teeth.workers import interpreter
from teeth.workers.apply import MutantNotApplied, prepare_mutant
from teeth.workers.kernel_launches import kernel_launches
from teeth.workers.protocol import BaselineDone, Collected, Fatal, Running, WorkerSpec, decode
from teeth.workers.sandbox import restrict_writes
from teeth.workers.supervisor import Channel, Supervisor, die_with_parent


def _failure(item, reports) -> dict | None:
    """The first failing phase of a test: its id, the check it performs and a short reason."""
    for report in reports:
        if report.failed:
            marker = item.get_closest_marker("check")
            check = getattr(report, "teeth_check", None) or (marker.args[0] if marker and marker.args else "behaviour")
            return {"test": item.nodeid, "check": check, "detail": _reason(report)[:300]}
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


def _run_item(item) -> dict | None:
    return _failure(item, runtestprotocol(item, log=False, nextitem=None))


class PytestRunner:
    """Runs collected pytest items: the baseline with per-test coverage, a mutant's tests until one fails."""

    def __init__(self, items: dict, files: list[str], copies: dict[str, str] | None = None):
        """`copies`: a target file -> its copy in the scratch tree, where the tests may import it from instead."""
        self.items, self.files = items, files
        self.copies = copies or {}
        self.originals = {os.path.realpath(copy): file for file, copy in self.copies.items()}

    def baseline(self, only: list[str] | None) -> BaselineDone:
        items = list(self.items.values()) if only is None else [self.items[t] for t in only if t in self.items]
        files = [*self.files, *self.copies.values()]
        launches = kernel_launches()
        if launches is None:
            tests = measure(items, files, _run_item)
        else:  # interpreted triton kernels: coverage at launch level, not line by line per program instance
            def run_item(item):
                with launches.test(item.nodeid):
                    return _run_item(item)

            with launches.installed():
                tests = measure(items, files, run_item)
            launches.credit(tests, {os.path.realpath(f) for f in files})
        for record in tests.values():  # lines of a copy are lines of the target's file
            record["lines"] = {self.originals.get(path, path): lines for path, lines in record["lines"].items()}
        shadowed = shadowing([*self.files, *self.copies.values()])
        if shadowed:
            shadowed = (self.originals.get(shadowed[0], shadowed[0]), shadowed[1])
        return BaselineDone(tests, shadowed, self._target_modules())

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

    def mutant(self, scenario: MutantScenario, put_in_place, report: Callable[[Running], object]) -> Outcome:
        """In the mutant's child: put it in place and run its tests until one fails; `report` says which test runs
        now, so that a crash can name its test."""
        try:
            put_in_place()
        except MutantNotApplied as exc:
            return Outcome.failed(scenario.id, WorkerFailure.NOT_APPLIED, str(exc))
        test_seconds = 0.0
        matrix: list[list] = []  # --full-matrix: every test's verdict; otherwise the first failure stops
        first = None
        for count, nodeid in enumerate(scenario.tests, 1):
            report(Running(nodeid, count))
            started = time.perf_counter()
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
        return Outcome(scenario.id, Status.SURVIVED, tests_run=len(matrix), test_seconds=test_seconds, matrix=full)


class WorkerPlugin:
    """A pytest plugin that hands the run loop to the supervisor once collection is done."""

    def __init__(self, spec: WorkerSpec, channel: Channel, protection: str | None):
        self.spec, self.channel, self.protection = spec, channel, protection
        self.collect_errors: list[str] = []
        self.served = False

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
        report = yield
        if call.excinfo is not None:
            report.teeth_check = check_of(call.excinfo.value)
            message = str(call.excinfo.value).strip().splitlines()
            report.teeth_reason = call.excinfo.typename + (f": {message[0]}" if message else "")
        return report

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
        items = {item.nodeid: item for item in session.items}
        self.channel.send(Collected(list(items), self.protection))
        runner = PytestRunner(items, self.spec.files, self.spec.copies)
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
    plugin = WorkerPlugin(spec, channel, protection)
    code = pytest.main(spec.args, plugins=[plugin])
    if not plugin.served:
        detail = "; ".join(plugin.collect_errors) or f"pytest exited with code {int(code)} before running tests"
        channel.send(Fatal(detail))


if __name__ == "__main__":
    main()

