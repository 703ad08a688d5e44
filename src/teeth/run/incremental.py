"""Incremental runs: the cache key of an outcome, and the stored outcomes that can be reused without a worker."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

from teeth.config.targets import Target
from teeth.core import Outcome, Status
from teeth.config.profiles import Profile
from teeth.store.db import Store

KEYED_PACKAGES = ("torch", "triton")  # an upgrade of either invalidates every stored outcome


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def target_distributions(files: list[Path]) -> list[str]:
    """The installed distributions the target's files belong to (a `modules` target), as `name==version`."""
    roots = sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}, key=len, reverse=True)
    tops = set()
    for file in files:
        real = os.path.realpath(file)
        for root in roots:
            if real.startswith(root + os.sep) and ("site-packages" in root or "dist-packages" in root):
                tops.add(Path(os.path.relpath(real, root)).parts[0].removesuffix(".py"))
                break
    if not tops:
        return []
    owners = importlib.metadata.packages_distributions()
    return sorted({f"{name}=={_version(name)}" for top in tops for name in owners.get(top, [])})


def _sha(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class OutcomeCache:
    """Keys outcomes on what decides them; with `reuse`, hands back stored outcomes whose key still matches.

    key = sha256(mutated file text, profile, package versions, test code), where the test code is, for a
    `killed` outcome, the killing test's file and the conftest.py files above it, and for any other outcome every
    test file of the target (any test change might now kill it); a kill by a test a baseline found flaky is never
    reused. The package versions are torch's and triton's and,
    for a `modules` target, those of the distributions its files belong to: an upgrade invalidates the outcome.
    """

    def __init__(self, target: Target, store: Store, reuse: bool = True):
        self.target, self.store, self.reuse = target, store, reuse
        self._files: dict[Path, str] = {}
        self._all_tests: str | None = None
        self._versions: list[str] | None = None

    # -- keys -----------------------------------------------------------------
    def _file(self, path: Path) -> str:
        if path not in self._files:
            try:
                self._files[path] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                self._files[path] = "missing"
        return self._files[path]

    def _conftests(self, folder: Path) -> list[Path]:
        found, root = [], self.target.root
        while True:
            if (folder / "conftest.py").is_file():
                found.append(folder / "conftest.py")
            if folder == root or root not in folder.parents:
                return found
            folder = folder.parent

    def versions(self) -> list[str]:
        if self._versions is None:
            self._versions = [f"{name}=={_version(name)}" for name in KEYED_PACKAGES] + \
                target_distributions(self.target.files)
        return self._versions

    def profile_key(self, profile: Profile) -> str:
        checked = ["bounds_check"] if profile.checks_bounds else []  # a survivor without it may die with it
        return _sha(profile.name, json.dumps(sorted(profile.env.items())), *profile.pytest_args, *checked, "|",
                    *self.target.pytest_args, "|", *self.target.tests, "|", *self.versions())

    def all_tests_key(self) -> str:
        """Every .py file under the target's test paths, and the conftest.py files above them."""
        if self._all_tests is None:
            files: set[Path] = set()
            for test in self.target.tests:
                path = (self.target.root / test.split("::")[0]).resolve()
                if path.is_dir():
                    files.update(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
                    files.update(self._conftests(path))
                else:
                    files.add(path)
                    files.update(self._conftests(path.parent))
            self._all_tests = _sha(*(f"{p}:{self._file(p)}" for p in sorted(files)))
        return self._all_tests

    def killing_test_key(self, test_id: str) -> str:
        path = (self.target.root / test_id.split("::")[0]).resolve()
        return _sha(*(f"{p}:{self._file(p)}" for p in [path, *self._conftests(path.parent)]))

    def key(self, mutant, profile: Profile, status: Status, killed_by: str | None) -> str | None:
        """None for a status no test decides (skipped): never cached."""
        if not Status(status).tested:
            return None
        tests = self.killing_test_key(killed_by) if status == Status.KILLED and killed_by else self.all_tests_key()
        return _sha(hashlib.sha256(mutant.code.encode()).hexdigest(), self.profile_key(profile), status, tests)

    # -- reuse ----------------------------------------------------------------
    def partition(self, profile: Profile, mutants: list) -> tuple[list[Outcome], list]:
        """(outcomes to record as reused, mutants that must run)."""
        if not self.reuse or not mutants:
            return [], mutants
        latest = self.store.newest_keyed_outcomes(profile.name, [m.id for m in mutants])
        flaky = self.store.flaky_tests(self.target.name, profile.name)  # a kill by one of them is no evidence
        reused, remaining = [], []
        for mutant in mutants:
            stored = latest.get(mutant.id)
            outcome = stored.outcome if stored is not None else None
            if mutant.skip or outcome is None or outcome.killed_by in flaky or \
                    outcome.cache_key != self.key(mutant, profile, outcome.status, outcome.killed_by):
                remaining.append(mutant)
                continue
            origin = outcome.reused_from or stored.run.id
            detail = outcome.detail if outcome.reused_from else \
                f"reused from run {origin}" + (f": {outcome.detail}" if outcome.detail else "")
            reused.append(outcome.replace(detail=detail, reused_from=origin))
        return reused, remaining
