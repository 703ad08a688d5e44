"""The worker's fork supervisor: one forked child per scenario, each with its deadline (and one per test, armed when
the child says which test it runs); a child's exit becomes a message (its result, a timeout, a crash kill or a
worker failure) for the backend."""

from __future__ import annotations

import ctypes
import gc
import os
import selectors
import signal
import sys
import time
from collections.abc import Callable

from teeth.core import Baseline, Check, Infection, MutantScenario, Outcome, Scenario, Status, WorkerFailure
from teeth.workers.apply import MutantNotApplied
from teeth.workers.protocol import BaselineDone, Fatal, Message, Quit, Running, decode, frame, unframe
from teeth.workers.random_state import RandomStates

READ_CHUNK = 1 << 16


class Channel:
    """JSON lines with the backend, on private copies of stdin and stdout (pytest captures fd 0-2). Each line
    starts with the run's token: the baseline's tests run in this process, and what they write to a descriptor
    they find open is not taken for a message."""

    def __init__(self, in_fd: int, out_fd: int, token: str = ""):
        self.in_fd, self.fd, self.token = in_fd, out_fd, token.encode()

    def send(self, message: Message) -> None:
        data = frame(self.token, message)
        while data:
            data = data[os.write(self.fd, data):]


class Child:
    """One forked process running one scenario: its own process group, its result pipe and its exit (a pidfd).
    `test_deadlines`: each test of a mutant also has its own deadline (`MutantScenario.test_timeouts`)."""

    def __init__(self, pid: int, fd: int, pidfd: int, scenario: Scenario, token: bytes, test_deadlines: bool = True):
        self.pid, self.fd, self.pidfd, self.scenario, self.token = pid, fd, pidfd, scenario, token
        self.deadline = time.monotonic() + scenario.timeout
        self.data = b""
        self.started = time.perf_counter()
        self.timed_out = False
        self.budgets: dict[str, float] = (getattr(scenario, "test_timeouts", None) or {}) if test_deadlines else {}
        self.running: Running | None = None  # the test it runs now, with a budget of its own
        self.test_deadline: float | None = None  # when that test's budget runs out
        self.test_timed_out: tuple[str, float] | None = None  # (the test, its budget) that ran out

    def heard(self) -> None:
        """New data on the pipe: a `Running` for a test with a budget arms that test's deadline; anything else (a
        test without one, the result) disarms it, leaving the scenario's."""
        message = self.last_message() if self.budgets else None
        if isinstance(message, Running) and message.test in self.budgets:
            if message != self.running:
                self.running = message
                self.test_deadline = time.monotonic() + self.budgets[message.test]
        else:
            self.running, self.test_deadline = None, None

    def next_deadline(self) -> float:
        return self.deadline if self.test_deadline is None else min(self.deadline, self.test_deadline)

    def last_message(self) -> Message | None:
        """The last framed message in the pipe (a `Running`, or the result): a test may write anything to file
        descriptors it finds open."""
        return unframe(self.data, self.token)


class CudaInitialised(Exception):
    """Something in the worker initialised CUDA: it must not fork."""


def cuda_initialised() -> bool:
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    return bool(cuda is not None and cuda.is_initialized())


