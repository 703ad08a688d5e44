"""Torch implementations of the kernels ops: autograd.Functions with explicit, batch-invariant backwards."""
