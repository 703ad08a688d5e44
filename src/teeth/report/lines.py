"""One line per surviving mutant, `path:line:col: STATUS OPERATOR: change (mutant ID)`, for editors and CI problem
matchers."""

from __future__ import annotations

from pathlib import Path

from teeth.core import SURVIVING  # what `--format lines` lists unless `--status` says otherwise
from teeth.errors import TeethError
from teeth.store.records import Mutant, Result
from teeth.syntax.sources import located, read_source, span

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


def change_text(mutant: Mutant) -> str:
    change = mutant.change
    return change if len(change) <= WIDTH else change[: WIDTH - 1] + "…"


def survivor_lines(results: list[Result], root: Path, statuses: tuple[str, ...] = SURVIVING) -> list[str]:
    """The lines of the results whose status is one of `statuses`; a mutant of several profiles once per status."""
    sources: dict[Path, str] = {}
    lines, seen = [], set()
    for row in results:
        m, status = row.mutant, row.status
        if status not in statuses or (m.id, status) in seen:
            continue
        seen.add((m.id, status))
        path = located(root, m.file)
        if path not in sources:
            try:
                sources[path] = read_source(path) if path.is_file() else ""
            except (OSError, TeethError):
                sources[path] = ""
        (line, column), _ = span(sources[path], m.line, m.original)
        why = f" ({row.outcome.why})" if row.outcome.why else ""
        lines.append(f"{shown_path(root, m.file)}:{line}:{column}: {status}{why} {m.operator}: "
                     f"{change_text(m)} (mutant {m.id})")
    return lines
