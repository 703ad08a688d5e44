"""Run one op over a call plan and map every output and gradient back to logical (sample, token) rows."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .configs import Plan, Segment, batch_plan
from .specs import param_value, token_value, upstream_value


class MissingGradient(Exception):
    """A required gradient came back as None: the backward is missing or disconnected."""


@dataclass
class Logical:
    """The logical sample set: per-sample token rows, shared params, upstream gradients, and the denominator."""

    lengths: tuple[int, ...]
    tokens: dict[str, list[torch.Tensor]]
    params: dict[str, torch.Tensor]
    upstream: dict[str, list[torch.Tensor]]
    denominator: int


def make_logical(spec, lengths, seed: int) -> Logical:
    """Build inputs and upstream gradients from each (sample, token) identity, so no config order leaks in."""
    tokens = {
        inp.name: [torch.stack([token_value(spec, inp, s, t, seed) for t in range(n)]) for s, n in enumerate(lengths)]
        for inp in spec.token_inputs
    }
    if spec.active:
        active = [m.to(torch.bool) for m in tokens[spec.active]]
    else:
        active = [torch.ones(n, dtype=torch.bool) for n in lengths]
    denominator = int(sum(int(a.sum()) for a in active))
    upstream = {}
    for out, row in spec.outputs:
        per_sample = []
        for s, n in enumerate(lengths):
            g = torch.stack([upstream_value(spec, out, row, s, t, seed) for t in range(n)])
            keep = active[s].reshape((n,) + (1,) * len(row))
            per_sample.append(torch.where(keep, g, torch.zeros_like(g)) / denominator)
        upstream[out] = per_sample
    params = {p.name: param_value(spec, p, seed) for p in spec.params}
    return Logical(tuple(lengths), tokens, params, upstream, denominator)


def _window(inp, seg: Segment) -> tuple[int, int]:
    return (seg.start if inp.window == "chunk" else 0), seg.end


def _cu(lengths, device) -> torch.Tensor:
    bounds = [0]
    for n in lengths:
        bounds.append(bounds[-1] + n)
    return torch.tensor(bounds, dtype=torch.int64, device=device)


def run_plan(spec, fn, logical: Logical, plan: Plan, *, device="cpu", dtype=torch.float32) -> dict[str, torch.Tensor]:
    """Outputs and gradients by stable name, as fp32 CPU tensors in logical token order.

    Each token's output and chunk-window input gradient comes from the one call that owns it;
    gradients of prefix-window inputs and of parameters are summed over calls in plan order.
    """
    outs = {o: [torch.zeros((n,) + row) for n in logical.lengths] for o, row in spec.outputs}
    tok_grads = {i.name: [torch.zeros(t.shape) for t in logical.tokens[i.name]] for i in spec.token_inputs if i.grad}
    par_grads = {p.name: torch.zeros(p.shape) for p in spec.params}
    for call in plan:
        args, diff = {}, []
        for inp in spec.token_inputs:
            rows = [logical.tokens[inp.name][seg.sample][slice(*_window(inp, seg))] for seg in call]
            t = torch.cat(rows).to(device)
            if inp.kind == "float":
                t = t.to(dtype).requires_grad_(inp.grad is not None)
            args[inp.name] = t
            if inp.grad:
                diff.append((inp.grad, t))
        for p in spec.params:
            # fp32 master weights on every profile: a bf16 weight grad could not equal the fp32 sum of bf16 partials
            args[p.name] = logical.params[p.name].to(device=device, dtype=torch.float32).requires_grad_()
            diff.append((p.grad, args[p.name]))
        cu_q = _cu([seg.end - seg.start for seg in call], device)
        cu_k = _cu([seg.end for seg in call], device)
        outputs = tuple(spec.invoke(fn, args, cu_q, cu_k))
        if len(outputs) != len(spec.outputs):
            raise TypeError(f"{spec.name} returned {len(outputs)} outputs, expected {len(spec.outputs)}")
        grad_outputs = [
            torch.cat([logical.upstream[o][seg.sample][seg.start:seg.end] for seg in call]).to(device=device, dtype=dtype)
            for o, _ in spec.outputs
        ]
        grads = torch.autograd.grad(outputs, [t for _, t in diff], grad_outputs, allow_unused=True)
        for (name, _), g in zip(diff, grads):
            if g is None:
                raise MissingGradient(f"{name} is None: no backward reaches it")
        for (o, _), y in zip(spec.outputs, outputs):
            _scatter(outs[o], y, call, lambda seg: (seg.start, seg.end))
        named = dict(zip([n for n, _ in diff], grads))
        for inp in spec.token_inputs:
            if inp.grad:
                _scatter(tok_grads[inp.name], named[inp.grad], call, lambda seg, i=inp: _window(i, seg), add=True)
        for p in spec.params:
            par_grads[p.name] = par_grads[p.name] + named[p.grad].detach().float().cpu()
    result = {f"{spec.name}.{o}": torch.cat(outs[o]) for o, _ in spec.outputs}
    for inp in spec.token_inputs:
        if inp.grad:
            result[inp.grad] = torch.cat(tok_grads[inp.name])
    for p in spec.params:
        result[p.grad] = par_grads[p.name]
    return result


def _scatter(per_sample, value, call, window, add=False):
    value = value.detach().float().cpu()
    offset = 0
    for seg in call:
        lo, hi = window(seg)
        rows = value[offset:offset + hi - lo]
        per_sample[seg.sample][lo:hi] = per_sample[seg.sample][lo:hi] + rows if add else rows
        offset += hi - lo


def run_reference(spec, logical: Logical, dtype=torch.float32) -> dict[str, torch.Tensor]:
    """The fp64 reference forward and VJP (torch autograd of spec.reference) on the batch plan.

    Per-token float inputs and upstream gradients are first rounded to `dtype`, as `run_plan` rounds
    them for the implementation: the reference is exact at the inputs the implementation was given,
    so its error is the implementation's own (a no-op for float32; parameters are fp32 on every profile).
    """
    call = batch_plan(logical.lengths)[0]
    args, diff = {}, []
    for inp in spec.token_inputs:
        t = torch.cat([logical.tokens[inp.name][seg.sample][slice(*_window(inp, seg))] for seg in call])
        if inp.kind == "float":
            t = t.to(dtype).double().requires_grad_(inp.grad is not None)
        args[inp.name] = t
        if inp.grad:
            diff.append((inp.grad, t))
    for p in spec.params:
        args[p.name] = logical.params[p.name].double().requires_grad_()
        diff.append((p.grad, args[p.name]))
    cu = _cu(logical.lengths, "cpu")
    outputs = spec.reference(args, cu, cu)
    grad_outputs = [torch.cat(logical.upstream[o]).to(dtype).double() for o, _ in spec.outputs]
    grads = torch.autograd.grad(outputs, [t for _, t in diff], grad_outputs, allow_unused=True)
    result = {f"{spec.name}.{o}": y.detach() for (o, _), y in zip(spec.outputs, outputs)}
    for (name, _), g in zip(diff, grads):
        result[name] = g
    return result
