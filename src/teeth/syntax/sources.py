"""Reading a target's Python source as Python does: the PEP 263 coding line, or a UTF-8 byte order mark."""

from __future__ import annotations

import sys
import tokenize
from pathlib import Path

from teeth.errors import ConfigError


def read_source(path: str | Path) -> str:
    """The file's text, decoded by its coding line (default UTF-8, BOM removed); a one-line error otherwise."""
    try:
        with tokenize.open(path) as handle:
            return handle.read()
    except (SyntaxError, UnicodeDecodeError) as exc:  # tokenize: an unknown coding or bytes it cannot decode
        raise ConfigError(f"{path}: cannot read as Python source: {exc}") from None


def located(root: Path, file: str) -> Path:
    """Where a file as the outputs show it lives now: under `root`; else, for an installed module (shown from its
    import root, `pkg/intervention/batching.py`), in the first folder of sys.path that has it."""
    path = Path(root) / file
    if path.exists() or Path(file).is_absolute():
        return path
    for entry in sys.path:
        candidate = Path(entry or ".") / file
        if candidate.is_file():
            return candidate
    return path


def span(source: str, line: int, original: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """1-based (line, column) of the start and the end (exclusive) of `original`, found on or after `line`
    without crossing a line boundary before it starts; the whole line when it is not there."""
    lines = source.splitlines(True)
    offset = sum(len(text) for text in lines[: line - 1])
    found = source.find(original, offset) if original else -1
    if found < 0 or source.count("\n", offset, found) > 0:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return (line, 1), (line, len(text.rstrip("\n")) + 1)
    end = found + len(original)
    end_line = line + source.count("\n", found, end)
    return (line, found - offset + 1), (end_line, end - (source.rfind("\n", 0, end) + 1) + 1)
