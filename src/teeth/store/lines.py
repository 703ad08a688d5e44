"""Line numbers as the store keeps them: the compact text "3-7,12" of a test's executed lines."""

from __future__ import annotations


def line_ranges(lines) -> str:
    """Line numbers as the compact text the store keeps: "3-7,12"."""
    parts: list[str] = []
    for line in sorted(set(lines)):
        if parts and parts[-1][1] == line - 1:
            parts[-1][1] = line
        else:
            parts.append([line, line])
    return ",".join(f"{a}-{b}" if a != b else str(a) for a, b in parts)


def parse_ranges(text: str) -> set[int]:
    found: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return found
