"""`teeth apply`: one mutant written into the working tree, refused over uncommitted work, reverted byte for byte."""

from __future__ import annotations

import codecs
import hashlib
import subprocess
from pathlib import Path

import pytest
from tests.helpers.cli import results_of

from teeth.errors import EXIT_TREE_REFUSED, EXIT_USAGE
from teeth.discovery.working_tree import _decoded, encode_like


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                          capture_output=True, text=True, check=True).stdout


def committed(root: Path) -> Path:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def survivor(project, teeth):
    """The weak_suite project committed to git, run once; its wrong_slice_start survivor."""
    root = committed(project("weak_suite"))
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    (row,) = [r for r in results_of(teeth, root) if r["operator"] == "wrong_slice_start" and r["status"] == "survived"]
    return root, row["mutant"]


def test_apply_writes_the_mutant_and_revert_restores_every_byte(survivor, teeth):
    root, mutant = survivor
    before = sha(root / "rows.py")
    done = teeth("apply", mutant[:8], cwd=root)
    assert done.returncode == 0, done.stderr
    diff = git(root, "diff", "-U0")
    assert "-    return batch[start:start + size]" in diff and "+    return batch[0:start + size]" in diff
    assert git(root, "diff", "--numstat").split() == ["1", "1", "rows.py"]  # that line, nothing else
    assert (teeth.db.parent / "applied" / f"{mutant}.json").is_file()
    done = teeth("apply", mutant, "--revert", cwd=root)
    assert done.returncode == 0, done.stderr
    assert sha(root / "rows.py") == before and git(root, "status", "--porcelain") == ""
    assert not (teeth.db.parent / "applied" / f"{mutant}.json").exists()


def test_apply_refuses_a_file_with_uncommitted_changes(survivor, teeth):
    root, mutant = survivor
    path = root / "rows.py"
    path.write_text(path.read_text() + "# work in progress\n")
    before = sha(path)
    done = teeth("apply", mutant, cwd=root)
    assert done.returncode == EXIT_TREE_REFUSED
    assert "uncommitted changes" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and sha(path) == before


def test_apply_refuses_a_file_git_does_not_track(project, teeth):
    root = project("weak_suite")  # not a git repository
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    mutant = results_of(teeth, root)[0]["mutant"]
    before = sha(root / "rows.py")
    done = teeth("apply", mutant, cwd=root)
    assert done.returncode == EXIT_TREE_REFUSED and "not tracked by git" in done.stderr
    assert sha(root / "rows.py") == before


def test_revert_refuses_a_file_changed_since_apply_and_keeps_the_original(survivor, teeth):
    root, mutant = survivor
    original = (root / "rows.py").read_bytes()
    assert teeth("apply", mutant, cwd=root).returncode == 0
    path = root / "rows.py"
    path.write_text(path.read_text() + "def test_it():\n    pass\n")
    edited = sha(path)
    done = teeth("apply", mutant, "--revert", cwd=root)
    assert done.returncode == EXIT_TREE_REFUSED and "changed since teeth apply" in done.stderr
    assert sha(path) == edited
    path.write_bytes(encode_like(original, _decoded(original).replace("batch[start:", "batch[0:")))
    assert teeth("apply", mutant, "--revert", cwd=root).returncode == 0  # back to the applied mutant: revert works
    assert path.read_bytes() == original


def test_apply_twice_and_revert_of_nothing_are_refused(survivor, teeth):
    root, mutant = survivor
    assert teeth("apply", mutant, cwd=root).returncode == 0
    assert teeth("apply", mutant, cwd=root).returncode == EXIT_TREE_REFUSED
    assert teeth("apply", mutant, "--revert", cwd=root).returncode == 0
    done = teeth("apply", mutant, "--revert", cwd=root)
    assert done.returncode == EXIT_USAGE and "no applied mutant" in done.stderr


def test_apply_of_an_unknown_mutant_is_bad_input(survivor, teeth):
    root, _ = survivor
    done = teeth("apply", "ffffffffffff", cwd=root)
    assert done.returncode == EXIT_USAGE and "no mutant" in done.stderr
    assert git(root, "status", "--porcelain") == ""


def test_the_mutated_bytes_keep_the_files_encoding_bom_and_line_endings():
    text = "# -*- coding: latin-1 -*-\r\ndef f(x):\r\n    return x[1:]  # café\r\n\r\nY = 2\r\n"
    raw = text.encode("latin-1")
    mutated = encode_like(raw, _decoded(raw).replace("x[1:]", "x[0:]"))
    assert mutated == text.replace("x[1:]", "x[0:]").encode("latin-1")
    bom = codecs.BOM_UTF8 + "a = 1\r\nb = 'é'\nc = 3\r\n".encode()
    assert encode_like(bom, "a = 1\nb = 'è'\nc = 3\n") == codecs.BOM_UTF8 + "a = 1\r\nb = 'è'\nc = 3\r\n".encode()
    grown = encode_like(b"a = 1\r\nb = 2\r\n", "a = 1\nif b:\n    pass\nb = 2\n")
    assert grown == b"a = 1\r\nif b:\r\n    pass\r\nb = 2\r\n"
