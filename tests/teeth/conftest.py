"""Helpers for teeth's own tests: fixture projects copied to a temp dir, and the CLI in process or as a subprocess."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from teeth.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


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


def results_of(teeth, cwd: Path) -> list[dict]:
    done = teeth("results", "--format", "json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def teeth_in_process(*args: str | Path, cwd: Path) -> Result:
    """Run `teeth ARGS` in this process with click's CliRunner, in a directory: for bad input, which starts no
    worker (a subprocess only where signals and forks matter)."""
    with contextlib.chdir(cwd):
        return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line_error(result: Result, *fragments: str, code: int = 2) -> None:
    """teeth's contract for bad input: exit `code`, one line on stderr holding every fragment, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
