"""The op spec vocabulary of the harness: an op's per-token inputs, parameters, outputs, contract and fp64 reference,
and the logical-sample values every config of the harness shares."""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Callable

import torch


@dataclass(frozen=True)
class Contract:
    """What an op promises: batch-invariant outputs/gradients, no atomics, no shape-dependent accumulation."""

    batch_invariant: bool = True
    atomic_accumulation_forbidden: bool = True
    shape_dependent_accumulation_forbidden: bool = True


@dataclass(frozen=True)
class TokenInput:
    """A per-token input; `window` is `chunk` (the call's own tokens) or `prefix` (all of the sample's tokens so far)."""

    name: str
    row: tuple[int, ...] = ()
    kind: str = "float"  # float | index | mask | position
    high: int = 0
    window: str = "chunk"
    grad: str | None = None


@dataclass(frozen=True)
class Param:
    """A shared (weight) input; its gradient is aggregated over samples in sample order."""

    name: str
    shape: tuple[int, ...]
    grad: str
    offset: float = 0.0
    scale: float = 1.0


@dataclass(frozen=True)
class OpSpec:
    name: str
    token_inputs: tuple[TokenInput, ...]
    params: tuple[Param, ...]
    outputs: tuple[tuple[str, tuple[int, ...]], ...]
    invoke: Callable  # (fn, args: dict, cu_q, cu_k) -> tuple of outputs
    reference: Callable  # (args: dict in float64, cu_q, cu_k) -> tuple of outputs
    lengths: tuple[int, ...] = (5, 1, 19)
    chunk_size: int = 4
    contract: Contract = Contract()
    active: str | None = None  # name of the mask input that marks active tokens

    @property
    def gradient_names(self) -> tuple[str, ...]:
        """Stable names of the required gradients, inputs first, then parameters."""
        return tuple(t.grad for t in self.token_inputs if t.grad) + tuple(p.grad for p in self.params)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.{out}" for out, _ in self.outputs)


def _generator(*identity) -> torch.Generator:
    return torch.Generator().manual_seed(zlib.crc32("/".join(map(str, identity)).encode()))


def token_value(spec: OpSpec, inp: TokenInput, sample: int, token: int, seed: int) -> torch.Tensor:
    """The row of `inp` for logical token (sample, token): a function of that identity only."""
    g = _generator(spec.name, inp.name, sample, token, seed)
    if inp.kind == "float":
        return torch.randn(inp.row, generator=g)
    if inp.kind == "index":
        return torch.randint(0, inp.high, (), generator=g)
    if inp.kind == "mask":
        return torch.tensor(token == 0 or bool(torch.rand((), generator=g) < 0.7))
    if inp.kind == "position":
        return torch.tensor(token, dtype=torch.int64)
    raise ValueError(f"unknown token input kind {inp.kind!r}")


def upstream_value(spec: OpSpec, output: str, row: tuple[int, ...], sample: int, token: int, seed: int) -> torch.Tensor:
    """The upstream gradient row of `output` at logical token (sample, token)."""
    return torch.randn(row, generator=_generator(spec.name, "d" + output, sample, token, seed))


def param_value(spec: OpSpec, param: Param, seed: int) -> torch.Tensor:
    g = _generator(spec.name, param.name, seed)
    return param.offset + param.scale * torch.randn(param.shape, generator=g)
