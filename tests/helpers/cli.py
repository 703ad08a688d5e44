"""teeth's CLI for tests: in process (bad input) or as a subprocess, the fixture projects, the bad-input contract."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from teeth.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROW_ONE_TEST = ("\n\ndef test_rows_from_the_middle_are_taken():\n"
                "    assert take_rows([10, 11, 12, 13], 1, 2) == [11, 12]\n")


def teeth_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`teeth ARGS` as a subprocess in a directory (no database added)."""
    return subprocess.run([sys.executable, "-m", "teeth.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


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


def results_of(teeth, cwd: Path, *args: str) -> list[dict]:
    """`teeth results --format json ARGS` of the `teeth` fixture's database, read in this process (a reading command
    starts no worker; a subprocess would pay the CLI's second of imports again); through `teeth` itself when it has
    no database of its own."""
    if getattr(teeth, "db", None) is None:
        done = teeth("results", "--format", "json", *args, cwd=cwd)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    done = teeth_in_process("results", "--format", "json", *args, "--db", teeth.db, cwd=cwd)
    assert done.exit_code == 0, (done.output, done.exception)
    return json.loads(done.stdout)


def two_runs_of_weak_suite(base: Path) -> tuple[Path, Path]:
    """weak_suite run once, then again with a stronger suite; returns (project root, database)."""
    root, db = base / "weak_suite", base / "state" / "teeth.db"
    shutil.copytree(FIXTURES / "weak_suite", root, ignore=shutil.ignore_patterns("__pycache__"))
    for attempt in range(2):
        if attempt:
            with open(root / "tests" / "test_rows.py", "a") as suite:
                suite.write(ROW_ONE_TEST)
        done = teeth_cli("run", "--target", "rows", "--db", str(db), cwd=root)
        assert done.returncode == 0, done.stderr
    return root, db


def verdict_by_hand(teeth, root: Path, mutant: str) -> str:
    """The mutant written into the project (`teeth apply`), a plain pytest run of `tests`, the file restored:
    `killed` when the run fails, else `survived`."""
    assert teeth("apply", mutant, cwd=root).returncode == 0
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                              capture_output=True, text=True, timeout=120)
    finally:
        assert teeth("apply", mutant, "--revert", cwd=root).returncode == 0
    return "survived" if done.returncode == 0 else "killed"
