"""Mutants are applied in memory: a function's code is swapped wherever the function object is held."""

from __future__ import annotations

import functools
import gc
import importlib
import sys
import textwrap
import weakref

import pytest

from teeth.workers.apply import MutantNotApplied, apply_mutant

ORIGINAL = textwrap.dedent('''\
    import functools

    SCALE = 2


    def traced(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper


    class Rows:
        width = 3

        def take(self, xs, start):
            return xs[start:start + 1]

        @staticmethod
        def double(x):
            return x * SCALE

        @traced
        def decorated(self, x):
            return x + 1


    def scaled(x):
        return x * SCALE
''')


@pytest.fixture
def module(tmp_path, monkeypatch):
    path = tmp_path / "applied_mod.py"
    path.write_text(ORIGINAL)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("applied_mod", None)
    mod = importlib.import_module("applied_mod")
    yield mod, str(path)
    sys.modules.pop("applied_mod", None)


def test_method_code_is_swapped_for_references_taken_before(module):
    mod, path = module
    take = mod.Rows.take  # held before the mutant is applied, as a test module would
    apply_mutant(path, "Rows.take", ORIGINAL.replace("xs[start:start + 1]", "xs[0:start + 1]"))
    assert take(mod.Rows(), [5, 6, 7], 1) == [5, 6]


def test_staticmethod_and_decorated_method_are_swapped(module):
    mod, path = module
    apply_mutant(path, "Rows.double", ORIGINAL.replace("return x * SCALE\n\n    @traced", "return x + SCALE\n\n    @traced"))
    assert mod.Rows.double(5) == 7
    apply_mutant(path, "Rows.decorated", ORIGINAL.replace("return x + 1", "return x - 1"))
    assert mod.Rows().decorated(5) == 4


def test_a_mutant_inside_a_decorators_wrapper_reaches_the_wrappers_made_at_import(module, request):
    """`traced` ran at import: `Rows.decorated` is its wrapper, a function with its own code object. A mutant of
    the wrapper's body swaps `traced` (the outermost function), and the wrappers already made must run it too."""
    mod, path = module
    held = mod.Rows.decorated  # the wrapper, held before the mutant is applied
    gc.freeze()  # as the warm worker does before it forks: frozen objects are out of `gc.get_objects()`
    request.addfinalizer(gc.unfreeze)
    apply_mutant(path, "traced", ORIGINAL.replace("return fn(*args)", "return fn(*args) * 10"))
    assert held(mod.Rows(), 5) == 60 and mod.Rows().decorated(5) == 60
    assert mod.traced(lambda x: x)(2) == 20  # a wrapper made after it, from the swapped decorator


def test_a_dead_weak_proxy_among_the_live_objects_does_not_stop_the_search_for_wrappers(module):
    """Finding the wrappers walks every object the collector tracks; a weak proxy whose referent died raises on
    any look at its class (libraries keep such proxies: a field package's test selection left one)."""
    mod, path = module
    held = mod.Rows.decorated

    class Referent:
        pass

    referent = Referent()
    dead = weakref.proxy(referent)
    del referent
    assert any(o is dead for o in gc.get_objects())  # tracked, and dead
    apply_mutant(path, "traced", ORIGINAL.replace("return fn(*args)", "return fn(*args) * 10"))
    assert held(mod.Rows(), 5) == 60


def test_module_level_mutant_rebinds_globals_and_class_attributes(module):
    mod, path = module
    rows_class = mod.Rows
    apply_mutant(path, "", ORIGINAL.replace("SCALE = 2", "SCALE = 3").replace("width = 3", "width = 4"))
    assert mod.scaled(2) == 6
    assert rows_class.width == 4


def test_mutant_that_breaks_the_import_is_not_applied(module):
    _, path = module
    with pytest.raises(MutantNotApplied, match="fails to import"):
        apply_mutant(path, "", ORIGINAL.replace("SCALE = 2", "SCALE = 1 / 0"))


def test_file_the_tests_never_imported_is_reported(tmp_path):
    with pytest.raises(MutantNotApplied, match="never imported"):
        apply_mutant(str(tmp_path / "nowhere.py"), "f", "def f():\n    pass\n")


def test_a_function_with_overload_stubs_is_swapped_for_references_taken_before(tmp_path, monkeypatch):
    source = textwrap.dedent('''\
        import typing


        @typing.overload
        def pick(x: int) -> int: ...


        @typing.overload
        def pick(x: str) -> str: ...


        def pick(x):
            return x
    ''')
    (tmp_path / "overloaded_mod.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("overloaded_mod", None)
    mod = importlib.import_module("overloaded_mod")
    pick = mod.pick  # held as `from overloaded_mod import pick` would hold it
    try:
        apply_mutant(str(tmp_path / "overloaded_mod.py"), "pick", source.replace("return x", "return None"))
        assert pick(3) is None
    finally:
        sys.modules.pop("overloaded_mod", None)
