"""The local backend: one warm worker process per profile that forks a child per mutant."""

from __future__ import annotations

import os
import secrets
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator

from teeth.config.targets import Target
from teeth.core import Baseline, MutantScenario, Outcome, Status
from teeth.errors import BaselineFailed, ConfigError, TeethError, WorkerFailed
from teeth.config.profiles import Profile
from teeth.workers.shadowing import refuse_shadowed
from teeth.workers.base import Backend
from teeth.workers.protocol import BaselineDone, Collected, Fatal, InfectionDone, Message, WorkerSpec, encode, unframe
from teeth.workers.sandbox import abi_version
from teeth.workers.scratch import Scratch

CLOSE_GRACE = 2.0  # seconds a worker has to stop its children once its stdin closes, before SIGKILL

WORKER_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTORCH_NVML_BASED_CUDA_CHECK": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def pytest_args(target: Target, profile: Profile, scratch: Scratch | None = None) -> list[str]:
    """Arguments for the worker's pytest: the target's tests (in the scratch copy of its root, when given)."""
    root = scratch.tree if scratch else target.root
    args = [*target.tests, "--rootdir", str(root), "-p", "no:cacheprovider", "-q"]
    for ini in ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
        if (target.root / ini).is_file():
            args += ["-c", str(root / ini)]
            break
    # Last, so it wins over the user's own --tb: a failure is recorded as one line, and pytest's full traceback
    # representation made a kill cost 16x its killing test on the batcher (5x with this; benchmarks/bench_field.py).
    return [*args, *target.pytest_args, *profile.pytest_args, "--tb=line"]


class BaselineTimedOut(BaselineFailed):
    def __init__(self, timeout: float, target: Target):
        TeethError.__init__(self, f"baseline failed: the unmutated tests did not finish within {timeout:g} s "
                                  f"(baseline_timeout of target {target.name!r}); a test hangs before any mutation")
        self.failing = []


