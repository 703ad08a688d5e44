"""The cold execution path (the one CUDA profiles take): the worker never runs a test, the baseline and every mutant
run in a forked child that initialises what it needs itself. Same statuses as the warm path; proven on CPU."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def statuses(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("select mutant_id || ' ' || profile, status from outcomes"))


def test_a_suite_whose_tests_initialise_cuda_runs_warm_and_cold_alike(project, teeth):
    """The baseline runs in a forked child either way: the worker that forks mutants never initialises CUDA."""
    root = project("initialises_cuda")  # its stand-in torch.cuda.init() marks the process as a real one would
    warm = teeth("run", "--target", "scale", "--no-cache", cwd=root)
    assert warm.returncode == 0, warm.stderr
    found = statuses(teeth.db)
    assert sorted(found.values()) == ["killed", "survived"]
    cold = teeth("run", "--target", "scale", "--execution", "cold", "--no-cache", cwd=root)
    assert cold.returncode == 0, cold.stderr
    assert statuses(teeth.db) == found


# The rmsnorm kernels, their tests only: torch adapters, and @triton.jit kernels under the interpreter (each cold
# mutant pays its own imports, so a few of each: the paths are the point, not the operators).
RMSNORM = f"""
[targets.rmsnorm]
root = "{REPO}"
files = ["kernels/torch_ops/rmsnorm.py", "kernels/triton_ops/rmsnorm.py"]
tests = ["tests/kernels"]
profiles = ["torch_cpu_fp32", "triton_interpret_fp32"]
operators = ["view_to_copy", "whole_batch", "wrong_slice_start", "dropped_store"]  # 5 + 5 mutants
op_from = "file"

[targets.rmsnorm.profile_files]
torch_cpu_fp32 = ["kernels/torch_ops/*.py"]
triton_interpret_fp32 = ["kernels/triton_ops/*.py"]

[profiles.torch_cpu_fp32]
pytest_args = ["-k", "torch_cpu_fp32 and rmsnorm"]

[profiles.triton_interpret_fp32]
env = {{ TRITON_INTERPRET = "1" }}
pytest_args = ["-k", "triton_interpret_fp32 and rmsnorm"]
"""


@pytest.mark.parametrize("target,ops", [
    ("batcher", ["Saved.__init__", "_version", "Invoke.replace", "<module>"]),  # module-level mutants too
    ("rmsnorm", []),
])
def test_the_cold_path_gives_every_mutant_the_warm_paths_status(tmp_path, target, ops):
    config = []
    if target == "rmsnorm":
        (tmp_path / "teeth.toml").write_text(RMSNORM)
        config = ["--config", str(tmp_path / "teeth.toml")]
    found = {}
    for execution in ("warm", "cold"):
        db = tmp_path / f"{execution}.db"
        args = [sys.executable, "-m", "teeth.cli", "run", "--target", target, "--no-cache", "--db", str(db),
                "--execution", execution, *config, *(a for op in ops for a in ("--op", op))]
        done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
        found[execution] = statuses(db)
    assert found["warm"] and found["cold"] == found["warm"]
    assert "killed" in found["warm"].values()
    if target == "batcher":  # weak spots too: a survivor must stay one on the cold path
        assert "survived" in found["warm"].values()


KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def caller(x_ptr, n, BLOCK: tl.constexpr):
    add_one(x_ptr, n, BLOCK)
'''


def test_a_swapped_compiled_kernel_is_compiled_from_its_mutated_source(tmp_path):
    """Compiled triton (not the interpreter) builds a kernel from JITFunction.src, cached by its hash: both must
    be the mutant's, the caller's hash too. Checked without a GPU: no launch, only what a launch would compile."""
    pytest.importorskip("triton")
    (tmp_path / "kern.py").write_text(KERNEL)
    probe = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import kern
        from teeth.workers.apply import prepare_mutant
        assert type(kern.add_one).__name__ == "JITFunction", type(kern.add_one)
        before, caller_before = kern.add_one.cache_key, kern.caller.cache_key
        mutated = open(kern.__file__).read().replace("mask = offs < n", "mask = offs <= n")
        prepare_mutant(kern.__file__, "add_one", mutated)()
        assert "mask = offs <= n" in kern.add_one.src, kern.add_one.src
        assert kern.add_one.src.startswith("def add_one(")
        assert kern.add_one.cache_key != before and kern.caller.cache_key != caller_before
    """)
    env = {k: v for k, v in __import__("os").environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
