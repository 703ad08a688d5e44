"""Launch-level coverage under the triton interpreter: tracing paused for each launch, each test credited with the
lines of every kernel it ran (a superset of what line tracing sees, at a fraction of its cost)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def _plus(x):
    return x + 1


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, _plus(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@triton.jit
def never_launched(x_ptr):
    tl.store(x_ptr, 0)
'''

PROBE = '''
import inspect, os, sys
sys.path.insert(0, {folder!r})
import torch, kern
from teeth.workers.kernel_launches import kernel_launches

traced = []
def tracer(frame, event, arg):
    if frame.f_code.co_filename == kern.__file__:
        traced.append(event)
    return tracer

launches = kernel_launches()
assert launches is not None
x = torch.zeros(8)
with launches.installed():
    with launches.test("t::launches"):
        sys.settrace(tracer)
        kern.add_one[(1,)](x, 8, BLOCK=8)
        sys.settrace(None)
assert x.tolist() == [1.0] * 8
assert traced == [], traced  # no call or line event of the kernel's file while it ran
tests = {{"t::launches": {{"lines": {{}}}}, "t::other": {{"lines": {{}}}}}}
launches.credit(tests, {{os.path.realpath(kern.__file__)}})
lines = set(tests["t::launches"]["lines"][os.path.realpath(kern.__file__)])
def span(fn):
    source, start = inspect.getsourcelines(fn)
    return set(range(start, start + len(source)))
assert span(kern.add_one.fn) <= lines and span(kern._plus.fn) <= lines, lines  # the device function too
assert not span(kern.never_launched.fn) & lines
assert tests["t::other"]["lines"] == {{}}
sys.settrace(tracer)
kern.add_one[(1,)](x, 8, BLOCK=8)  # uninstalled: traced line by line again
sys.settrace(None)
assert "line" in traced
print("ok")
'''


def test_a_launch_is_untraced_and_credits_its_kernels_lines(tmp_path):
    pytest.importorskip("triton")
    (tmp_path / "kern.py").write_text(KERNEL)
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(PROBE.format(folder=str(tmp_path)))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-3000:]


def test_without_the_interpreter_there_is_no_recorder(monkeypatch):
    from teeth.workers.kernel_launches import kernel_launches

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert kernel_launches() is None
