"""The kernels suite runs every triton launch bounds-checked: an access one element past a tensor fails the test.
Its shared kit (broken_kernels.py) is importable whatever pytest import mode runs it."""

import os
import sys

import pytest

import kernels.triton_ops  # noqa: F401  (sets TRITON_INTERPRET before triton is imported)
from teeth.invariance.bounds import bounds_checked

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(autouse=True, scope="session")
def _triton_launches_are_bounds_checked():
    with bounds_checked():
        yield
