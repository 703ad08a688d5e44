"""The warm worker: pytest collects once; each baseline or mutant then runs in a forked child."""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import selectors
import signal
import sys
import time

import pytest
from _pytest.runner import runtestprotocol

from teeth.coverage_map import measure
from teeth.shadowing import shadowing
from teeth.workers import interpreter
from teeth.workers.apply import MutantNotApplied, prepare_mutant
from teeth.workers.kernel_launches import kernel_launches
from teeth.workers.sandbox import restrict_writes

READ_CHUNK = 1 << 16


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


def _check_of(exc: BaseException | None) -> str | None:
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


class Channel:
    """JSON lines with the coordinator, on private copies of stdin and stdout (pytest captures fd 0-2). Each line
    starts with the run's token: the baseline's tests run in this process, and what they write to a descriptor
    they find open is not taken for a message."""

    def __init__(self, in_fd: int, out_fd: int, token: str = ""):
        self.in_fd, self.fd, self.token = in_fd, out_fd, token

    def send(self, message: dict) -> None:
        data = (self.token + json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]


class Child:
    """One forked baseline-or-mutant process: its own process group, its result pipe and its exit (a pidfd)."""

    def __init__(self, pid: int, fd: int, pidfd: int, ident: str, deadline: float, token: bytes):
        self.pid, self.fd, self.pidfd, self.ident, self.deadline, self.token = pid, fd, pidfd, ident, deadline, token
        self.data = b""
        self.started = time.perf_counter()
        self.timed_out = False

    def result(self) -> dict | None:
        """The last framed result in the pipe: a test may write anything to file descriptors it finds open."""
        at = self.data.rfind(self.token)
        if at < 0:
            return None
        try:
            return json.loads(self.data[at + len(self.token):].split(b"\n", 1)[0])
        except ValueError:
            return None


class CudaInitialised(Exception):
    """Something in the worker initialised CUDA: it must not fork."""


def _cuda_initialised() -> bool:
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    return bool(cuda is not None and cuda.is_initialized())


def _die_with_parent() -> None:
    """PR_SET_PDEATHSIG: this process gets SIGKILL when the process that started it dies (Linux)."""
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)


