"""The infection pass's probe, in the worker: at each instrumented site it evaluates the original expression and every
mutated one, returns the original's value, and records per test which mutated values differed (exact equality)."""

from __future__ import annotations

import math
import struct
import sys

PROBE = "__teeth_probe__"  # the name the instrumented code calls, put in each instrumented module's globals
VALUES_KEPT = 3  # distinct values kept per mutant, for the fact a survivor is shown with


class Raised:
    """What a mutated expression did instead of giving a value: it raised."""

    def __init__(self, exc: BaseException):
        self.text = f"raised {type(exc).__name__}"

    def __repr__(self) -> str:
        return self.text


def same(a, b) -> bool:
    """Exact equality: ints, bools, None, strings and bytes by value and type; floats bitwise (every NaN equal to
    every NaN); tuples element by element; a tensor only when it is the same memory seen the same way (storage,
    dtype, shape, strides, offset, requires_grad: then every element matches too, and an in-place write through
    either reaches the same tensors); dtypes and devices by value; a list, or anything else, only when it is the
    same object (otherwise infected: a copy equal today may be written tomorrow)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in (int, bool, str, bytes, type(None), complex):
        return a == b
    if kind is float:
        return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, tuple):  # a list is mutable: equal only when it is the same list (above)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if isinstance(a, torch.Tensor):
        try:
            return (a.device == b.device and a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
                    and a.storage_offset() == b.storage_offset() and a.requires_grad == b.requires_grad
                    and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())
        except (RuntimeError, NotImplementedError):  # a tensor without storage (meta, sparse, functorch)
            return False
    if isinstance(a, (torch.dtype, torch.device)):
        return a == b
    return False


def shown(value, width: int = 60) -> str:
    """A short text of a value: a tensor by its layout, not its elements."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        try:
            return (f"tensor(shape={tuple(value.shape)}, stride={value.stride()}, "
                    f"offset={value.storage_offset()}, {value.dtype})")
        except (RuntimeError, NotImplementedError):
            return "tensor"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that raises is still a value
        text = type(value).__name__
    return text if len(text) <= width else text[: width - 1] + "…"


class Recorder:
    """Per mutant key ("site:index"): how often it was evaluated and in which tests, the distinct values it took (and
    the original's), and the tests in which its value differed, with the first pair of values that did."""

    def __init__(self):
        self.test: str | None = None
        self.busy = False  # evaluating mutated expressions: probes they reach (a property) only pass through
        self.seen: dict[str, dict] = {}

    def probe(self, site: str, original, *mutants):
        if self.busy:
            return original()
        try:
            value = original()
        except BaseException:
            for index in range(len(mutants)):  # nothing to compare with: counted as infected
                self._record(f"{site}:{index}", None, None, differed=True, why="the original expression raised")
            raise
        self.busy = True
        try:
            for index, mutated in enumerate(mutants):
                try:
                    other = mutated()
                except Exception as exc:  # noqa: BLE001 - a mutant that raises where the original did not differs
                    other = Raised(exc)
                self._record(f"{site}:{index}", value, other, differed=not same(value, other))
        finally:
            self.busy = False
        return value

    def _record(self, key: str, value, other, differed: bool, why: str | None = None) -> None:
        entry = self.seen.get(key)
        if entry is None:
            entry = self.seen[key] = {"evaluations": 0, "tests": [], "values": [], "infected": {}}
        entry["evaluations"] += 1
        test = self.test or "(outside a test)"
        if not entry["tests"] or entry["tests"][-1] != test:
            if test not in entry["tests"]:
                entry["tests"].append(test)
        if differed:
            if test not in entry["infected"]:
                entry["infected"][test] = why or f"{shown(value)} became {shown(other)}"
        elif len(entry["values"]) < VALUES_KEPT:
            text = shown(value)
            if text not in entry["values"]:
                entry["values"].append(text)


class Undecided:
    """The pass's mutants no test has infected yet. A test that covers none of them can decide nothing (a mutant once
    infected runs its tests whatever else infects it), so the pass skips it: the pass costs the tests up to the
    point where every mutant is infected, not the whole covering suite once more."""

    def __init__(self, mutants, covers: dict[str, list[str]] | None):
        self.mutants = set(mutants)
        self.covers = covers  # test -> the mutants it covers; None: every test covers every mutant

    def needs(self, test: str) -> bool:
        return self.covers is None or not self.mutants.isdisjoint(self.covers.get(test, ()))

    def ran(self, test: str, failed: bool, recorder: Recorder, keys: dict[str, str]) -> None:
        """After `test`: the mutants it infected (every one it covers when it failed instrumented) are decided."""
        covered = self.mutants if self.covers is None else self.mutants.intersection(self.covers.get(test, ()))
        self.mutants -= {m for m in covered if failed or recorder.seen.get(keys.get(m), {}).get("infected")}
