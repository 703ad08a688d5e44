"""Reading a target's Python source as Python does: the PEP 263 coding line, or a UTF-8 byte order mark."""

from __future__ import annotations

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
