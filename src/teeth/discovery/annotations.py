"""Source comments that steer mutation: `# pragma: no mutate`, `# teeth: equivalent(...)` and `# teeth: off` ...
`# teeth: on` blocks."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_PRAGMA = re.compile(r"#\s*pragma:\s*no\s+mutate\b")
_EQUIVALENT = re.compile(r"#\s*teeth:\s*equivalent(?:\(([^)]*)\))?\s*:\s*(\S.*)$")
_BLOCK = re.compile(r"#\s*teeth:\s*(off|on)\b\s*(?::\s*(\S.*))?$")


@dataclass
class Annotations:
    no_mutate: set[int] = field(default_factory=set)
    # line -> (operators it applies to, or None for all; the reason given)
    equivalent: dict[int, tuple[frozenset[str] | None, str]] = field(default_factory=dict)
    # `# teeth: off` ... `# teeth: on`: (first line, last line, the reason given or "")
    off: list[tuple[int, int, str]] = field(default_factory=list)

    def skip_reason(self, lines: range, operator: str) -> str | None:
        """Why a mutant spanning `lines` is not run, or None."""
        for line in lines:
            if line in self.no_mutate:
                return "pragma: no mutate"
            if line in self.equivalent:
                operators, reason = self.equivalent[line]
                if operators is None or operator in operators:
                    return f"equivalent: {reason}"
        for first, last, reason in self.off:
            if first <= lines.stop - 1 and lines.start <= last:
                return f"teeth: off (lines {first}-{last})" + (f": {reason}" if reason else "")
        return None


def read_annotations(source: str) -> Annotations:
    found = Annotations()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return found
    opened: tuple[int, str] | None = None  # the open `# teeth: off` block: its line and reason
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        line = token.start[0]
        if _PRAGMA.search(token.string):
            found.no_mutate.add(line)
        match = _EQUIVALENT.search(token.string)
        if match:
            names = match.group(1)
            operators = frozenset(n.strip() for n in names.split(",") if n.strip()) if names else None
            found.equivalent[line] = (operators, match.group(2).strip())
        block = _BLOCK.search(token.string)
        if block and block.group(1) == "off" and opened is None:
            opened = (line, (block.group(2) or "").strip())
        elif block and block.group(1) == "on" and opened is not None:
            found.off.append((opened[0], line, opened[1]))
            opened = None
    if opened is not None:  # never switched back on: off to the end of the file
        found.off.append((opened[0], max(source.count("\n") + 1, opened[0]), opened[1]))
    return found
