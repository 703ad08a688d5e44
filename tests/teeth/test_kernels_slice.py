"""CI's slice of the kernels target, end to end: one op (rmsnorm) on the three CPU profiles.

Atomic accumulation computes the same sum in another order: the accuracy cells let it live;
the determinism check (the interpreter's program order shuffled) and batch invariance kill it.
The slice runs in a git copy of the project, where a `teeth check` of a one-function change then
baselines only the tests the slice's run recorded as executing that function.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import teeth_in_process

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


COPIED = ["kernels", "tests/kernels", "src/batcher", "tests/batcher"]  # the batcher: pyproject names its target
CHANGES = [  # one function of each implementation, behaviour kept
    ("kernels/torch_ops/rmsnorm.py", "        contrib = dyf * xhat\n", "        contrib = xhat * dyf\n"),
    ("kernels/triton_ops/rmsnorm.py", "    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / D + eps)\n",
     "    mean_sq = tl.sum(sq, axis=0) / D\n    rstd = 1.0 / tl.sqrt(mean_sq + eps)\n"),
]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


def teeth(*args: str, db: Path, cwd: Path = REPO, ok: tuple = (0,)) -> tuple[list[dict], str]:
    done = subprocess.run([sys.executable, "-m", "teeth.cli", *args, "--db", str(db)], cwd=cwd,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode in ok, done.stderr[-2000:]
    listed = teeth_in_process("results", "--format", "json", "--db", db, cwd=cwd)  # a reading command: in process
    assert listed.exit_code == 0, (listed.output, listed.exception)
    return json.loads(listed.stdout), done.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("slice") / "project"
    for folder in COPIED:
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


@pytest.fixture(scope="module")
def rmsnorm_slice(project) -> list[dict]:
    return teeth("run", "--target", "kernels", "--op", "rmsnorm", db=project.parent / "t.db", cwd=project)[0]


CPU_PROFILES = {"torch_cpu_fp32", "triton_interpret_fp32", "torch_cpu_bf16"}


def test_every_rmsnorm_domain_mutant_is_killed_or_skipped_with_a_reason(rmsnorm_slice):
    assert {r["profile"] for r in rmsnorm_slice} == CPU_PROFILES
    for row in rmsnorm_slice:
        assert row["status"] in {"killed", "timeout", "skipped"}, row
        if row["status"] == "skipped":
            assert row["detail"], row


def test_both_profiles_kill_mutants_of_their_own_implementation(rmsnorm_slice):
    killed = {(r["profile"], r["file"].split("/")[1]) for r in rmsnorm_slice if r["status"] == "killed"}
    assert killed == {("torch_cpu_fp32", "torch_ops"), ("triton_interpret_fp32", "triton_ops"),
                      ("torch_cpu_bf16", "torch_ops")}


def test_atomic_accumulation_is_killed_by_determinism_or_batch_invariance(rmsnorm_slice):
    atomic = [r for r in rmsnorm_slice if r["operator"] == "atomic_accumulation" and r["status"] != "skipped"]
    assert {r["profile"] for r in atomic} == CPU_PROFILES
    assert {r["status"] for r in atomic} == {"killed"}
    assert {r["check"] for r in atomic} <= {"determinism", "batch_invariance"}


def test_accuracy_checks_alone_let_atomic_accumulation_live(tmp_path):
    config = tmp_path / "teeth.toml"
    config.write_text(ACCURACY_ONLY.format(root=REPO.as_posix()))
    rows, _ = teeth("run", "--target", "rmsnorm_accuracy_only", "--config", str(config), db=tmp_path / "t.db")
    measured = [r for r in rows if r["status"] != "skipped"]
    assert {r["profile"] for r in measured} == {"torch_cpu_fp32", "triton_interpret_fp32"}
    assert {r["status"] for r in measured} == {"survived"}


def test_a_one_function_check_baselines_only_the_tests_that_reach_it(project, rmsnorm_slice):
    git(project, "checkout", "-q", "-b", "feature")
    for file, before, after in CHANGES:
        path = project / file
        assert before in path.read_text()
        path.write_text(path.read_text().replace(before, after))
    git(project, "commit", "-q", "-am", "one function in each implementation")
    rows, out = teeth("check", "--base", "main", "--target", "kernels", db=project.parent / "t.db", cwd=project)
    selected = dict(re.findall(r"baseline \[(\w+)\]: (\d+) of \d+ tests", out))
    assert set(selected) == CPU_PROFILES, out
    collected = dict(re.findall(r"baseline \[(\w+)\]: \d+ of (\d+) tests", out))
    assert all(0 < int(selected[p]) < int(collected[p]) for p in selected), out
    # The mutants the slice measured in these functions end the same way with the selected baseline.
    before = {(r["mutant"], r["profile"]): r["status"] for r in rmsnorm_slice}
    now = {(r["mutant"], r["profile"]): r["status"] for r in rows}  # `teeth results`: the check's run
    common = set(before) & set(now)
    assert {p for _, p in common} == CPU_PROFILES, out
    assert "killed" in {now[k] for k in common} and all(now[k] == before[k] for k in common), out
