"""Changed tests: the test functions a change adds or edits under a target's test paths, against the merge-base."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from teeth.gate.changes import HUNK, Changes, GitError, git
from teeth.config.targets import Target
from teeth.syntax.functions import function_index


@dataclass
class ChangedTests:
    """Test functions, as `FILE::Class::name` relative to the target's root (a pytest node id without parameters)."""

    added: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)
    helpers: set[str] = field(default_factory=set)  # test files whose changed lines are outside every test function

    @property
    def any(self) -> bool:
        return bool(self.added or self.edited)

    def node_ids(self, collected: list[str]) -> tuple[list[str], list[str]]:
        """(added, edited): the collected node ids of the changed test functions, parametrised cases included."""
        def function_of(node_id: str) -> str:
            return node_id.split("[", 1)[0]

        return ([t for t in collected if function_of(t) in self.added],
                [t for t in collected if function_of(t) in self.edited])


def test_files(target: Target, conftest: bool = False) -> list[Path]:
    """The .py files under the target's test paths (conftest.py files only when asked: they hold no test)."""
    found: set[Path] = set()
    for entry in target.tests:
        path = (target.root / entry.split("::")[0]).resolve()
        if path.is_dir():
            found.update(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
        elif path.suffix == ".py":
            found.add(path)
    return sorted(p for p in found if conftest or p.name != "conftest.py")


def _tests_of(source: str | None) -> dict[str, tuple[int, int]]:
    """Test functions of a test file (pytest's default names): `Class::name` -> its line span."""
    if source is None:
        return {}
    try:
        index = function_index(source)
    except cst.ParserSyntaxError:
        return {}
    return {span.name.replace(".", "::"): (span.first, span.last) for span in index.outer_functions()
            if span.name.rsplit(".", 1)[-1].startswith("test")}


def changed_tests(target: Target, changes: Changes) -> ChangedTests:
    """The test functions of `target` that differ from the merge-base (uncommitted changes included): added when the
    base has no function of that name in that file, edited when a changed line falls in it."""
    toplevel = Path(os.path.realpath(changes.toplevel))
    root = Path(os.path.realpath(target.root))
    relative: dict[str, Path] = {}
    for file in test_files(target, conftest=True):  # a conftest.py's fixtures are helpers of every test below it
        try:
            relative[Path(os.path.realpath(file)).relative_to(toplevel).as_posix()] = file
        except ValueError:
            continue  # outside the repository: it cannot have changed here
    found = ChangedTests()
    if not relative:
        return found
    diff = git(["diff", "-U0", "--no-color", "--no-ext-diff", changes.merge_base, "--", *relative], toplevel)
    if diff.returncode != 0:
        raise GitError(f"git diff against {changes.merge_base[:12]} failed: {diff.stderr.strip()[-200:]}")
    lines: dict[str, set[int]] = {}
    current = None
    for line in diff.stdout.splitlines():
        if line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and current:
            match = HUNK.match(line)
            if match:
                start, count = int(match.group(1)), int(match.group(2) or 1)
                lines.setdefault(current, set()).update(range(start, start + count) if count else [max(start, 1)])
    untracked = git(["ls-files", "--others", "--exclude-standard", "--", *relative], toplevel).stdout.splitlines()
    for rel in untracked:
        lines[rel] = set(range(1, len(relative[rel].read_text(encoding="utf-8").splitlines()) + 1))
    for rel, changed in lines.items():
        if rel not in relative:
            continue
        path = relative[rel]
        base = git(["show", f"{changes.merge_base}:{rel}"], toplevel)
        before = _tests_of(base.stdout if base.returncode == 0 else None)
        now = _tests_of(path.read_text(encoding="utf-8"))
        key = Path(os.path.realpath(path)).relative_to(root).as_posix()
        inside = set()
        for name, (first, last) in now.items():
            touched = {n for n in changed if first <= n <= last}
            inside |= touched
            if name not in before:
                found.added.add(f"{key}::{name}")
            elif touched:
                found.edited.add(f"{key}::{name}")
        if changed - inside and (base.returncode == 0 or path.name == "conftest.py"):  # a new test file's imports
            found.helpers.add(key)  # and constants are no helper edit; a new conftest.py's fixtures are
    return found
