"""The kernels suite runs every triton launch bounds-checked: an access one element past a tensor fails the test."""

import pytest

import kernels.triton_ops  # noqa: F401  (sets TRITON_INTERPRET before triton is imported)
from teeth.invariance.bounds import bounds_checked


@pytest.fixture(autouse=True, scope="session")
def _triton_launches_are_bounds_checked():
    with bounds_checked():
        yield
