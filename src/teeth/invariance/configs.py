"""Harness configurations and their call plans: B=N, N x B=1, and chunked prefill, over one logical sample set."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    """Tokens [start, end) of logical sample `sample`, as one segment of one call."""

    sample: int
    start: int
    end: int


Plan = list[tuple[Segment, ...]]  # calls in execution (and aggregation) order


@dataclass(frozen=True)
class InvarianceConfigs:
    """The logical samples (their lengths), the chunk size for chunked prefill, and the data seed."""

    lengths: tuple[int, ...]
    chunk_size: int
    seed: int = 0
    determinism_seeds: tuple[int, int] = (1, 2)

    def __post_init__(self):
        if not self.lengths or min(self.lengths) < 1:
            raise ValueError("every logical sample needs at least one token")
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be positive")


def batch_plan(lengths) -> Plan:
    """One call with every sample (B=N), unchunked."""
    return [tuple(Segment(s, 0, n) for s, n in enumerate(lengths))]


def singleton_plan(lengths) -> Plan:
    """N calls of one sample each (B=1), in sample order."""
    return [(Segment(s, 0, n),) for s, n in enumerate(lengths)]


def chunked_plan(lengths, chunk_size: int) -> Plan:
    """Chunked prefill: round r calls chunk r of every sample that still has tokens (B<=N), rounds in order."""
    plan: Plan = []
    start = 0
    while start < max(lengths):
        plan.append(tuple(Segment(s, start, min(start + chunk_size, n)) for s, n in enumerate(lengths) if start < n))
        start += chunk_size
    return plan
