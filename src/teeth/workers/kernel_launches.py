"""Launch-level coverage of @triton.jit code under the triton interpreter (TRITON_INTERPRET=1).

Under coverage.py, every Python call the interpreter makes while it runs a launch (millions: it emulates each
program instance in numpy) goes through the tracer, and each kernel line is traced once per program instance: a
test that launches attention took 20.8 s under coverage against 10.2 s without. Here tracing is paused for the
length of each launch, and each test is credited instead with every line of each kernel (or device function) it
ran: a kernel's lines all run in every program instance anyway, apart from `if` on constexprs.
"""

from __future__ import annotations

import inspect
import os
import sys
from contextlib import contextmanager


class KernelLaunches:
    """Patches the interpreter while the baseline runs; `credit(tests, wanted)` adds the kernels' lines."""

    def __init__(self):
        from triton.runtime import interpreter

        self.interpreter = interpreter
        interpreter.InterpretedFunction.run, interpreter.InterpretedFunction.rewrite  # noqa: B018 - or fail here
        self.ran: dict[str, set] = {}
        self.current: set | None = None

    @contextmanager
    def installed(self):
        function = self.interpreter.InterpretedFunction
        run, rewrite = function.run, function.rewrite
        launches = self

        def untraced_run(self, *args, **kwargs):
            tracer = sys.gettrace()
            sys.settrace(None)
            try:
                return run(self, *args, **kwargs)
            finally:
                sys.settrace(tracer)

        def recorded_rewrite(self):  # every kernel a launch runs, and every device function it calls
            if launches.current is not None:
                launches.current.add(self.fn)
            return rewrite(self)

        function.run, function.rewrite = untraced_run, recorded_rewrite
        try:
            yield self
        finally:
            function.run, function.rewrite = run, rewrite

    @contextmanager
    def test(self, nodeid: str):
        self.current = self.ran.setdefault(nodeid, set())
        try:
            yield
        finally:
            self.current = None

    def credit(self, tests: dict[str, dict], wanted: set[str]) -> None:
        """Each test's lines gain every line of the kernels it ran that are in `wanted` (real paths)."""
        spans: dict = {}
        for nodeid, functions in self.ran.items():
            lines = tests.get(nodeid, {}).get("lines")
            if lines is None:
                continue
            for fn in functions:
                if fn not in spans:
                    spans[fn] = _span(fn)
                path, span = spans[fn]
                if path in wanted:
                    lines[path] = sorted({*lines.get(path, ()), *span})


def _span(fn) -> tuple[str | None, range]:
    try:
        source, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None, range(0)
    return os.path.realpath(fn.__code__.co_filename), range(start, start + len(source))


def kernel_launches() -> KernelLaunches | None:
    """A recorder when this process interprets triton kernels, else None."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        return None
    try:
        return KernelLaunches()
    except (ImportError, AttributeError):
        return None
