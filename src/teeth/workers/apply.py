"""Apply a mutant in memory, in a forked worker: swap one function's code, or re-run the module."""

from __future__ import annotations

import gc
import inspect
import linecache
import os
import re
import sys
import textwrap
import types

from teeth.workers.compiled_code import forget_compiled


class MutantNotApplied(Exception):
    """The mutated code could not be put in place (it does not import, or no function matches)."""


def module_for_file(path: str) -> types.ModuleType:
    real, name = os.path.realpath(path), os.path.basename(path)
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        # realpath costs syscalls: only for the few modules whose file name matches
        if file and os.path.basename(file) == name and os.path.realpath(file) == real:
            return module
    raise MutantNotApplied(f"{path} was never imported by the tests")


def _codes_by_qualname(code: types.CodeType, qualname: str):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname:
                yield const
            else:
                yield from _codes_by_qualname(const, qualname)


def _functions(namespace, module_name: str, seen: set[int]):
    """Every function object reachable from a module or class namespace, unwrapping descriptors."""
    for value in list(vars(namespace).values()):
        stack = [value]
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, types.FunctionType):
                yield obj
                stack.extend(c.cell_contents for c in obj.__closure__ or () if _has_contents(c))
            if isinstance(obj, (staticmethod, classmethod)):
                stack.append(obj.__func__)
            elif isinstance(obj, property):
                stack.extend(f for f in (obj.fget, obj.fset, obj.fdel) if f is not None)
            elif isinstance(obj, type) and obj.__module__ == module_name:
                yield from _functions(obj, module_name, seen)
            wrapped = getattr(obj, "__wrapped__", None) or getattr(obj, "fn", None)
            if wrapped is not None and not isinstance(obj, type):
                stack.append(wrapped)


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def prepare_mutant(path: str, swap: str, code: str):
    """Compile a mutant and find what it replaces; returns the step that puts it in place.

    Done in the warm worker before forking, so each child only assigns a code object
    (work done in a forked child touches copy-on-write pages and costs several times more).
    """
    module = module_for_file(path)
    try:
        compiled = compile(code, path, "exec")
    except SyntaxError as exc:
        raise MutantNotApplied(f"does not compile: {exc}") from None
    if swap:
        news = list(_codes_by_qualname(compiled, swap))
        real = os.path.realpath(path)
        targets = [f for f in _functions(module, module.__name__, set()) if f.__code__.co_qualname == swap
                   and os.path.realpath(f.__code__.co_filename) == real]
        if len(news) > 1 and targets and len({f.__code__ for f in targets}) == 1:
            news = _same_definition(path, swap, targets[0].__code__, news)
        # One definition under that name: swap its code wherever the function object is held.
        if len(news) == 1 and targets and len({f.__code__ for f in targets}) == 1:
            caches = _caches(module, {id(f) for f in targets}, module.__name__)
            made = _made_closures(targets[0].__code__, news[0])
            return lambda: _swap(targets, news[0], swap, code, caches, made)
    return lambda: _exec_into(module, compiled, code)


def _same_definition(path: str, swap: str, live: types.CodeType, news: list) -> list:
    """Of several definitions under one name (`typing.overload` stubs before the implementation), the mutated one
    that is the definition the live function was made from: the same rank among the file's definitions of `swap`."""
    try:
        with open(path, encoding="utf-8") as handle:
            olds = list(_codes_by_qualname(compile(handle.read(), path, "exec"), swap))
    except (OSError, SyntaxError, ValueError):
        return news
    ranks = [rank for rank, old in enumerate(olds) if old.co_firstlineno == live.co_firstlineno]
    return [news[ranks[0]]] if len(olds) == len(news) and len(ranks) == 1 else news


def clear_caches(paths: list[str]) -> None:
    """Empty every functools cache of the modules of these files (the baseline's child does, before its tests):
    what collection computed would hide from coverage the lines a test runs when it runs alone."""
    for path in paths:
        try:
            module = module_for_file(path)
        except MutantNotApplied:
            continue
        real = os.path.realpath(path)
        defined = {id(f) for f in _functions(module, module.__name__, set())
                   if os.path.realpath(f.__code__.co_filename) == real}
        for cache in _caches(module, defined, module.__name__):
            cache.cache_clear()


