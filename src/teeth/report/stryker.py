"""JSON in Stryker's mutation-testing-report-schema (mutation-testing-elements), for its viewers and dashboards."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

from teeth.sources import read_source

SCHEMA_VERSION = "2"
STATUS = {"killed": "Killed", "survived": "Survived", "no_coverage": "NoCoverage", "timeout": "Timeout",
          "error": "RuntimeError", "skipped": "Ignored"}
REQUIRED_MUTANT_KEYS = ("id", "mutatorName", "location", "status")
STATUS_ENUM = ("Killed", "Survived", "NoCoverage", "CompileError", "RuntimeError", "Timeout", "Ignored", "Pending")


def _location(source: str, line: int, original: str) -> dict:
    """1-based start and end of the original text, found on or after its line; the whole line otherwise."""
    lines = source.splitlines(True)
    offset = sum(len(text) for text in lines[: line - 1])
    found = source.find(original, offset) if original else -1
    if found < 0 or source.count("\n", offset, found) > 0:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return {"start": {"line": line, "column": 1}, "end": {"line": line, "column": len(text.rstrip("\n")) + 1}}
    start_col = found - offset + 1
    end = found + len(original)
    end_line = line + source.count("\n", found, end)
    end_col = end - (source.rfind("\n", 0, end) + 1) + 1
    return {"start": {"line": line, "column": start_col}, "end": {"line": end_line, "column": end_col}}


def report(checks, thresholds: tuple[float, float] = (80, 60)) -> dict:
    """One report over every checked target; files are keyed by their path in the repository."""
    files: dict[str, dict] = {}
    sources: dict[Path, str] = {}
    for check in checks:
        many_profiles = len({r["profile"] for r in check.verdict.results}) > 1
        root = Path(check.changes.toplevel).resolve()
        for row in check.verdict.results:
            path = (check.target.root / row["file"]).resolve()
            if path not in sources:
                sources[path] = read_source(path) if path.is_file() else ""
            try:
                name = path.relative_to(root).as_posix()
            except ValueError:
                name = row["file"]
            entry = files.setdefault(name, {"language": "python", "source": sources[path], "mutants": []})
            mutant = {
                "id": f"{row['mutant']}@{row['profile']}" if many_profiles else row["mutant"],
                "mutatorName": row["operator"],
                "replacement": row["replacement"],
                "location": _location(sources[path], row["line"], row["original"]),
                "status": STATUS.get(row["status"], "RuntimeError"),
                "description": f"{row['operator']} in {row['function'] or '<module>'} (op {row['op']}, "
                               f"profile {row['profile']})",
            }
            if row["killed_by"]:
                mutant["killedBy"] = [row["killed_by"]]
            reason = row["detail"] or (f"check: {row['check']}" if row["check"] else None)
            if reason:
                mutant["statusReason"] = reason
            if row["duration"] is not None:
                mutant["duration"] = round(1000 * row["duration"])
            entry["mutants"].append(mutant)
    fail_under = [c.verdict.policy.fail_under for c in checks if c.verdict.policy.fail_under is not None]
    high, low = thresholds
    if fail_under:
        low = round(100 * min(fail_under))
        high = max(high, low)
    try:
        version = importlib.metadata.version("teeth")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {"$schema": "https://git.io/mutation-testing-schema", "schemaVersion": SCHEMA_VERSION,
            "thresholds": {"high": high, "low": low}, "files": files,
            "framework": {"name": "teeth", "version": version}}


def report_json(checks) -> str:
    return json.dumps(report(checks), indent=2)