class LocalBackend(Backend):
    """Tests run in a scratch copy of the target's root (`Scratch`); with `target.sandbox`, every process of the
    worker may write only there and to /dev (`restrict_writes`). `protection` says which of the two held."""

    def __init__(self, target: Target, profile: Profile, jobs: int, overlay: dict[str, str] | None = None):
        """`overlay`: files of the scratch copy given another text (Scratch)."""
        self.jobs = max(1, jobs)
        self.target = target
        self.scratch = Scratch(target.root, profile.name, sandboxed=target.sandbox and abi_version() >= 1,
                               overlay=overlay)
        self.buffer = b""
        files = [str(f) for f in target.files]
        copies = {f: copy for f in files if (copy := self.scratch.inside(f)) != f}
        self.token = f"\x1eteeth-{secrets.token_hex(8)}:"
        spec = WorkerSpec(args=pytest_args(target, profile, self.scratch), files=files, copies=copies,
                          token=self.token, execution=profile.execution,
                          interpreter={"bounds_check": profile.checks_bounds} if profile.interpreted else None,
                          writable=[str(self.scratch.dir)] if target.sandbox else None,
                          concurrency=target.concurrency)
        env = {**os.environ, **WORKER_ENV, **profile.env, **self.scratch.env()}
        with open(self.scratch.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "teeth.workers.pytest_runner", encode(spec)],
                cwd=self.scratch.tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=log, start_new_session=True,
            )
        first = self._read(time.monotonic() + target.baseline_timeout)
        if first is None:
            self.close()
            raise WorkerFailed(f"worker for profile {profile.name}: collecting the tests took longer than "
                               f"{target.baseline_timeout:g} s (baseline_timeout)")
        if not isinstance(first, Collected):
            self.close()
            raise WorkerFailed(f"worker for profile {profile.name}: {getattr(first, 'message', first)}")
        self.tests = first.tests
        outer = first.protection or "off (sandbox = false)"
        if self.scratch.links_out and not outer.startswith("landlock"):  # kept for a sandbox that did not hold
            self.close()
            raise ConfigError(f"{target.root / self.scratch.links_out[0]} is a symbolic link out of the target's "
                              f"root and the sandbox did not hold ({outer}); remove the link")
        self.protection = f"scratch copy of {target.root.name}/ ({self.scratch.copy_seconds:.2f} s); writes: {outer}"
        if not self.tests:
            self.close()
            raise WorkerFailed(f"worker for profile {profile.name}: no tests collected from {', '.join(target.tests)}")

    def _send(self, message: Message) -> None:
        self.process.stdin.write((encode(message) + "\n").encode())
        self.process.stdin.flush()

    def _read(self, deadline: float | None = None) -> Message | None:
        """The worker's next message; None past `deadline` (time.monotonic())."""
        fd, token = self.process.stdout.fileno(), self.token.encode()
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = unframe(line, token)
                if message is not None:  # anything else on the channel was written by a test, not the worker
                    return message
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.process.wait()
                raise WorkerFailed(f"the warm worker exited (code {self.process.returncode}); last lines of its "
                                   f"log: {self.log_tail()}")
            self.buffer += chunk

    def log_tail(self, lines: int = 3) -> str:
        try:
            with open(self.scratch.log, errors="replace") as handle:
                return " | ".join(handle.read().strip().splitlines()[-lines:]) or "(empty)"
        except OSError:
            return "(no log)"

    def baseline(self, timeout: float, tests: list[str] | None = None) -> dict[str, dict]:
        self._send(Baseline(tests=tests, timeout=timeout, retries=self.target.baseline_retries))
        message = self._read(time.monotonic() + timeout + 5)  # the worker's own deadline for its child comes first
        if message is None or isinstance(message, Outcome) and message.status is Status.TIMEOUT:
            self.close()
            raise BaselineTimedOut(timeout, self.target)
        if isinstance(message, Fatal):
            raise WorkerFailed(message.message)
        if isinstance(message, Outcome) and message.killed_by:  # a test crashed or ended the baseline's child
            raise BaselineFailed([message.killed_by],
                                 reasons={message.killed_by: f"it ended the process: {message.detail}"})
        if not isinstance(message, BaselineDone):  # the baseline's child raised outside any test
            reason = message.detail or message.status if isinstance(message, Outcome) else type(message).__name__
            raise WorkerFailed(f"the baseline run did not finish: {reason}")
        shadowed = message.shadowed
        refuse_shadowed([self.scratch.outside(path) for path in shadowed] if shadowed else None)  # paths the user has
        return message.tests

    def infection(self, scenario) -> InfectionDone | None:
        self._send(scenario)
        message = self._read()  # the worker's deadline for its child ends it: a timeout comes back as an Outcome
        if isinstance(message, Fatal):
            raise WorkerFailed(message.message)
        return message if isinstance(message, InfectionDone) else None

    def execute(self, scenarios: Iterable[MutantScenario]) -> Iterator[Outcome]:
        pending = iter(scenarios)
        in_flight = 0
        for scenario in pending:
            self._send(scenario)
            in_flight += 1
            if in_flight >= self.jobs:
                break
        while in_flight:
            message = self._read()
            if isinstance(message, Fatal):
                raise WorkerFailed(message.message)
            if not isinstance(message, Outcome):
                raise WorkerFailed(f"the worker answered a mutant with {type(message).__name__}")
            in_flight -= 1
            for scenario in pending:
                self._send(scenario)
                in_flight += 1
                break
            yield message

    def close(self) -> None:
        """Stop the worker, every process its tests left behind, and remove the scratch area."""
        try:
            self.process.stdin.close()  # the worker kills its children and what they left (supervisor.kill_all)
            self.process.wait(timeout=CLOSE_GRACE)
        except (BrokenPipeError, OSError, subprocess.TimeoutExpired):
            pass
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except (BrokenPipeError, OSError):
                pass
        self.scratch.remove()


class LocalBackends:
    """The local backends: a warm worker process on this machine per profile."""

    def open(self, target: Target, profile: Profile, jobs: int, overlay: dict[str, str] | None = None) -> LocalBackend:
        return LocalBackend(target, profile, jobs, overlay)

    def unavailable_reason(self, profile: Profile) -> str | None:
        return profile.unavailable_reason()

    def close(self) -> None:
        """Nothing to release: each backend stops its own worker."""