def _caches(namespace, functions: set[int], module_name: str, seen: set[int] | None = None) -> list:
    """The functools caches (lru_cache, cache) of a module or its classes that wrap one of `functions` (by id):
    what they hold was computed by the unmutated code, while the tests were collected."""
    seen = set() if seen is None else seen
    found = []
    for value in list(vars(namespace).values()):
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, type) and value.__module__ == module_name:
            found += _caches(value, functions, module_name, seen)
            continue
        value = getattr(value, "__func__", value)  # a cached staticmethod or classmethod
        wrapped, depth = value, 0
        while wrapped is not None and depth < 16:
            if id(wrapped) in functions and callable(getattr(value, "cache_clear", None)):
                found.append(value)
                break
            wrapped, depth = getattr(wrapped, "__wrapped__", None), depth + 1
    return found


def _nested(code: types.CodeType) -> list[types.CodeType]:
    """The code objects of the functions defined inside `code`, depth first, in the order they appear."""
    found = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.append(const)
            found.extend(_nested(const))
    return found


def _made_closures(old: types.CodeType, new: types.CodeType) -> list:
    """(function, its mutated code) for every live function an earlier call of the swapped one made: a decorator's
    wrappers, made at import, run their own code object, not the decorator's, so a mutant inside them needs theirs
    swapped too. Each nested definition is paired with the mutant's of the same qualified name and rank."""
    olds, news = _nested(old), _nested(new)
    if not olds:
        return []
    ranked: dict[str, list] = {}
    for nested in news:
        ranked.setdefault(nested.co_qualname, []).append(nested)
    seen: dict[str, int] = {}
    pairs = {}
    for nested in olds:
        rank = seen[nested.co_qualname] = seen.get(nested.co_qualname, -1) + 1
        candidates = ranked.get(nested.co_qualname, [])
        if rank < len(candidates):
            pairs[id(nested)] = candidates[rank]
    return [(f, pairs[id(f.__code__)]) for f in _live_made_by(old, olds) if id(f.__code__) in pairs]


_MADE_BY: dict[int, tuple[types.CodeType, list]] = {}  # id of a function's code -> (it, the live functions it made)


def _live_made_by(old: types.CodeType, nested: list[types.CodeType]) -> list:
    """The live functions whose code is one of `nested` (defined inside `old`), found once per worker and function:
    every mutant of that function asks, and the functions made before the worker prepares mutants do not change."""
    cached = _MADE_BY.get(id(old))
    if cached is not None and cached[0] is old:
        return cached[1]
    ids = {id(code) for code in nested}
    frozen = gc.get_freeze_count()
    if frozen:  # the warm worker froze what it made before forking: `get_objects` leaves frozen objects out
        gc.unfreeze()
    try:
        # `type`, not `isinstance`: a weak proxy whose referent died raises on any look at its `__class__`
        found = [f for f in gc.get_objects() if type(f) is types.FunctionType and id(f.__code__) in ids]
    finally:
        if frozen:
            gc.freeze()
    _MADE_BY[id(old)] = (old, found)
    return found


def _swap(functions, code: types.CodeType, swap: str, source: str, caches=(), made=()) -> None:
    for function, replacement in [*((f, code) for f in functions), *made]:
        try:
            function.__code__ = replacement
        except ValueError as exc:  # the closure's shape changed
            raise MutantNotApplied(f"cannot swap {swap}: {exc}") from None
    for cache in caches:  # results of the unmutated code: the mutant computes its own
        cache.cache_clear()
    _serve_source(functions, source)
    forget_compiled()  # torch compiles the mutant, from the source served


def _serve_source(functions, source: str) -> None:
    """Make tools that re-read a function's source see the mutant: triton's interpreter does.

    The mutated file goes into linecache with no mtime, so `checkcache` keeps it, and the
    interpreter's cache of rewritten kernels (triton 3.x `InterpretedFunction.rewritten_fn`)
    forgets the swapped functions, so their next launch re-reads and runs the mutated body.
    Functions below the mutant whose lines moved are not affected: they were rewritten (and
    cached) when the baseline ran them, and a kernel the baseline never ran covers no test.
    """
    lines = source.splitlines(True)
    for filename in {f.__code__.co_filename for f in functions}:
        linecache.cache[filename] = (len(source), None, lines, filename)
    interpreter = sys.modules.get("triton.runtime.interpreter")
    cache = getattr(getattr(interpreter, "InterpretedFunction", None), "rewritten_fn", None)
    if isinstance(cache, dict):
        for function in functions:
            cache.pop(function, None)
    _recompile_kernels(functions)


