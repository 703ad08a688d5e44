"""Static kernel audit: atomics and block sizes from token/batch counts are flagged, ours are clean."""

from pathlib import Path

import pytest

from teeth.invariance.audit import audit_paths, audit_source

TRITON_OPS = Path(__file__).resolve().parents[2] / "kernels" / "triton_ops"

ATOMIC = '''\
import triton
import triton.language as tl


@triton.jit
def column_sum(x_ptr, out_ptr, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    x = tl.load(x_ptr + row * D + cols)
    tl.atomic_add(out_ptr + cols, x)
'''

SHAPE_BLOCK = '''\
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, out_ptr, D, BLOCK_T: tl.constexpr):
    pass


def launch(x, out):
    block = triton.next_power_of_2(x.shape[0])
    row_sum[(1,)](x, out, x.shape[1], BLOCK_T=block)
'''


def _write(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source)
    return path


def test_an_atomic_add_inside_a_jit_kernel_is_flagged_with_its_line(tmp_path):
    path = _write(tmp_path, "atomic.py", ATOMIC)
    [finding] = audit_paths([path])
    assert (finding.rule, finding.line, finding.kernel) == ("atomic_accumulation", 10, "column_sum")
    assert finding.file == str(path)


def test_a_block_size_from_the_token_count_is_flagged_at_the_launch_line(tmp_path):
    [finding] = audit_paths([_write(tmp_path, "shape.py", SHAPE_BLOCK)])
    assert (finding.rule, finding.line, finding.kernel) == ("shape_dependent_block", 12, "row_sum")


@pytest.mark.parametrize("launch", [
    "T, D = x.shape\n    k[(T,)](x, BLOCK=triton.next_power_of_2(T))",
    "n_tokens = x.size(0)\n    k[(1,)](x, BLOCK_M=min(128, n_tokens))",
    "B = cu_seqlens.numel() - 1\n    k[(B,)](x, SPLIT=B * 2)",
    "k[(1,)](x, CHUNK=len(x))",
    "k[(1,)](x, triton.next_power_of_2(max_seqlen))",
])
def test_block_chunk_and_split_sizes_derived_from_counts_are_flagged(launch):
    source = (
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def k(x_ptr, BLOCK: tl.constexpr = 1):\n    pass\n\n"
        f"def launch(x, cu_seqlens, max_seqlen):\n    {launch}\n"
    )
    findings = audit_source(source)
    assert [f.rule for f in findings] == ["shape_dependent_block"]


@pytest.mark.parametrize("launch", [
    "T, D = x.shape\n    k[(T,)](x, BLOCK=triton.next_power_of_2(D))",
    "N, K = weight.shape\n    k[(x.shape[0],)](x, BLOCK_N=min(64, N), BLOCK_K=K)",
    "k[(x.shape[0],)](x, BLOCK=1024)",
])
def test_block_sizes_from_hidden_dims_or_constants_are_not_flagged(launch):
    source = (
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def k(x_ptr, BLOCK: tl.constexpr = 1):\n    pass\n\n"
        f"def launch(x, weight):\n    {launch}\n"
    )
    assert audit_source(source) == []


def test_an_atomic_outside_a_jit_kernel_is_not_flagged():
    assert audit_source("def f(tl, p):\n    tl.atomic_add(p, 1)\n") == []


def test_the_real_triton_kernels_are_clean():
    assert sorted(p.name for p in TRITON_OPS.glob("*.py"))  # the audit really had files to read
    assert audit_paths([TRITON_OPS]) == []


def test_the_audit_sees_a_token_count_block_slipped_into_a_real_kernel_launch(tmp_path):
    source = (TRITON_OPS / "rmsnorm.py").read_text()
    old = "BLOCK_D=block_for(dim, 1024))\n        ctx.save_for_backward"
    assert old in source
    mutant = source.replace(old, "BLOCK_D=block_for(n_rows, 1024))\n        ctx.save_for_backward")
    findings = audit_paths([_write(tmp_path, "rmsnorm.py", mutant)])
    assert [(f.rule, f.kernel) for f in findings] == [("shape_dependent_block", "_rmsnorm_fwd")]


def test_the_audit_sees_an_atomic_slipped_into_a_real_kernel(tmp_path):
    source = (TRITON_OPS / "_common.py").read_text()
    old = "acc += tl.load(part_ptr + b * NUMEL + cols, mask=ok, other=0.0)"
    assert old in source
    mutant = source.replace(old, "tl.atomic_add(out_ptr + cols, tl.load(part_ptr + cols))")
    findings = audit_paths([_write(tmp_path, "_common.py", mutant)])
    assert [(f.rule, f.kernel) for f in findings] == [("atomic_accumulation", "sample_sum_kernel")]
