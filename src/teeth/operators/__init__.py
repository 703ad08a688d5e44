"""The operator registry: every bug class teeth can inject, by name."""

from __future__ import annotations

from teeth.errors import ConfigError
from teeth.operators.base import Example, Operator
from teeth.operators.atomic_accumulation import AtomicAccumulation
from teeth.operators.dropped_replacement import DroppedReplacement
from teeth.operators.dropped_store import DroppedStore
from teeth.operators.generic import generic_operators
from teeth.operators.low_precision_accumulation import LowPrecisionAccumulation
from teeth.operators.mask_off_by_one import MaskOffByOne
from teeth.operators.shape_dependent_split import ShapeDependentSplit
from teeth.operators.stride_assumption import StrideAssumption
from teeth.operators.view_to_copy import ViewToCopy
from teeth.operators.whole_batch import WholeBatch
from teeth.operators.wrong_offset import WrongOffset
from teeth.operators.wrong_slice_start import WrongSliceStart
from teeth.operators.zero_storage_offset import ZeroStorageOffset

DOMAIN_OPERATORS: list[Operator] = [
    ZeroStorageOffset(), WrongSliceStart(), DroppedReplacement(), ViewToCopy(), WholeBatch(), StrideAssumption(),
    AtomicAccumulation(), ShapeDependentSplit(), LowPrecisionAccumulation(), MaskOffByOne(), WrongOffset(),
    DroppedStore(),
]
GROUPS = {"generic": "generic.", "domain": None}


def all_operators() -> list[Operator]:
    return [*DOMAIN_OPERATORS, *generic_operators()]


def select_operators(names: list[str] | None) -> list[Operator]:
    """Operators by name; `generic` means all of mutmut's, `domain` all of teeth's; None means every one."""
    everything = all_operators()
    if not names:
        return everything
    by_name = {op.name: op for op in everything}
    chosen: list[Operator] = []
    for name in names:
        if name == "generic":
            chosen.extend(op for op in everything if not op.domain)
        elif name == "domain":
            chosen.extend(op for op in everything if op.domain)
        elif name in by_name:
            chosen.append(by_name[name])
        else:
            known = ", ".join(["domain", "generic", *by_name])
            raise ConfigError(f"unknown operator {name!r}; known operators: {known}")
    return list({op.name: op for op in chosen}.values())


def bug_class(operator: str, original: str, replacement: str) -> dict | None:
    """What a domain mutant's bug class means on its line and the shape of a test that kills it, in the
    operator's own words; None for a generic operator (or one this teeth does not know)."""
    found = next((op for op in DOMAIN_OPERATORS if op.name == operator), None)
    if found is None:
        return None
    change = " ".join(f"{original} -> {replacement}".split())
    return {"operator": found.name, "change": change, "summary": found.summary, "means": found.bug,
            "killing_test": found.killing_test, "kills": list(found.kills)}


__all__ = ["Example", "Operator", "all_operators", "bug_class", "select_operators", "DOMAIN_OPERATORS"]
