"""JSON in Stryker's mutation-testing-report-schema v2 (mutation-testing-elements), for its viewers and dashboards.

Used by `teeth results --format stryker` (any run) and `teeth check --format json` (the checked runs). The
official schema is vendored for the tests in tests/teeth/schemas/mutation-testing-report-schema.json.
"""

from __future__ import annotations

import importlib.metadata
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from teeth import DISTRIBUTION
from teeth.core import Status
from teeth.errors import TeethError
from teeth.store.records import Matrix, MatrixEntry, Result, TestRecord
from teeth.syntax.sources import located, read_source, span
from teeth.store.db import Store

SCHEMA_VERSION = "2"
STATUS = {Status.KILLED: "Killed", Status.SURVIVED: "Survived", Status.NO_COVERAGE: "NoCoverage",
          Status.TIMEOUT: "Timeout", Status.ERROR: "RuntimeError", Status.SKIPPED: "Ignored"}
REQUIRED_MUTANT_KEYS = ("id", "mutatorName", "location", "status")
STATUS_ENUM = ("Killed", "Survived", "NoCoverage", "CompileError", "RuntimeError", "Timeout", "Ignored", "Pending")
MODULE = "<module>"


@dataclass
class RunPart:
    """One run of one target, as the report shows it."""

    results: list[Result]
    tests: list[TestRecord]  # Store.baseline_tests
    root: Path  # where the target's files and test files are read from
    fail_under: float | None = None
    relative_to: Path | None = None  # file paths are keyed relative to this (default: root)
    matrix: Matrix | None = None  # Store.kill_matrix: with --full-matrix, every killing and every executing test


def run_part(store: Store, run_id: int, root: Path, fail_under: float | None = None) -> RunPart:
    return RunPart(store.results(run_id), store.baseline_tests(run_id), Path(root), fail_under,
                   matrix=store.kill_matrix(run_id))


def check_part(store: Store, check) -> RunPart:
    """A `teeth check` target's run, keyed relative to the repository's top level."""
    return RunPart(check.verdict.results, store.baseline_tests(check.verdict.run_id), check.target.root,
                   check.verdict.policy.fail_under, Path(check.changes.toplevel),
                   matrix=store.kill_matrix(check.verdict.run_id))


def _location(source: str, line: int, original: str) -> dict:
    (start_line, start_col), (end_line, end_col) = span(source, line, original)
    return {"start": {"line": start_line, "column": start_col}, "end": {"line": end_line, "column": end_col}}


def _read(path: Path) -> str | None:
    try:
        return read_source(path) if path.is_file() else None
    except (OSError, TeethError):
        return None


def _name(path: Path, base: Path, fallback: str) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return fallback


class _Coverage:
    """Which baseline tests executed a mutant's function (teeth records coverage per outer function)."""

    def __init__(self, tests: list[TestRecord]):
        self.by_key: dict[tuple[str, str], list[str]] = defaultdict(list)
        for test in tests:
            for key in test.covers or {}:
                self.by_key[(test.profile, key)].append(test.test)

    def covered_by(self, row: Result) -> list[str]:
        outer = (row.mutant.function or "").split(".<locals>")[0] or MODULE
        found = self.by_key.get((row.profile, f"{row.mutant.file}::{outer}"))
        if found is None:  # class-body code is recorded as module-level
            found = self.by_key.get((row.profile, f"{row.mutant.file}::{MODULE}"), [])
        return found


def _mutant(row: Result, source: str, coverage: _Coverage, many_profiles: bool,
            matrix: dict[str, MatrixEntry] | None = None) -> dict:
    """The result as a Stryker mutant; `matrix`: its full matrix under its profile (test -> its verdict), when the
    run recorded one."""
    m, o = row.mutant, row.outcome
    mutant = {
        "id": f"{m.id}@{row.profile}" if many_profiles else m.id,
        "mutatorName": m.operator,
        "replacement": m.replacement,
        "location": _location(source, m.line, m.original),
        "status": STATUS.get(o.status, "RuntimeError"),
        "description": f"{m.operator} in {m.function or MODULE} (op {m.op}, profile {row.profile})",
    }
    if o.status != Status.SKIPPED:
        covered = [] if o.status == Status.NO_COVERAGE else coverage.covered_by(row)
        if o.killed_by and o.killed_by not in covered:
            covered = [*covered, o.killed_by]
        mutant["coveredBy"] = covered
        mutant["testsCompleted"] = o.tests_run or 0
    if matrix:  # --full-matrix: the tests that ran it are the ones that executed it; each failing one killed it
        mutant["coveredBy"] = list(matrix)
        mutant["testsCompleted"] = len(matrix)
        killers = [test for test, verdict in matrix.items() if verdict.failed]
        if killers:
            mutant["killedBy"] = killers
    elif o.killed_by:
        mutant["killedBy"] = [o.killed_by]
    reason = o.shown_detail or (f"check: {o.check}" if o.check else None)
    if o.why:  # why it survived, then what was seen
        reason = f"{o.why}: {reason}" if reason else o.why.value
    if reason:
        mutant["statusReason"] = reason
    if o.duration is not None:
        mutant["duration"] = round(1000 * o.duration)
    return mutant


def _test_files(parts: list[RunPart]) -> dict[str, dict]:
    """The runs' baseline tests and killing tests, one entry per test file (pytest node ids: FILE::NAME)."""
    files: dict[str, dict] = {}
    seen: set[str] = set()
    for part in parts:
        node_ids = [t.test for t in part.tests] + [r.outcome.killed_by for r in part.results if r.outcome.killed_by]
        for node_id in node_ids:
            if node_id in seen:
                continue
            seen.add(node_id)
            file, _, name = node_id.partition("::")
            if file not in files:
                files[file] = {"tests": []}
                source = _read(located(part.root, file))
                if source is not None:
                    files[file]["source"] = source
            files[file]["tests"].append({"id": node_id, "name": name or node_id})
    return files


def report(parts: list[RunPart], thresholds: tuple[int, int] = (80, 60)) -> dict:
    """One report over the given runs; files are keyed by their path relative to each part's `relative_to`."""
    files: dict[str, dict] = {}
    sources: dict[Path, str] = {}
    for part in parts:
        many_profiles = len({r.profile for r in part.results}) > 1
        coverage = _Coverage(part.tests)
        for row in part.results:
            path = located(part.root, row.mutant.file).resolve()
            if path not in sources:
                sources[path] = _read(path) or ""
            name = _name(path, part.relative_to or part.root, row.mutant.file)
            entry = files.setdefault(name, {"language": "python", "source": sources[path], "mutants": []})
            matrix = (part.matrix or {}).get(row.mutant.id, {}).get(row.profile)
            entry["mutants"].append(_mutant(row, sources[path], coverage, many_profiles, matrix))
    fail_under = [p.fail_under for p in parts if p.fail_under is not None]
    high, low = thresholds
    if fail_under:
        low = round(100 * min(fail_under))
        high = max(high, low)
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    found = {"$schema": "https://git.io/mutation-testing-schema", "schemaVersion": SCHEMA_VERSION,
             "thresholds": {"high": high, "low": low}, "files": files,
             "testFiles": _test_files(parts), "framework": {"name": "teeth", "version": version}}
    if len(parts) == 1:
        found["projectRoot"] = str((parts[0].relative_to or parts[0].root).resolve())
    return found


def report_json(parts: list[RunPart]) -> str:
    return json.dumps(report(parts), indent=2)
