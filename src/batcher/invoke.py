"""One invoke: its input rows, forward keywords, and the interventions it asks for."""

import torch

from batcher import gradients
from batcher.errors import BatcherError, InputMismatchError

SITES = ("input", "output")


class Saved:
    """A read of a module's input or output: this invoke's rows, as a view; `.value` after the forward."""

    def __init__(self, where):
        self.where = where
        self._value = None
        self.filled = False

    def fill(self, value):
        self._value = value
        self.filled = True

    @property
    def value(self):
        if not self.filled:
            raise BatcherError(f"{self.where} was never reached: the forward has not run or skipped it")
        return self._value


class Intervention:
    """One request at one module: read, edit in place, or replace its input or output."""

    def __init__(self, kind, path, site, fn=None, saved=None):
        if site not in SITES:
            raise ValueError(f"site must be one of {SITES}, not {site!r}")
        self.kind = kind
        self.path = path
        self.site = site
        self.fn = fn
        self.saved = saved


class Invoke:
    """An invoke's own rows of the shared batch and what it does to them."""

    def __init__(self, trace, index, rows=None, kwargs=None):
        if rows is not None and (not isinstance(rows, torch.Tensor) or rows.dim() == 0):
            raise InputMismatchError(f"invoke {index} input must be a tensor with a batch dim, got {rows!r}")
        self.trace = trace
        self.index = index
        self.rows = rows
        self.kwargs = dict(kwargs or {})
        self.size = 0 if rows is None else rows.shape[0]
        self.interventions = []
        self.grad_reads = {}
        self.grad_edits = {}
        self._result = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def _add(self, kind, path, site, fn=None):
        self.trace.module(path)
        saved = Saved(f"{site} of {path!r}") if kind == "read" else None
        self.interventions.append(Intervention(kind, path, site, fn, saved))
        return saved

    def output(self, path):
        """Read this invoke's rows of the module's output (a view into the batch)."""
        return self._add("read", path, "output")

    def input(self, path):
        """Read this invoke's rows of the module's first positional input."""
        return self._add("read", path, "input")

    def edit(self, path, fn, site="output"):
        """Call fn(view) during the forward; in-place changes to the view land in this invoke's rows."""
        self._add("edit", path, site, fn)

    def replace(self, path, fn, site="output"):
        """Replace this invoke's rows with fn(view); the result is spliced back into the batch."""
        self._add("replace", path, site, fn)

    def grad(self, path):
        """Read this invoke's rows of the gradient of the module's output (`.value` after backward)."""
        self.trace.module(path)
        reader = gradients.GradRead(f"output of {path!r}")
        self.grad_reads.setdefault(path, []).append(reader)
        return reader

    def edit_grad(self, path, fn):
        """Call fn(rows) in backward; in-place changes land in this invoke's rows of the gradient."""
        self.trace.module(path)
        self.grad_edits.setdefault(path, []).append(fn)

    def touches(self, path, site):
        """True when this invoke intervenes at this module and site (gradients count as output)."""
        if site == "output" and (path in self.grad_reads or path in self.grad_edits):
            return True
        return any(iv.path == path and iv.site == site for iv in self.interventions)

    @property
    def result(self):
        """This invoke's rows of the model's output, after the trace ran."""
        if self._result is None:
            raise BatcherError(f"invoke {self.index} has no result: the trace has not run")
        return self._result
