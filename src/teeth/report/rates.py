"""A kill rate as every output writes it: its text and its colour."""

from __future__ import annotations


def rate_text(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def rate_style(rate: float | None) -> str:
    if rate is None:
        return "dim"
    return "green" if rate >= 0.9 else "yellow" if rate >= 0.6 else "red"