def die_with_parent() -> None:
    """PR_SET_PDEATHSIG: this process gets SIGKILL when the process that started it dies (Linux)."""
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """PR_SET_CHILD_SUBREAPER: a descendant whose parent dies re-parents to this process, not to init (Linux), so
    that a helper the tests started (in its own session, with an environment of its own) is still found."""
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Supervisor:
    """Reads scenarios from the backend, forks a child for each, and reports each child's result, timeout or crash.
    `runner` runs the tests (teeth.workers.pytest_runner.PytestRunner); the supervisor only forks and watches."""

    def __init__(self, runner, channel: Channel, execution: str = "warm"):
        """`execution`: "warm" runs the baseline here; "cold" forks it too, so this process never runs a test."""
        self.runner, self.channel, self.execution = runner, channel, execution
        self.children: dict[int, Child] = {}  # by the pidfd that reports its exit
        self.selector = selectors.DefaultSelector()
        self.stdin_buffer = b""
        become_subreaper()
        self.own = self._child_pids()  # what this process started itself (never a test's helper)

    def fork(self, scenario: Scenario, work: Callable[[Callable[[Running], None]], Message]) -> None:
        """Run `work(report)` in a child; `report` frames a `Running` on the child's pipe."""
        if cuda_initialised():  # a forked CUDA context is unusable: refuse rather than hand one to a child
            raise CudaInitialised("this worker has initialised CUDA; it cannot fork")
        read_fd, write_fd = os.pipe()
        token = b"\x00teeth-result-" + os.urandom(8).hex().encode() + b":"
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.setpgid(0, 0)  # its own group: killed as a group with every helper its tests start
            die_with_parent()
            become_subreaper()  # a helper that leaves the group stays below this child while it runs
            # What the tests could reach by writing to a stray descriptor: the backend's channel, the other
            # children's pipes. Gone; only its own result pipe is left, and its result is framed by a token.
            for fd in (read_fd, self.channel.in_fd, self.channel.fd,
                       *(c.fd for c in self.children.values()), *self.children):
                os.close(fd)
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            try:
                result = work(lambda running: os.write(write_fd, frame(token, running)))
            except BaseException as exc:  # noqa: BLE001 - the child reports, whatever happened
                result = Outcome.failed(scenario.ident, WorkerFailure.RAISED, f"{type(exc).__name__}: {exc}"[:300])
            data = frame(token, result)
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
        # Cold, a child's tests pay what the warm path pays once for all (imports, CUDA's start, compiling the kernels
        # they launch), which their baseline times do not hold: only the scenario's deadline applies.
        child = Child(pid, read_fd, pidfd, scenario, token, test_deadlines=self.execution == "warm")
        self.children[pidfd] = child
        self.selector.register(read_fd, selectors.EVENT_READ, ("pipe", child))
        self.selector.register(pidfd, selectors.EVENT_READ, ("exit", child))

    def handle(self, message: Message) -> bool:
        """Act on one message of the backend; False: stop reading (quit, or a fatal state reported)."""
        try:
            return self._handle(message)
        except CudaInitialised as exc:
            self.channel.send(Fatal(str(exc)))
            return False

    def _handle(self, message: Message) -> bool:
        if isinstance(message, Quit):
            return False
        if isinstance(message, Baseline):
            # In a child, like every mutant: whatever the tests leave behind (a filled functools cache, a module's
            # memo dict, a class attribute) dies with it, and each mutant forks from this process as collection
            # left it. Warm, this process then imports what the baseline imported (`after_baseline`).
            self.fork(message, lambda report: self.runner.baseline(message.tests, report, message.retries))
        elif isinstance(message, Infection):
            self.fork(message, lambda report: self.runner.infection(message, report))
        elif isinstance(message, MutantScenario):
            try:
                put_in_place = self.runner.prepare(message)
            except MutantNotApplied as exc:
                self.channel.send(Outcome.failed(message.id, WorkerFailure.NOT_APPLIED, str(exc)))
                return True
            self.fork(message, lambda report: self.runner.mutant(message, put_in_place, report))
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
            child.heard()

    def finish(self, child: Child) -> None:
        """The child exited: its result is what it wrote; its group (helpers its tests started) is killed."""
        self._drain(child)
        kill_group(child.pid)
        for fd in (child.fd, child.pidfd):
            if fd in self.selector.get_map():
                self.selector.unregister(fd)
            os.close(fd)
        del self.children[child.pidfd]
        _, status = os.waitpid(child.pid, 0)
        self.kill_orphans()
        duration = time.perf_counter() - child.started
        result = child.last_message()
        running = result if isinstance(result, Running) else None  # only the test it was running: it did not finish
        if isinstance(result, BaselineDone):
            self.channel.send(BaselineDone(result.tests, result.shadowed))
            fatal = self.after_baseline(result)
            self.own = self._child_pids() - {c.pid for c in self.children.values()}
            if fatal is not None:
                self.channel.send(fatal)
            return
        self.channel.send(self._verdict(child, status, duration, None if running else result, running))

    def after_baseline(self, done: BaselineDone) -> Fatal | None:
        """The baseline's child imported modules lazily: import them here too, so that mutants find them (the
        target's modules) and do not pay for them again (warm: every module it imported; importing runs no test).
        Warm, the heap is then frozen, so that children leave its pages shared. Each test's random state in the
        baseline is kept here, for every child forked later to restore."""
        self.runner.random = RandomStates.decoded(done.random_states)
        self.runner.import_modules(done.modules or [])
        if self.execution == "cold":
            return None
        self.runner.import_modules(done.imported or [])
        gc.collect()
        gc.freeze()
        if cuda_initialised():
            return Fatal("importing what the baseline imported initialised CUDA; a process that has initialised "
                         "CUDA cannot be forked for mutants (a profile with execution = \"cold\" imports only the "
                         "target's modules)")
        return None

    def _verdict(self, child: Child, status: int, duration: float, result: Message | None,
                 running: Running | None) -> Message:
        ident = child.scenario.ident
        if child.test_timed_out:
            test, budget = child.test_timed_out
            return Outcome(ident, Status.TIMEOUT, duration=duration, killed_by=test,
                           tests_run=running.tests_run if running else None,
                           detail=f"no result after {duration:.1f}s: {test} ran past its own budget of {budget:.2f} s"
                                  f" (the mutant's was {child.scenario.timeout:.1f} s)")
        if child.timed_out:
            return Outcome(ident, Status.TIMEOUT, duration=duration, detail=f"no result after {duration:.1f}s"
                           + (f" (running {running.test})" if running else "")
                           + f"; its budget was {child.scenario.timeout:.1f} s")
        if isinstance(result, Outcome):
            return result.replace(duration=duration)
        if result is not None:
            return result
        if os.WIFSIGNALED(status) and not isinstance(child.scenario, Baseline):
            # The baseline ran without crashing: the mutant's tests crashed the process (a kill, check `crash`).
            sig = os.WTERMSIG(status)
            return Outcome(ident, Status.KILLED, check=Check.CRASH, signal=sig, duration=duration,
                           detail=f"crashed with {signal.Signals(sig).name}",
                           killed_by=running.test if running else None,  # the test that crashed it
                           tests_run=running.tests_run if running else None)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            return Outcome.failed(ident, WorkerFailure.CRASHED, f"crashed with {signal.Signals(sig).name}",
                                  signal=sig, duration=duration,
                                  killed_by=running.test if running else None)  # the baseline's test that crashed
        return Outcome.failed(ident, WorkerFailure.NO_RESULT,
                              f"exited with code {os.WEXITSTATUS(status)} without a result",
                              duration=duration, killed_by=running.test if running else None)

    def serve(self) -> None:
        self.selector.register(self.channel.in_fd, selectors.EVENT_READ, None)
        running = True
        while running or self.children:
            now = time.monotonic()
            for child in self.children.values():
                if not child.timed_out and child.test_deadline is not None and now >= child.test_deadline:
                    self._drain(child)  # the test may have just finished: its deadline moves on, or is gone
                    if child.test_deadline is not None and now >= child.test_deadline:
                        child.test_timed_out = (child.running.test, child.budgets[child.running.test])
                        child.timed_out = True
                        kill_group(child.pid)
                if not child.timed_out and now >= child.deadline:
                    child.timed_out = True
                    kill_group(child.pid)
            deadlines = [c.next_deadline() - now for c in self.children.values() if not c.timed_out]
            for key, _ in self.selector.select(timeout=max(0.0, min(deadlines)) if deadlines else None):
                if key.data is None:
                    chunk = os.read(self.channel.in_fd, READ_CHUNK)
                    if not chunk:  # the backend is gone: stop everything
                        self.kill_all()
                        return
                    self.stdin_buffer += chunk
                    while b"\n" in self.stdin_buffer and running:
                        line, self.stdin_buffer = self.stdin_buffer.split(b"\n", 1)
                        running = self.handle(decode(line))
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
            kill_group(child.pid)
            try:
                os.waitpid(child.pid, 0)
            except ChildProcessError:
                pass
        self.children.clear()
        self.kill_orphans()

    @staticmethod
    def _child_pids() -> set[int]:
        """This process's children. Once per finished child: from the kernel's per-thread lists of children (Linux),
        a read of a file or two; psutil elsewhere, which reads every process on the machine to find them (25 ms
        with 140 processes, paid by every mutant in turn)."""
        tasks = f"/proc/{os.getpid()}/task"
        try:
            threads = os.listdir(tasks)
        except OSError:
            threads = []
        pids: set[int] = set()
        found = False
        for thread in threads:
            try:
                with open(f"{tasks}/{thread}/children", "rb") as handle:
                    pids.update(map(int, handle.read().split()))
                found = True
            except OSError:  # a thread that ended, or a kernel without the lists
                continue
        if found:
            return pids
        import psutil  # after collection: the worker's start pays nothing for it

        return {p.pid for p in psutil.Process().children()}

    def kill_orphans(self) -> None:
        """SIGKILL what a finished child left behind: its descendants re-parented here (a subreaper), whatever their
        process group, session or environment. A scenario still running keeps its own (it is a subreaper too)."""
        for _ in range(64):  # a killed orphan's own children re-parent here in turn
            running = {c.pid for c in self.children.values()}
            orphans = self._child_pids() - running - self.own
            if not orphans:
                return
            for pid in orphans:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for pid in orphans:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass

