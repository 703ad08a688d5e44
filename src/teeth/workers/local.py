"""The local backend: one warm worker process per profile that forks a child per mutant."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator

from teeth.config import Target
from teeth.errors import WorkerFailed
from teeth.profiles import Profile
from teeth.shadowing import refuse_shadowed
from teeth.workers.base import Backend, Result, Task

WORKER_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTORCH_NVML_BASED_CUDA_CHECK": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def pytest_args(target: Target, profile: Profile) -> list[str]:
    """Arguments for the worker's pytest: the target's tests, never writing into the tree."""
    args = [*target.tests, "--rootdir", str(target.root), "-p", "no:cacheprovider", "-q"]
    for ini in ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
        if (target.root / ini).is_file():
            args += ["-c", str(target.root / ini)]
            break
    # Last, so it wins over the user's own --tb: a failure is recorded as one line, and pytest's full traceback
    # representation made a kill cost 16x its killing test on the batcher (5x with this; benchmarks/bench_field.py).
    return [*args, *target.pytest_args, *profile.pytest_args, "--tb=line"]


class LocalBackend(Backend):
    def __init__(self, target: Target, profile: Profile, jobs: int):
        self.jobs = max(1, jobs)
        self.log = tempfile.NamedTemporaryFile(prefix="teeth-worker-", suffix=".log", delete=False)
        spec = {"args": pytest_args(target, profile), "files": [str(f) for f in target.files]}
        env = {**os.environ, **WORKER_ENV, **profile.env}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "teeth.workers.zygote", json.dumps(spec)],
            cwd=target.root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, start_new_session=True,
        )
        first = self._read()
        if first.get("event") != "collected":
            self.close()
            raise WorkerFailed(f"worker for profile {profile.name}: {first.get('message', first)}")
        self.tests = first["tests"]
        if not self.tests:
            self.close()
            raise WorkerFailed(f"worker for profile {profile.name}: no tests collected from {', '.join(target.tests)}")

    def _send(self, message: dict) -> None:
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            raise WorkerFailed(f"the warm worker exited (code {self.process.returncode}); last lines of its log "
                               f"{self.log.name}: {self.log_tail()}")
        return json.loads(line)

    def log_tail(self, lines: int = 3) -> str:
        with open(self.log.name, errors="replace") as handle:
            return " | ".join(handle.read().strip().splitlines()[-lines:])

    def baseline(self, timeout: float, tests: list[str] | None = None) -> dict[str, dict]:
        self._send({"cmd": "baseline", "timeout": timeout, "tests": tests})
        message = self._read()
        if message.get("event") == "fatal":
            raise WorkerFailed(message["message"])
        if message.get("status") != "baseline":
            raise WorkerFailed(f"the baseline run did not finish: {message.get('detail', message.get('status'))}")
        refuse_shadowed(message.get("shadowed"))
        return message["tests"]

    def execute(self, tasks: Iterable[Task]) -> Iterator[Result]:
        pending = iter(tasks)
        in_flight = 0
        for task in pending:
            self._submit(task)
            in_flight += 1
            if in_flight >= self.jobs:
                break
        while in_flight:
            message = self._read()
            in_flight -= 1
            for task in pending:
                self._submit(task)
                in_flight += 1
                break
            yield Result(id=message["id"], status=message["status"], duration=message.get("duration", 0.0),
                         test=message.get("test"), check=message.get("check"), detail=message.get("detail"),
                         signal=message.get("signal"), tests_run=message.get("tests_run"),
                         test_seconds=message.get("test_seconds"))

    def _submit(self, task: Task) -> None:
        self._send({"cmd": "mutant", "id": task.id, "path": task.path, "swap": task.swap, "code": task.code,
                    "tests": task.tests, "timeout": task.timeout})

    def close(self) -> None:
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
        self.log.close()
        os.unlink(self.log.name)
