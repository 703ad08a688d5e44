"""Code torch compiles runs where coverage.py cannot see: a test that compiles the target (torch.jit.script, its
callees with it) is credited with what it compiled, and a mutant is what TorchScript compiles, as by hand."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from tests.helpers.cli import results_of

from teeth.workers.compiled_code import CompiledCode

torch = pytest.importorskip("torch")

SOURCE = '''import torch


def offset(x: torch.Tensor) -> torch.Tensor:
    return x + 1


def scale(x: torch.Tensor) -> torch.Tensor:
    return offset(x) * 3


def unused(x: torch.Tensor) -> torch.Tensor:
    return x
'''


def _module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_test_that_scripts_a_function_is_credited_with_it_and_its_callees_each_time(tmp_path):
    path = tmp_path / "compiled_target.py"
    path.write_text(SOURCE)
    module = _module(path)
    compiled = CompiledCode([str(path)])
    tests = {"t::first": {"lines": {}}, "t::again": {"lines": {}}, "t::none": {"lines": {}}}
    with compiled.installed():
        for nodeid in tests:
            with compiled.test(nodeid):
                if nodeid != "t::none":  # the second compile of the same function is one too, not a cache hit
                    assert torch.jit.script(module.scale)(torch.ones(1)).item() == 6.0
    compiled.credit(tests)
    real = str(path.resolve())
    assert tests["t::first"]["lines"] == {real: [4, 5, 8, 9]}
    assert tests["t::again"]["lines"] == {real: [4, 5, 8, 9]}
    assert tests["t::none"]["lines"] == {}
    assert compiled.tests() == ["t::first", "t::again"]


def test_what_was_scripted_before_the_tests_is_credited_to_every_test(tmp_path):
    path = tmp_path / "compiled_early.py"
    path.write_text(SOURCE)
    module = _module(path)
    torch.jit.script(module.offset)  # as a test module scripting the target at import would
    compiled = CompiledCode([str(path)])
    tests = {"t::a": {"lines": {}}, "t::b": {"lines": {str(path.resolve()): [12]}}}
    with compiled.installed():
        for nodeid in tests:
            with compiled.test(nodeid):
                pass
    compiled.credit(tests)
    real = str(path.resolve())
    assert tests == {"t::a": {"lines": {real: [4, 5]}}, "t::b": {"lines": {real: [4, 5, 12]}}}
    assert compiled.tests() == ["t::a", "t::b"]  # the infection pass's probes cannot see them either


def test_a_scripted_target_is_covered_and_its_mutants_killed_as_by_hand(project, teeth):
    root = project("scripted_by_a_test")
    done = teeth("run", "--target", "scaled", cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    # by hand, each of these mutants written into scaled.py fails both tests (TorchScript compiles the mutant)
    assert len(rows) == 5 and {r["status"] for r in rows} == {"killed"}, rows
