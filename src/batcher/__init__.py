"""A batcher: several invokes share one batched forward; each sees, edits and differentiates only its own rows."""

from batcher.errors import (
    BatcherError,
    ForwardKwargConflictWarning,
    GradientNotComputedError,
    InputMismatchError,
    UnknownModulePathError,
    UnscopedWriteWarning,
)
from batcher.gradients import GradRead
from batcher.invoke import Invoke, Saved
from batcher.trace import Trace

__all__ = [
    "BatcherError",
    "ForwardKwargConflictWarning",
    "GradRead",
    "GradientNotComputedError",
    "InputMismatchError",
    "Invoke",
    "Saved",
    "Trace",
    "UnknownModulePathError",
    "UnscopedWriteWarning",
]
