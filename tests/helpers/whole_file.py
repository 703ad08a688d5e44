"""Discovery as it was before edits: each mutant's whole file compiled and diffed (the reference a faster discovery
must equal), as a context manager."""

from __future__ import annotations

import contextlib
import difflib
from unittest import mock

from teeth.discovery.edits import CONTEXT, SourceText, apply


def _compiles(self: SourceText, edit, function) -> bool:
    try:
        compile(apply(self.text, edit), self.path, "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def _diff(self: SourceText, edit, name: str) -> str:
    return "".join(difflib.unified_diff(self.text.splitlines(True), apply(self.text, edit).splitlines(True),
                                        f"a/{name}", f"b/{name}", n=CONTEXT))


@contextlib.contextmanager
def whole_file_discovery():
    """Within it, discovery compiles and diffs every mutant's whole file."""
    with mock.patch.object(SourceText, "compiles", _compiles), mock.patch.object(SourceText, "diff", _diff):
        yield


def fingerprint(discovery) -> tuple:
    """What must not change: each mutant's id, place, change, code, diff and skip, and the counts."""
    return ([(m.id, m.file, m.line, m.end_line, m.function, m.swap, m.operator, m.original, m.replacement, m.code,
              m.diff, m.lines, m.skip) for m in discovery.mutants],
            discovery.arid, discovery.duplicates, discovery.unviable)
