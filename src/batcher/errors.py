"""The batcher's warnings and one-line errors."""

import difflib


class UnscopedWriteWarning(UserWarning):
    """A write to a value whose rows cannot be told apart per invoke."""


class ForwardKwargConflictWarning(UserWarning):
    """Two invokes passed different values for the same forward keyword."""


class BatcherError(Exception):
    """Base class of the batcher's errors."""


class UnknownModulePathError(BatcherError, LookupError):
    """A module path that the wrapped model does not have."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class InputMismatchError(BatcherError, ValueError):
    """Invokes whose inputs cannot be concatenated into one batch."""


class GradientNotComputedError(BatcherError, RuntimeError):
    """A gradient read before any backward reached it."""


def unknown_path(path, known):
    """The error for a module path that is not in `known`, naming the closest ones."""
    close = difflib.get_close_matches(path, list(known), n=3, cutoff=0.5)
    hint = ", ".join(repr(name) for name in close) if close else "none close"
    return UnknownModulePathError(f"no module at path {path!r}; closest: {hint}")
