"""The trace: collect invokes, run one batched forward over their rows, apply each invoke's interventions."""

import torch

from batcher import forward_kwargs, gradients, scoping
from batcher.errors import BatcherError, InputMismatchError, unknown_path
from batcher.invoke import Invoke


def concatenate(invokes):
    """One batch from the invokes' rows; sets each invoke's start. Returns (batch, total rows)."""
    given = [inv for inv in invokes if inv.size > 0]
    if not given:
        raise InputMismatchError("no invoke gave any input rows; the batch would be empty")
    first = given[0]
    for inv in given:
        if tuple(inv.rows.shape[1:]) != tuple(first.rows.shape[1:]):
            raise InputMismatchError(
                f"invoke {inv.index} input has trailing dims {tuple(inv.rows.shape[1:])} but invoke "
                f"{first.index} has {tuple(first.rows.shape[1:])}; they cannot share one batch"
            )
    start = 0
    for inv in invokes:
        inv.start = start
        start = start + inv.size
    return torch.cat([inv.rows for inv in given]), start


class Trace:
    """Wrap a module; each `invoke(rows)` adds rows to one batched forward, run when the trace closes."""

    def __init__(self, model):
        self.model = model
        self.modules = dict(model.named_modules())
        self.invokes = []
        self.output = None
        self.ran = False

    def module(self, path):
        """The submodule at a dotted path ("" is the model), or a one-line error naming close paths."""
        if path not in self.modules:
            raise unknown_path(path, self.modules)
        return self.modules[path]

    def invoke(self, rows=None, **kwargs):
        """A new invoke with its own input rows (None: no rows, sees the whole batch) and forward keywords."""
        if self.ran:
            raise BatcherError("this trace already ran; open a new Trace for another forward")
        inv = Invoke(self, len(self.invokes), rows, kwargs)
        self.invokes.append(inv)
        return inv

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.run()
        return False

    def run(self):
        """Run the batched forward once, with every invoke's interventions hooked in."""
        batch, self.total = concatenate(self.invokes)
        kwargs = forward_kwargs.merge([inv.kwargs for inv in self.invokes])
        handles = self._hook()
        try:
            self.output = self.model(batch, **kwargs)
        finally:
            for handle in handles:
                handle.remove()
        self.ran = True
        for inv in self.invokes:
            inv._result = self._serve(inv, self.output)[1]
        return self.output

    def _hook(self):
        """Forward hooks on every module some invoke touches."""
        handles = []
        for path, module in self.modules.items():
            if any(inv.touches(path, "input") for inv in self.invokes):
                handles.append(module.register_forward_pre_hook(self._input_hook(path)))
            if any(inv.touches(path, "output") for inv in self.invokes):
                handles.append(module.register_forward_hook(self._output_hook(path)))
        return handles

    def _input_hook(self, path):
        def hook(module, args):
            if not args:
                return None
            first = self._intervene(path, "input", args[0])
            if first is args[0]:
                return None
            spliced = list(args)
            spliced[0] = first
            return tuple(spliced)

        return hook

    def _output_hook(self, path):
        def hook(module, args, output):
            output = self._intervene(path, "output", output)
            self._attach_gradients(path, output)
            return output

        return hook

    def _serve(self, inv, value):
        """The invoke's Served record(s) and views of a tensor, or of a tuple/list of them."""
        if isinstance(value, (tuple, list)):
            served = [scoping.narrow(v, inv.start, inv.size, self.total) for v in value]
            return served, type(value)(s.value for s in served)
        served = scoping.narrow(value, inv.start, inv.size, self.total)
        return served, served.value

    def _intervene(self, path, site, value):
        """Apply every invoke's interventions at one module and site, in invoke order."""
        where = f"{site} of {path!r}"
        for inv in self.invokes:
            for iv in inv.interventions:
                if iv.path == path and iv.site == site:
                    value = self._apply(inv, iv, value, where)
        return value

    def _apply(self, inv, iv, value, where):
        served, views = self._serve(inv, value)
        if iv.kind == "read":
            iv.saved.fill(views)
            return value
        result = iv.fn(views)
        if iv.kind == "edit":
            for one in served if isinstance(served, list) else [served]:
                scoping.report_in_place(one, where, self.total)
            return value
        if isinstance(served, list):
            if not isinstance(result, (tuple, list)) or len(result) != len(served):
                raise BatcherError(f"replacement at {where} must be a sequence of {len(served)} values")
            return type(value)(
                scoping.widen(v, s.value, r, inv.start, inv.size, self.total, where)
                for v, s, r in zip(value, served, result)
            )
        return scoping.widen(value, served.value, result, inv.start, inv.size, self.total, where)

    def _attach_gradients(self, path, output):
        """Hook the module's final output so each invoke's gradient reads and edits see only its rows."""
        for inv in self.invokes:
            readers = inv.grad_reads.get(path, [])
            editors = inv.grad_edits.get(path, [])
            if not readers and not editors:
                continue
            if not isinstance(output, torch.Tensor):
                raise BatcherError(f"gradient at output of {path!r} needs a tensor output, got {type(output).__name__}")
            view = scoping.narrow(output, inv.start, inv.size, self.total).value
            gradients.attach(output, view, inv.start, inv.size, self.total, readers, editors, f"output of {path!r}")
