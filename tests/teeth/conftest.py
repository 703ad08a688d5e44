"""Fixtures for teeth's own tests: fixture projects copied to a temp dir, and the CLI as a subprocess (the shared
helpers are in tests/helpers)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.helpers.cli import FIXTURES, results_of, teeth_cli


@pytest.fixture
def project(tmp_path):
    """Copy a fixture project (tests/fixtures/NAME) into a temp dir and return its path."""

    def copy(name: str) -> Path:
        destination = tmp_path / name
        shutil.copytree(FIXTURES / name, destination, ignore=shutil.ignore_patterns("__pycache__"))
        return destination

    return copy


@pytest.fixture
def teeth(tmp_path):
    """Run `teeth ARGS` in a directory, with the database outside the project tree."""
    db = tmp_path / "state" / "teeth.db"

    def invoke(*args: str, cwd: Path, timeout: float = 120, use_db: bool = True) -> subprocess.CompletedProcess:
        extra = ["--db", str(db)] if use_db and args and args[0] in {"run", "results", "show", "apply"} else []
        return subprocess.run([sys.executable, "-m", "teeth.cli", *args, *extra], cwd=cwd, capture_output=True,
                              text=True, timeout=timeout)

    invoke.db = db
    return invoke


@pytest.fixture(scope="session")
def weak_suite_run(tmp_path_factory):
    """One `teeth run --target rows` of weak_suite (8 of 10 mutants killed), shared by the tests that only read its
    results: `.root`, `.db`, `.done` (the run's completed process), `.teeth(ARGS)` (a reading command against its
    database) and `.rows()` (its `teeth results` as JSON). A test that changes the project or writes the database
    copies its own project instead."""
    base = tmp_path_factory.mktemp("weak_suite_run")
    root, db = base / "weak_suite", base / "state" / "teeth.db"
    shutil.copytree(FIXTURES / "weak_suite", root, ignore=shutil.ignore_patterns("__pycache__"))
    done = teeth_cli("run", "--target", "rows", "--db", str(db), cwd=root)
    assert done.returncode == 0, done.stderr

    def read(*args: str) -> subprocess.CompletedProcess:
        return teeth_cli(*args, "--db", str(db), cwd=root)

    def rows() -> list[dict]:
        return results_of(read, root)

    read.db = db
    return SimpleNamespace(root=root, db=db, done=done, teeth=read, rows=rows)