def _recompile_kernels(functions) -> None:
    """A compiled (not interpreted) @triton.jit kernel is built from the source text its JITFunction holds, and
    found again by a hash of that text: give each swapped kernel its mutated text, and make every kernel of its
    module (callers included) hash and compile again, so that nothing is served from the original's caches."""
    swapped = {id(f) for f in functions}
    for module in {sys.modules.get(f.__module__) for f in functions} - {None}:
        for value in list(vars(module).values()):
            if not hasattr(value, "_unsafe_update_src"):  # triton >= 3.2's JITCallable
                continue
            if id(getattr(value, "fn", None)) in swapped:
                text = textwrap.dedent("".join(inspect.getsourcelines(value.fn)[0]))
                value._unsafe_update_src(text[re.search(r"^def\s+\w+\s*\(", text, re.MULTILINE).start():])
            value.hash = None
            caches = getattr(value, "device_caches", None)
            if hasattr(caches, "clear"):
                caches.clear()


def apply_mutant(path: str, swap: str, code: str) -> None:
    """Put the mutated file `code` in place inside this process."""
    prepare_mutant(path, swap, code)()


def _exec_into(module: types.ModuleType, compiled: types.CodeType, source: str) -> None:
    """Re-run the mutated module; classes that already exist take the new class's attributes. The mutated text is
    what linecache serves for the file while it runs: @triton.jit reads its kernels' source when it wraps them."""
    linecache.cache[compiled.co_filename] = (len(source), None, source.splitlines(True), compiled.co_filename)
    fresh: dict = {"__name__": module.__name__, "__file__": module.__file__,
                   "__package__": module.__package__, "__spec__": module.__spec__}
    try:
        exec(compiled, fresh)
    except Exception as exc:  # the mutant breaks the import itself
        raise MutantNotApplied(f"mutated module fails to import: {type(exc).__name__}: {exc}") from None
    for name, value in fresh.items():
        old = module.__dict__.get(name)
        if isinstance(old, type) and isinstance(value, type) and old.__qualname__ == value.__qualname__:
            for attr, member in vars(value).items():
                if attr not in ("__dict__", "__weakref__"):
                    try:
                        setattr(old, attr, member)
                    except (AttributeError, TypeError):
                        pass
        elif not name.startswith("__"):
            module.__dict__[name] = value
    forget_compiled()


def install_schema(path: str, tree, swaps: list[str], probe) -> list[str]:
    """The infection pass: compile the instrumented tree of the file at `path` and swap its functions `swaps` in,
    each where it is held; `probe` is what the instrumented code calls. Returns the swaps put in place: a function
    that has no single definition, or is a kernel (its source is compiled again, without the probes), is left as
    it is."""
    module = module_for_file(path)
    compiled = compile(tree, path, "exec")
    real = os.path.realpath(path)
    functions = [f for f in _functions(module, module.__name__, set())
                 if os.path.realpath(f.__code__.co_filename) == real]
    kernels = {id(getattr(value, "fn", None)) for value in vars(module).values() if hasattr(value, "fn")}
    module.__dict__["__teeth_probe__"] = probe
    installed = []
    for swap in swaps:
        news = list(_codes_by_qualname(compiled, swap))
        targets = [f for f in functions if f.__code__.co_qualname == swap]
        if len(news) != 1 or not targets or len({f.__code__ for f in targets}) != 1 \
                or any(id(f) in kernels for f in targets):
            continue
        made = _made_closures(targets[0].__code__, news[0])  # a decorator's wrappers run their own code
        try:
            for function, code in [*made, *((f, news[0]) for f in targets)]:
                function.__code__ = code
        except ValueError:  # the closure's shape changed
            continue
        for cache in _caches(module, {id(f) for f in targets}, module.__name__):
            cache.cache_clear()
        installed.append(swap)
    return installed
