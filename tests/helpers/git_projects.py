"""Fixture projects as git repos for `teeth check`: a base commit on `main`, edits on `feature`, and what was stored."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

TAKE_ROWS = "    return batch[start:start + size]\n"
TAKE_ROWS_CHANGED = "    end = start + size\n    return batch[start:end]\n"
TOTAL = "        result += row\n"
TOTAL_CHANGED = "        result = result + row\n"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def git_repo(root: Path, **config: str) -> Path:
    """The project as the only commit of `main`, with [tool.teeth.targets.rows] settings added, on branch `feature`."""
    if config:
        pyproject = root / "pyproject.toml"
        extra = "".join(f"{key} = {value}\n" for key, value in config.items())
        pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]\n', f'tests = ["tests"]\n{extra}', 1))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    return root


def edit(root: Path, old: str, new: str, commit: bool = True) -> None:
    path = root / "rows.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    if commit:
        git(root, "commit", "-q", "-am", "change one function")


def add_tests(root: Path, *names: str, folder: str = "changes") -> None:
    """Commit test files of the fixture's `folder` into its tests/, as the change under review."""
    for name in names:
        shutil.copy(root / folder / name, root / "tests" / name)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tests only")


def check(teeth, root: Path, *args: str):
    """`teeth check ARGS` as a subprocess, storing in the `teeth` fixture's database."""
    return teeth("check", *args, "--db", str(teeth.db), cwd=root, use_db=False)


def check_runs(db: Path) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("select * from runs where options like '%\"check\"%' order by id")]


def outcomes(db: Path, run_id: int) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(
            "select o.*, m.function, m.operator from outcomes o join mutants m on m.id = o.mutant_id "
            "where o.run_id = ?", [run_id])]
