"""One line per surviving mutant, `path:line:col: STATUS OPERATOR: change (mutant ID)`, for editors and CI problem
matchers."""

from __future__ import annotations

from pathlib import Path

from teeth.core import SURVIVING  # what `--format lines` lists unless `--status` says otherwise
from teeth.errors import TeethError
from teeth.sources import located, read_source, span

WIDTH = 120  # a change longer than this is cut, with an ellipsis


def shown_path(root: Path, file: str) -> str:
    """The file as a path from the current directory when it lies below it, else absolute; an installed module's
    as shown (from its import root)."""
    if not (root / file).exists() and located(root, file) != root / file:
        return file
    path = (root / file).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def change_text(row: dict) -> str:
    change = " ".join(f"{row['original']} -> {row['replacement']}".split())
    return change if len(change) <= WIDTH else change[: WIDTH - 1] + "…"


def survivor_lines(results: list[dict], root: Path, statuses: tuple[str, ...] = SURVIVING) -> list[str]:
    """The lines of the results whose status is one of `statuses`; a mutant of several profiles once per status."""
    sources: dict[Path, str] = {}
    lines, seen = [], set()
    for row in results:
        if row["status"] not in statuses or (row["mutant_id"], row["status"]) in seen:
            continue
        seen.add((row["mutant_id"], row["status"]))
        path = located(root, row["file"])
        if path not in sources:
            try:
                sources[path] = read_source(path) if path.is_file() else ""
            except (OSError, TeethError):
                sources[path] = ""
        (line, column), _ = span(sources[path], row["line"], row["original"])
        why = f" ({row['why']})" if row.get("why") else ""
        lines.append(f"{shown_path(root, row['file'])}:{line}:{column}: {row['status']}{why} {row['operator']}: "
                     f"{change_text(row)} (mutant {row['mutant_id']})")
    return lines
