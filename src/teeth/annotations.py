"""Source comments that steer mutation: `# pragma: no mutate` and `# teeth: equivalent(...)`."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_PRAGMA = re.compile(r"#\s*pragma:\s*no\s+mutate\b")
_EQUIVALENT = re.compile(r"#\s*teeth:\s*equivalent(?:\(([^)]*)\))?\s*:\s*(\S.*)$")


@dataclass
class Annotations:
    no_mutate: set[int] = field(default_factory=set)
    # line -> (operators it applies to, or None for all; the reason given)
    equivalent: dict[int, tuple[frozenset[str] | None, str]] = field(default_factory=dict)

    def skip_reason(self, lines: range, operator: str) -> str | None:
        """Why a mutant spanning `lines` is not run, or None."""
        for line in lines:
            if line in self.no_mutate:
                return "pragma: no mutate"
            if line in self.equivalent:
                operators, reason = self.equivalent[line]
                if operators is None or operator in operators:
                    return f"equivalent: {reason}"
        return None


def read_annotations(source: str) -> Annotations:
    found = Annotations()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return found
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
    return found
