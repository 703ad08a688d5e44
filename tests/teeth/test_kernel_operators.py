"""Kernel operators apply inside @triton.jit kernels only, and know a program's own slice of the work."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst

from teeth.config.targets import Target
from teeth.discovery.discover import discover_file
from teeth.syntax.kernel_context import is_kernel, kernel_of
from teeth.operators import select_operators

SOURCE = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def partial_kernel(dy_ptr, part_ptr, D, BLOCK: tl.constexpr):
        b = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        acc = tl.load(dy_ptr + b * D + cols, mask=cols < D)
        tl.store(part_ptr + b * D + cols, acc, mask=cols < D)


    def host(x, cols, D):
        ok = cols < D
        return x[ok] + cols
''')


def mutants(tmp_path: Path, names: list[str]):
    path = tmp_path / "kern.py"
    path.write_text(SOURCE)
    return discover_file(Target("k", tmp_path, [path], ["tests"]), path, select_operators(names)).mutants


def test_program_id_names_are_found_to_a_fixed_point():
    function = cst.parse_module(SOURCE).body[2]
    assert is_kernel(function)
    kernel = kernel_of(function)
    assert kernel.program_names == {"b", "acc"}
    assert kernel.program_axes == {"b"}  # a program id itself: its slab index


def test_kernel_only_operators_leave_host_code_alone(tmp_path):
    found = mutants(tmp_path, ["mask_off_by_one", "wrong_offset", "dropped_store", "atomic_accumulation"])
    assert found and {m.function for m in found} == {"partial_kernel"}


def test_a_partial_store_becomes_an_atomic_add_into_one_shared_slab(tmp_path):
    (atomic,) = mutants(tmp_path, ["atomic_accumulation"])
    assert atomic.replacement == "tl.atomic_add(part_ptr + cols, acc, mask=cols < D)"


def test_mutants_of_kernels_swap_the_kernel_function(tmp_path):
    found = mutants(tmp_path, ["dropped_store"])
    assert [m.swap for m in found] == ["partial_kernel"]
