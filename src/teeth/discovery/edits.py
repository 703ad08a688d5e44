"""A mutant's change as an edit of its file's text: where it splices, whether it compiles, its diff."""

from __future__ import annotations

import __future__
import bisect
import difflib
import re
from dataclasses import dataclass

Edit = tuple[int, int, str]  # source[start:end] becomes the text

FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_MODULE_GLOBAL = re.compile(r"^[ \t]*global\b", re.MULTILINE)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
CONTEXT = 2  # lines of context around a change in a mutant's diff


def apply(source: str, edit: Edit) -> str:
    start, end, text = edit
    return source[:start] + text + source[end:]


def edit_between(before: str, after: str) -> Edit:
    """The one edit that makes `after` of `before`: what lies between their common prefix and common suffix."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    tail = 0
    while tail < limit - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return start, len(before) - tail, after[start:len(after) - tail]


@dataclass
class SourceText:
    """One file's text with its line offsets and the line spans a change is compiled within.

    A change can only make its file fail to compile within the smallest unit the compiler checks as a whole: the
    outermost function holding it (no scope around it but classes and the module, so a `nonlocal` or a `return`
    means the same alone), else the module-level statement holding it. Compiling that unit alone, with the file's
    `from __future__` flags, gives the file's verdict at the cost of a few lines instead of the whole file. A
    module-scope `global` ties module-level statements together: such files compile whole for module-level changes.
    """

    text: str
    statements: list[tuple[int, int]]  # each module-level statement's first and last line (1-based), in order
    path: str = "<source>"

    def __post_init__(self) -> None:
        # Python's and libcst's lines end at \r\n, \r or \n; str.splitlines (difflib's lines, the diff's) also at
        # \x0c, \x1c-\x1e, \x85, \u2028, \u2029: positions and units are in the first, the diff in the second
        self.code_offsets = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        if self.code_offsets[-1] != len(self.text):
            self.code_offsets.append(len(self.text))
        try:  # the compiler flags of the file's `from __future__` imports
            self.futures = compile(self.text, self.path, "exec", dont_inherit=True).co_flags & FUTURE_FLAGS
            self.whole = False
        except (SyntaxError, ValueError):  # a file that does not compile as it is: each change is compiled whole
            self.futures, self.whole = 0, True
        self.offsets = [0]
        for line in self.text.splitlines(True):
            self.offsets.append(self.offsets[-1] + len(line))
        self.lines = self.text.splitlines(True)
        self.module_global = bool(_MODULE_GLOBAL.search(self.text))
        self._firsts = [first for first, _ in self.statements]

    def offset(self, line: int, column: int) -> int:
        """The character offset of a libcst position (1-based line, 0-based column)."""
        return self.code_offsets[line - 1] + column

    @staticmethod
    def _line_of(offsets: list[int], offset: int) -> int:
        return min(bisect.bisect_right(offsets, offset), max(1, len(offsets) - 1))

    def changed_lines(self, edit: Edit, offsets: list[int] | None = None) -> tuple[int, int]:
        """The first and last line (1-based, of `offsets`: the diff's lines by default) the edit touches, the line
        its end falls on included: text inserted without a newline joins that line."""
        start, end, _ = edit
        offsets = self.offsets if offsets is None else offsets
        return self._line_of(offsets, start), self._line_of(offsets, end)

    def compiles(self, edit: Edit, function: tuple[int, int] | None) -> bool:
        """Does the file compile with `edit` applied? `function`: the first and last line of the outermost function
        holding the change (decorators included), None outside every function."""
        first, last = self.changed_lines(edit, self.code_offsets)
        unit = None
        if self.whole:
            pass
        elif function is not None and function[0] <= first and last <= function[1]:
            unit = function
        elif not self.module_global:
            at = bisect.bisect_right(self._firsts, first) - 1
            if at >= 0 and self.statements[at][0] <= first and last <= self.statements[at][1]:
                unit = self.statements[at]
        start, end, text = edit
        if unit is None:
            code = apply(self.text, edit)
        else:
            lines = self.code_offsets
            code = self.text[lines[unit[0] - 1]:start] + text + self.text[end:lines[unit[1]]]
            if code[:1] in (" ", "\t"):  # a method: inside a block, as it stands in its class
                code = "if 1:\n" + code
        try:
            compile(code, self.path, "exec", flags=self.futures)
        except (SyntaxError, ValueError):
            return False
        return True

    def diff(self, edit: Edit, name: str) -> str:
        """The unified diff of the file before and after `edit`, with CONTEXT lines around the change, computed on
        the changed lines and their context only (difflib on a 1,500-line file costs ~20 ms a mutant), its hunk
        headers numbered as in the whole file. It is difflib's diff of the whole file for every mutant of the
        batcher and kernels targets and of the large sample of benchmarks/bench_discovery.py; where the file repeats
        a block of lines next to the change, difflib may align the repeat differently, in an equally valid diff."""
        first, last = self.changed_lines(edit)
        low, high = self._run(first - 1, min(last, len(self.lines)))  # difflib may slide a change along a run
        low, high = self._run(max(0, low - CONTEXT - 1), min(len(self.lines), high + CONTEXT + 1))
        start, end, text = edit
        after = (self.text[self.offsets[low]:start] + text + self.text[end:self.offsets[high]]).splitlines(True)
        out = []
        for line in difflib.unified_diff(self.lines[low:high], after, f"a/{name}", f"b/{name}", n=CONTEXT):
            match = _HUNK.match(line) if line.startswith("@@") else None
            if match:
                line = (f"@@ -{int(match[1]) + low}{match[2] or ''} +{int(match[3]) + low}{match[4] or ''} @@"
                        + line[match.end():])
            out.append(line)
        return "".join(out)

    def _run(self, low: int, high: int) -> tuple[int, int]:
        """Lines [low, high) widened over the runs of equal lines at either end."""
        while 0 < low < len(self.lines) and self.lines[low - 1] == self.lines[low]:
            low -= 1
        while 0 < high < len(self.lines) and self.lines[high] == self.lines[high - 1]:
            high += 1
        return low, high
