"""Triton implementations of the kernels ops; runs under the triton interpreter without CUDA."""

import os

import torch

if not torch.cuda.is_available():
    # triton picks interpreter vs compiler when @triton.jit decorates, so set this first.
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton  # noqa: E402,F401

OPS = (
    "rmsnorm",
    "linear",
    "attention",
    "embedding",
    "lm_head",
    "selected_logprob",
    "rope",
    "silu",
    "swiglu",
)
