"""Mutants start from a clean state: what the baseline's tests leave behind (a functools cache, a module's memo
dict, a class attribute) never reaches a mutant, so warm verdicts equal cold ones and hand-applied ones."""

from __future__ import annotations

import functools
import sys
import types

from tests.helpers.cli import results_of

from teeth.workers.apply import prepare_mutant


def _statuses(teeth, root, execution: str) -> dict[str, str]:
    done = teeth("run", "--target", "memo", "--no-cache", "--execution", execution, cwd=root)
    assert done.returncode in (0, 1), done.stderr
    return {r["mutant"]: r["status"] for r in results_of(teeth, root)}


def test_a_memoised_functions_mutants_are_killed_warm_as_they_are_cold(project, teeth):
    """`square`'s cache is filled while the tests are collected, `cube`'s by the baseline only: x * x -> x / x
    is what `assert square(3) == 9` kills by hand."""
    root = project("memoised_when_mutated")
    warm = _statuses(teeth, root, "warm")
    by_function = {}
    for row in results_of(teeth, root):
        by_function.setdefault(row["function"], set()).add(row["status"])
    assert by_function["square"] == {"killed"} and by_function["cube"] == {"killed"}, by_function
    assert warm == _statuses(teeth, root, "cold")


def test_a_module_memo_dict_and_a_class_attribute_do_not_outlive_the_baseline(project, teeth):
    root = project("module_memo")
    warm = _statuses(teeth, root, "warm")
    cold = _statuses(teeth, root, "cold")
    assert warm == cold
    killed = [m for m, status in warm.items() if status == "killed"]
    assert len(killed) >= 5, warm


def test_swapping_a_cached_functions_code_clears_its_cache(tmp_path):
    module = types.ModuleType("cached_for_test")
    module.__file__ = str(tmp_path / "cached_for_test.py")
    source = "import functools\n\n@functools.lru_cache\ndef square(x):\n    return x * x\n"
    (tmp_path / "cached_for_test.py").write_text(source)
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    sys.modules[module.__name__] = module
    try:
        assert module.square(3) == 9
        prepare_mutant(module.__file__, "square", source.replace("x * x", "x / x"))()
        assert module.square(3) == 1.0 and isinstance(module.square, functools._lru_cache_wrapper)
    finally:
        del sys.modules[module.__name__]