class Zygote:
    """Forks one child per task and reports each child's result, timeout or crash."""

    def __init__(self, items: dict, channel: Channel, files: list[str], copies: dict[str, str] | None = None,
                 execution: str = "warm"):
        """`copies`: a target file -> its copy in the scratch tree, where the tests may import it from instead.
        `execution`: "warm" runs the baseline here; "cold" forks it too, so this process never runs a test."""
        self.items, self.channel, self.files, self.execution = items, channel, files, execution
        self.copies = copies or {}
        self.originals = {os.path.realpath(copy): file for file, copy in self.copies.items()}
        self.children: dict[int, Child] = {}  # by the pidfd that reports its exit
        self.selector = selectors.DefaultSelector()
        self.stdin_buffer = b""
        self.progress: tuple[int, bytes] | None = None  # in a child: its result pipe and token

    def fork(self, ident: str, timeout: float, work) -> None:
        if _cuda_initialised():  # a forked CUDA context is unusable: refuse rather than hand one to a child
            raise CudaInitialised("this worker has initialised CUDA; it cannot fork")
        read_fd, write_fd = os.pipe()
        token = b"\x00teeth-result-" + os.urandom(8).hex().encode() + b":"
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.setpgid(0, 0)  # its own group: killed as a group with every helper its tests start
            _die_with_parent()
            # What the tests could reach by writing to a stray descriptor: the coordinator's channel, the other
            # children's pipes. Gone; only its own result pipe is left, and its result is framed by a token.
            for fd in (read_fd, self.channel.in_fd, self.channel.fd,
                       *(c.fd for c in self.children.values()), *self.children):
                os.close(fd)
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            self.progress = (write_fd, token)
            try:
                result = work()
            except BaseException as exc:  # noqa: BLE001 - the child reports, whatever happened
                result = {"status": "error", "detail": f"{type(exc).__name__}: {exc}"[:300]}
            data = token + json.dumps(result).encode() + b"\n"
            while data:
                data = data[os.write(write_fd, data):]
            os._exit(0)
        os.close(write_fd)
        try:
            os.setpgid(pid, pid)  # also here: whichever of the two runs first
        except OSError:
            pass
        os.set_blocking(read_fd, False)
        pidfd = os.pidfd_open(pid)
        child = Child(pid, read_fd, pidfd, ident, time.monotonic() + timeout, token)
        self.children[pidfd] = child
        self.selector.register(read_fd, selectors.EVENT_READ, ("pipe", child))
        self.selector.register(pidfd, selectors.EVENT_READ, ("exit", child))

    def mutant(self, command: dict, put_in_place) -> dict:
        try:
            put_in_place()
        except MutantNotApplied as exc:
            return {"status": "error", "detail": str(exc)}
        test_seconds = 0.0
        for count, nodeid in enumerate(command["tests"], 1):
            self._running(nodeid, count)
            started = time.perf_counter()
            failure = _run_item(self.items[nodeid])
            test_seconds += time.perf_counter() - started
            if failure:
                return {"status": "killed", "tests_run": count, "test_seconds": test_seconds, **failure}
        return {"status": "survived", "tests_run": len(command["tests"]), "test_seconds": test_seconds}

    def _running(self, nodeid: str, count: int) -> None:
        """In a mutant's child: which test runs now, framed like a result, so that a crash can name its test."""
        if self.progress is not None:
            write_fd, token = self.progress
            os.write(write_fd, token + json.dumps({"running": nodeid, "tests_run": count}).encode() + b"\n")

    def baseline(self, only: list[str] | None) -> dict:
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
        return {"status": "baseline", "tests": tests, "shadowed": shadowed, "modules": self._target_modules()}

    def _target_modules(self) -> list[str]:
        """The modules of the target's files (or their copies) the tests imported."""
        wanted = {os.path.realpath(f) for f in [*self.files, *self.copies.values()]}
        return sorted(name for name, module in list(sys.modules.items())
                      if isinstance(getattr(module, "__file__", None), str)
                      and os.path.realpath(module.__file__) in wanted)

    def _import(self, names: list[str]) -> None:
        """Cold path: the target's modules that the tests import lazily were imported by the baseline's child only;
        import them here too, where mutants are prepared (importing does not initialise CUDA; a fork checks)."""
        for name in names:
            if name not in sys.modules:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 - a mutant of it is then an error that says it was never imported
                    pass

    def prepare(self, command: dict):
        """The mutant, applied to the module the tests imported: the target's file, or its copy in the scratch tree."""
        try:
            return prepare_mutant(command["path"], command["swap"], command["code"])
        except MutantNotApplied:
            copy = self.copies.get(command["path"])
            if copy is None:
                raise
            return prepare_mutant(copy, command["swap"], command["code"])

    def handle(self, command: dict) -> bool:
        try:
            return self._handle(command)
        except CudaInitialised as exc:
            self.channel.send({"event": "fatal", "message": str(exc)})
            return False

    def _handle(self, command: dict) -> bool:
        kind = command["cmd"]
        if kind == "quit":
            return False
        if kind == "baseline" and self.execution == "cold":
            # In a child, like every mutant: this process never runs a test, so it never initialises CUDA.
            self.fork("baseline", command["timeout"], lambda: self.baseline(command.get("tests")))
        elif kind == "baseline":
            # In this process, not a child: the baseline also warms every lazy import and first-call
            # initialisation (torch's take seconds) that each forked mutant would otherwise pay again.
            result = self.baseline(command.get("tests"))
            result.pop("modules")
            self.channel.send({"event": "result", "id": "baseline", **result})
            gc.collect()
            gc.freeze()  # children then leave the warm heap's pages shared
            if _cuda_initialised():
                self.channel.send({"event": "fatal", "message": "the baseline initialised CUDA; a process that "
                                   "has initialised CUDA cannot be forked for mutants (a profile with "
                                   "execution = \"cold\" runs the baseline in a child)"})
                return False
        elif kind == "mutant":
            try:
                put_in_place = self.prepare(command)
            except MutantNotApplied as exc:
                self.channel.send({"event": "result", "id": command["id"], "status": "error", "detail": str(exc)})
                return True
            self.fork(command["id"], command["timeout"], lambda: self.mutant(command, put_in_place))
        return True

    def _drain(self, child: Child) -> None:
        while True:
            try:
                chunk = os.read(child.fd, READ_CHUNK)
            except BlockingIOError:  # a helper of the tests still holds the pipe open: the result is in already
                return
            if not chunk:  # closed by every holder: nothing more to wait for on it
                if child.fd in self.selector.get_map():
                    self.selector.unregister(child.fd)
                return
            child.data += chunk

    def finish(self, child: Child) -> None:
        """The child exited: its result is what it wrote; its group (helpers its tests started) is killed."""
        self._drain(child)
        _kill_group(child.pid)
        for fd in (child.fd, child.pidfd):
            if fd in self.selector.get_map():
                self.selector.unregister(fd)
            os.close(fd)
        del self.children[child.pidfd]
        _, status = os.waitpid(child.pid, 0)
        duration = time.perf_counter() - child.started
        message = {"event": "result", "id": child.ident, "duration": duration}
        result, running = child.result(), None
        if result is not None and "status" not in result:  # only the test it was running: it did not finish
            result, running = None, result
        if result is not None and "modules" in result:
            self._import(result.pop("modules"))
        if child.timed_out:
            message.update(status="timeout", detail=f"no result after {duration:.1f}s"
                           + (f" (running {running['running']})" if running else ""))
        elif result is not None:
            message.update(result)
        elif os.WIFSIGNALED(status) and child.ident != "baseline":
            # The baseline ran without crashing: the mutant's tests crashed the process (a kill, check `crash`).
            sig = os.WTERMSIG(status)
            message.update(status="killed", check="crash", signal=sig,
                           detail=f"crashed with {signal.Signals(sig).name}")
            if running:  # the test that crashed it
                message.update(test=running["running"], tests_run=running["tests_run"])
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            message.update(status="error", signal=sig, detail=f"crashed with {signal.Signals(sig).name}")
        else:
            message.update(status="error", detail=f"exited with code {os.WEXITSTATUS(status)} without a result")
        self.channel.send(message)

    def serve(self) -> None:
        self.selector.register(self.channel.in_fd, selectors.EVENT_READ, None)
        running = True
        while running or self.children:
            now = time.monotonic()
            for child in self.children.values():
                if not child.timed_out and now >= child.deadline:
                    child.timed_out = True
                    _kill_group(child.pid)
            deadlines = [c.deadline - now for c in self.children.values() if not c.timed_out]
            for key, _ in self.selector.select(timeout=max(0.0, min(deadlines)) if deadlines else None):
                if key.data is None:
                    chunk = os.read(self.channel.in_fd, READ_CHUNK)
                    if not chunk:  # the coordinator is gone: stop everything
                        self.kill_all()
                        return
                    self.stdin_buffer += chunk
                    while b"\n" in self.stdin_buffer and running:
                        line, self.stdin_buffer = self.stdin_buffer.split(b"\n", 1)
                        running = self.handle(json.loads(line))
                    if not running:
                        self.selector.unregister(self.channel.in_fd)
                    continue
                kind, child = key.data
                if child.pidfd not in self.children:
                    continue  # finished earlier in this round
                if kind == "exit":
                    self.finish(child)
                else:
                    self._drain(child)

    def kill_all(self) -> None:
        for child in list(self.children.values()):
            _kill_group(child.pid)
            try:
                os.waitpid(child.pid, 0)
            except ChildProcessError:
                pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ZygotePlugin:
    """A pytest plugin that takes over the run loop once collection is done."""

    def __init__(self, spec: dict, channel: Channel):
        self.spec, self.channel = spec, channel
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
            report.teeth_check = _check_of(call.excinfo.value)
            message = str(call.excinfo.value).strip().splitlines()
            report.teeth_reason = call.excinfo.typename + (f": {message[0]}" if message else "")
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        self.served = True
        if self.collect_errors:
            self.channel.send({"event": "fatal", "message": "test collection failed: " + "; ".join(self.collect_errors)})
            return True
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(1)
            if torch.cuda.is_initialized():
                self.channel.send({"event": "fatal", "message": "the tests initialised CUDA during collection; "
                                   "a process that has initialised CUDA cannot be forked"})
                return True
        items = {item.nodeid: item for item in session.items}
        self.channel.send({"event": "collected", "tests": list(items), "protection": self.spec.get("protection")})
        Zygote(items, self.channel, self.spec["files"], self.spec.get("copies"),
               self.spec.get("execution", "warm")).serve()
        return True


def main() -> None:
    spec = json.loads(sys.argv[1])
    _die_with_parent()
    if spec.get("writable"):
        spec["protection"] = restrict_writes(spec["writable"])
    channel = Channel(os.dup(0), os.dup(1), spec.get("token", ""))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.dont_write_bytecode = True
    interpreter.prepare(spec.get("interpreter"))  # interpreter profiles: gaps closed, launches bounds-checked
    plugin = ZygotePlugin(spec, channel)
    code = pytest.main(spec["args"], plugins=[plugin])
    if not plugin.served:
        detail = "; ".join(plugin.collect_errors) or f"pytest exited with code {int(code)} before running tests"
        channel.send({"event": "fatal", "message": detail})


if __name__ == "__main__":
    main()
