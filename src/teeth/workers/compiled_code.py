"""Coverage of the target's code that torch compiles (TorchScript, torch.compile): coverage.py never sees it run.

A function compiled by `torch.jit.script` runs as a TorchScript graph, and one compiled by `torch.compile` as the
graph and bytecode dynamo made of it: Python's tracer sees neither, so per-test coverage would never show the test
that runs them, and their mutants would skip the one test that kills them. Here each test of the baseline is
credited instead with what torch compiled while it ran:

- TorchScript reads the source of every function and class it compiles, callees included (recursively), through
  `torch._sources.get_source_lines_and_file`: each source it reads from a target file credits that test with the
  lines read (the whole function: its compiled body runs as one);
- dynamo counts the frames it compiles, but does not say which callees it inlined: a test during which dynamo
  compiled anything is credited with every line of the target's files (sound, not precise);
- what was compiled before the baseline's first test (a test module scripting the target at import) is found in
  TorchScript's caches and credited to every test, as module-level code is.

Torch's compilation caches are emptied before each test (`forget_compiled`), so that a test that compiles what an
earlier test compiled is credited too; a mutant's child empties them after the swap, so the mutant is compiled.
"""

from __future__ import annotations

import inspect
import os
import sys
from contextlib import contextmanager


def forget_compiled() -> None:
    """Empty torch's caches of compiled Python code (TorchScript's functions and module types, as torch's own tests
    do between tests, and dynamo's), when torch is imported: the next compile reads the source again (a mutant's,
    once swapped)."""
    for cache in _torchscript_caches():  # TorchScript classes stay: objects made at import need them
        cache.clear()
    recursive = sys.modules.get("torch.jit._recursive")
    if hasattr(recursive, "concrete_type_store") and hasattr(recursive, "ConcreteTypeStore"):
        recursive.concrete_type_store = recursive.ConcreteTypeStore()
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None and hasattr(dynamo, "reset"):
        dynamo.reset()


class CompiledCode:
    """Records what torch compiles while the baseline runs; `credit(tests)` adds it to each test's lines."""

    def __init__(self, files: list[str]):
        self.wanted = {os.path.realpath(f) for f in files}
        self.read: dict[str, dict[str, set[int]]] = {}  # test -> real path -> lines TorchScript compiled
        self.dynamo: set[str] = set()  # tests during which dynamo compiled a frame
        self.current: str | None = None
        self.seen: list[str] = []
        self.before = _compiled_before(self.wanted)

    @contextmanager
    def installed(self):
        """Spy on the sources TorchScript reads, if torch is imported."""
        original = getattr(sys.modules.get("torch._sources"), "get_source_lines_and_file", None)
        if original is None:
            yield self
            return
        recorder = self

        def recorded(obj, *args, **kwargs):
            found = original(obj, *args, **kwargs)
            lines, first, filename = found
            if recorder.current is not None and filename and os.path.realpath(filename) in recorder.wanted:
                spans = recorder.read.setdefault(recorder.current, {})
                spans.setdefault(os.path.realpath(filename), set()).update(range(first, first + len(lines)))
            return found

        holders = [m for name, m in list(sys.modules.items())  # the modules that imported the function by name
                   if (name == "torch" or name.startswith("torch.")) and m is not None
                   and getattr(m, "get_source_lines_and_file", None) is original]
        for module in holders:
            module.get_source_lines_and_file = recorded
        try:
            yield self
        finally:
            for module in holders:
                module.get_source_lines_and_file = original

    @contextmanager
    def test(self, nodeid: str):
        forget_compiled()
        self.seen.append(nodeid)
        self.current, frames = nodeid, _dynamo_frames()
        try:
            yield
        finally:
            self.current = None
            if _dynamo_frames() > frames:
                self.dynamo.add(nodeid)

    def tests(self) -> list[str]:
        """The tests that ran target code torch compiled (every test, if some was compiled before them)."""
        if any(self.before.values()):
            return list(dict.fromkeys([*self.read, *self.dynamo, *self.seen]))
        return list(dict.fromkeys([*self.read, *self.dynamo]))

    def credit(self, tests: dict[str, dict]) -> None:
        """Each test's lines gain what torch compiled of the target's files while it ran (all of them for dynamo),
        and what was compiled before the tests."""
        every = _every_line(self.wanted) if self.dynamo else {}
        for nodeid, record in tests.items():
            lines = record["lines"]
            gained = [self.before, self.read.get(nodeid, {}), every if nodeid in self.dynamo else {}]
            for spans in gained:
                for path, span in spans.items():
                    lines[path] = sorted({*lines.get(path, ()), *span})


def _torchscript_caches() -> list:
    """TorchScript's caches of compiled free functions (weak dicts keyed by the Python function), if loaded."""
    state = sys.modules.get("torch.jit._state")
    caches = [getattr(state, name, None) for name in ("_jit_caching_layer", "_jit_function_overload_caching")]
    return [cache for cache in caches if hasattr(cache, "clear") and hasattr(cache, "keys")]


def _dynamo_frames() -> int:
    """How many frames dynamo has compiled in this process (0 before it is imported)."""
    utils = sys.modules.get("torch._dynamo.utils")
    counters = getattr(utils, "counters", None)
    return counters["frames"]["total"] if counters is not None else 0


def _compiled_before(wanted: set[str]) -> dict[str, set[int]]:
    """The lines of target functions and module classes TorchScript compiled before now (found in its caches)."""
    recursive = sys.modules.get("torch.jit._recursive")
    objects = [key for cache in _torchscript_caches() for key in list(cache.keys())]
    objects += list(getattr(getattr(recursive, "concrete_type_store", None), "type_store", None) or ())
    spans: dict[str, set[int]] = {}
    for obj in objects:
        try:
            source, first = inspect.getsourcelines(obj)
            path = os.path.realpath(inspect.getsourcefile(obj) or "")
        except (OSError, TypeError, ValueError, SyntaxError):
            continue
        if path in wanted:
            spans.setdefault(path, set()).update(range(first, first + len(source)))
    return spans


def _every_line(wanted: set[str]) -> dict[str, set[int]]:
    spans = {}
    for path in wanted:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                spans[path] = set(range(1, sum(1 for _ in handle) + 1))
        except OSError:
            continue
    return spans
