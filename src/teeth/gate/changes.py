"""Changed code: the merge-base with a base ref, the changed lines of a target's files, the mutants in scope."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from teeth.errors import TeethError
from teeth.syntax.functions import FunctionIndex, function_index
from teeth.syntax.sources import read_source

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


class GitError(TeethError):
    """The base cannot be resolved: not a repository, an unknown ref, a shallow clone without the base."""


def git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}") from None


@dataclass
class Changes:
    """What differs between the merge-base and the working tree (uncommitted changes included)."""

    base_ref: str
    merge_base: str
    toplevel: Path
    lines: dict[str, set[int]] = field(default_factory=dict)  # realpath -> changed lines of the current file

    def touches(self, path: str, first: int, last: int) -> bool:
        changed = self.lines.get(os.path.realpath(path))
        return bool(changed) and any(first <= line <= last for line in changed)


def resolve_base(ref: str, cwd: Path) -> tuple[Path, str]:
    """The repository's top level and the merge-base commit of REF and HEAD; one-line errors otherwise."""
    top = git(["rev-parse", "--show-toplevel"], cwd)
    if top.returncode != 0:
        raise GitError(f"{cwd} is not in a git repository; teeth check compares against a base commit")
    toplevel = Path(top.stdout.strip())
    shallow = git(["rev-parse", "--is-shallow-repository"], toplevel).stdout.strip() == "true"
    hint = (f" (this is a shallow clone: fetch the base, e.g. `git fetch --unshallow origin {ref}` "
            "or actions/checkout with fetch-depth: 0)") if shallow else ""
    found = git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], toplevel)
    if found.returncode != 0:
        raise GitError(f"base ref {ref!r} does not exist{hint or '; pass --base REF (a branch, tag or commit)'}")
    merged = git(["merge-base", found.stdout.strip(), "HEAD"], toplevel)
    if merged.returncode != 0:
        if shallow:
            raise GitError(f"no merge-base of {ref!r} and HEAD in this shallow clone: the history between them "
                           f"is missing{hint}")
        raise GitError(f"{ref!r} and HEAD have no common ancestor; pass --base REF")
    return toplevel, merged.stdout.strip()


def changed_lines(ref: str, files: list[Path], cwd: Path) -> Changes:
    """Lines of `files` (as they are now) that differ from the merge-base of REF and HEAD."""
    toplevel, base = resolve_base(ref, cwd)
    changes = Changes(ref, base, toplevel)
    relative: dict[str, Path] = {}
    for file in files:
        try:
            relative[Path(os.path.realpath(file)).relative_to(os.path.realpath(toplevel)).as_posix()] = file
        except ValueError:
            continue  # outside the repository (an installed module): it cannot have changed here
    if not relative:
        return changes
    listed = git(["ls-tree", "-r", "--name-only", base, "--", *relative], toplevel)
    in_base = set(listed.stdout.splitlines())
    for rel, file in relative.items():
        if rel not in in_base:  # new since the base, or untracked: every line is new
            count = len(read_source(file).splitlines())
            changes.lines[os.path.realpath(file)] = set(range(1, count + 1))
    diff = git(["diff", "-U0", "--no-color", "--no-ext-diff", base, "--", *relative], toplevel)
    if diff.returncode != 0:
        raise GitError(f"git diff against {base[:12]} failed: {diff.stderr.strip().splitlines()[-1:]}")
    current: str | None = None
    for line in diff.stdout.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            current = os.path.realpath(toplevel / name[2:]) if name.startswith("b/") else None
        elif line.startswith("@@") and current:
            match = HUNK.match(line)
            if match:
                start, count = int(match.group(1)), int(match.group(2) or 1)
                lines = range(start, start + count) if count else [max(start, 1)]  # a deletion: the line before
                changes.lines.setdefault(current, set()).update(lines)
    return changes


def in_scope(mutants: list, changes: Changes) -> list:
    """Mutants whose outermost function intersects a changed line; module-level ones by their own lines."""
    indexes: dict[str, FunctionIndex] = {}
    chosen = []
    for mutant in mutants:
        if os.path.realpath(mutant.path) not in changes.lines:
            continue
        if mutant.path not in indexes:
            indexes[mutant.path] = function_index(read_source(mutant.path))
        spans = indexes[mutant.path].spans(mutant.function.split(".<locals>")[0])
        own = (mutant.line, mutant.end_line)
        first, last = next((s for s in spans if s[0] <= mutant.line <= s[1]), own)
        if changes.touches(mutant.path, first, last):
            chosen.append(mutant)
    return chosen


def changed_functions(mutants: list, changes: Changes) -> list[str]:
    """`file: function` for each function with mutants in scope, for the report."""
    return sorted({f"{m.file}: {m.function.split('.<locals>')[0] or '<module>'}" for m in in_scope(mutants, changes)})
