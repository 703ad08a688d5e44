"""CI's slice of the kernels target, end to end: one op (rmsnorm) on both CPU profiles.

Atomic accumulation computes the same sum in another order: the accuracy cells let it live;
the determinism check (the interpreter's program order shuffled) and batch invariance kill it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

ACCURACY_ONLY = """
[profiles.triton_interpret_fp32]
env = {{ TRITON_INTERPRET = "1" }}
pytest_args = ["-k", "triton_interpret_fp32 and accuracy"]

[profiles.torch_cpu_fp32]
pytest_args = ["-k", "torch_cpu_fp32 and accuracy"]

[targets.rmsnorm_accuracy_only]
root = "{root}"
files = ["kernels/torch_ops/rmsnorm.py", "kernels/triton_ops/rmsnorm.py"]
tests = ["tests/kernels/test_invariance_cells.py"]
profiles = ["torch_cpu_fp32", "triton_interpret_fp32"]
operators = ["atomic_accumulation"]
op_from = "file"

[targets.rmsnorm_accuracy_only.profile_files]
torch_cpu_fp32 = ["kernels/torch_ops/rmsnorm.py"]
triton_interpret_fp32 = ["kernels/triton_ops/rmsnorm.py"]
"""


def teeth(*args: str, db: Path) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "teeth.cli", *args, "--db", str(db)], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    listed = subprocess.run([sys.executable, "-m", "teeth.cli", "results", "--format", "json", "--db", str(db)],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    return json.loads(listed.stdout)


@pytest.fixture(scope="module")
def rmsnorm_slice(tmp_path_factory) -> list[dict]:
    return teeth("run", "--target", "kernels", "--op", "rmsnorm", db=tmp_path_factory.mktemp("slice") / "t.db")


def test_every_rmsnorm_domain_mutant_is_killed_or_skipped_with_a_reason(rmsnorm_slice):
    assert {r["profile"] for r in rmsnorm_slice} == {"torch_cpu_fp32", "triton_interpret_fp32"}
    for row in rmsnorm_slice:
        assert row["status"] in {"killed", "timeout", "skipped"}, row
        if row["status"] == "skipped":
            assert row["detail"], row


def test_both_profiles_kill_mutants_of_their_own_implementation(rmsnorm_slice):
    killed = {(r["profile"], r["file"].split("/")[1]) for r in rmsnorm_slice if r["status"] == "killed"}
    assert killed == {("torch_cpu_fp32", "torch_ops"), ("triton_interpret_fp32", "triton_ops")}


def test_atomic_accumulation_is_killed_by_determinism_or_batch_invariance(rmsnorm_slice):
    atomic = [r for r in rmsnorm_slice if r["operator"] == "atomic_accumulation" and r["status"] != "skipped"]
    assert {r["profile"] for r in atomic} == {"torch_cpu_fp32", "triton_interpret_fp32"}
    assert {r["status"] for r in atomic} == {"killed"}
    assert {r["check"] for r in atomic} <= {"determinism", "batch_invariance"}


def test_accuracy_checks_alone_let_atomic_accumulation_live(tmp_path):
    config = tmp_path / "teeth.toml"
    config.write_text(ACCURACY_ONLY.format(root=REPO.as_posix()))
    rows = teeth("run", "--target", "rmsnorm_accuracy_only", "--config", str(config), db=tmp_path / "t.db")
    measured = [r for r in rows if r["status"] != "skipped"]
    assert {r["profile"] for r in measured} == {"torch_cpu_fp32", "triton_interpret_fp32"}
    assert {r["status"] for r in measured} == {"survived"}
