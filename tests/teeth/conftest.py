"""Fixtures for teeth's own tests: fixture projects copied to a temp dir, and the CLI as a subprocess (the shared
helpers are in tests/helpers)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import FIXTURES


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
