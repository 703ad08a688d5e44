"""teeth's own bug classes of batched tensor code, as one operator provider."""

from __future__ import annotations

from teeth.operators.atomic_accumulation import AtomicAccumulation
from teeth.operators.base import Operator
from teeth.operators.dropped_replacement import DroppedReplacement
from teeth.operators.dropped_store import DroppedStore
from teeth.operators.first_group import FirstGroup
from teeth.operators.index_read import IndexRead
from teeth.operators.index_write import IndexWrite
from teeth.operators.low_precision_accumulation import LowPrecisionAccumulation
from teeth.operators.mask_off_by_one import MaskOffByOne
from teeth.operators.shape_dependent_split import ShapeDependentSplit
from teeth.operators.stride_assumption import StrideAssumption
from teeth.operators.view_to_copy import ViewToCopy
from teeth.operators.whole_batch import WholeBatch
from teeth.operators.wrong_offset import WrongOffset
from teeth.operators.wrong_slice_start import WrongSliceStart
from teeth.operators.zero_storage_offset import ZeroStorageOffset


def domain_operators() -> list[Operator]:
    return [
        ZeroStorageOffset(), WrongSliceStart(), DroppedReplacement(), ViewToCopy(), WholeBatch(), StrideAssumption(),
        AtomicAccumulation(), ShapeDependentSplit(), LowPrecisionAccumulation(), MaskOffByOne(), WrongOffset(),
        DroppedStore(), IndexRead(), IndexWrite(), FirstGroup(),  # index_read/index_write before first_group:
        # a group's index inside a read or write-back is theirs (the same mutant first_group makes is a duplicate)
    ]
