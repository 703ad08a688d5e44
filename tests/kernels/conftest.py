"""The kernels suite runs every triton launch bounds-checked (an access one element past a tensor fails the test)
and, interpreted, with the interpreter's gaps closed, as a teeth worker runs it (teeth.workers.interpreter).
Its shared kit (broken_kernels.py) is importable whatever pytest import mode runs it."""

import contextlib
import os
import sys

import pytest

import kernels.triton_ops  # noqa: F401  (sets TRITON_INTERPRET before triton is imported)
from teeth.workers.bounds import bounds_checked
from teeth.workers.interpreter import gaps_closed

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(autouse=True, scope="module")  # undone after each module: teeth's own tests see triton as it is
def _triton_launches_as_a_teeth_worker_runs_them():
    with bounds_checked(), (gaps_closed() if os.environ.get("TRITON_INTERPRET") == "1" else contextlib.nullcontext()):
        yield
