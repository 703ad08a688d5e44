"""`teeth invariance`: the status matrix op x check per profile, as a table or JSON; exit 0 green, 1 red, 2 bad input."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .checks import CHECKS

_STYLE = {"pass": "green", "fail": "bold red", "error": "bold red", "skip": "yellow", "known": "magenta"}


def _ensure_kernels_importable() -> None:
    """Put the project root (the folder holding kernels/specs.py) first on sys.path, as pytest does."""
    for folder in (Path.cwd(), *Path.cwd().parents):
        if (folder / "kernels" / "specs.py").is_file():
            if str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
            return


@click.command("invariance")
@click.option("--profile", "profiles", multiple=True, help="Profile to run (repeatable); default: all.")
@click.option("--op", "ops", multiple=True, help="Op to run (repeatable); default: all in OP_SPECS.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def invariance_command(profiles, ops, fmt):
    """Print the gradient-invariance status matrix (op x check) with verdicts.

    Exit codes: 0 every cell green, skipped or a known tracked failure; 1 a red cell; 2 bad input.
    """
    _ensure_kernels_importable()
    try:
        from kernels.profiles import PROFILES
        from kernels.specs import OP_SPECS
    except ImportError as exc:
        click.echo(f"error: cannot import the kernels target (run from the project root): {exc}", err=True)
        sys.exit(2)
    for name, known, kind in [(p, PROFILES, "profile") for p in profiles] + [(o, OP_SPECS, "op") for o in ops]:
        if name not in known:
            click.echo(f"error: unknown {kind} {name!r}; known: {', '.join(known)}", err=True)
            sys.exit(2)
    from .matrix import status_matrix

    cells = status_matrix(ops=list(ops) or None, profiles=list(profiles) or None)
    if fmt == "json":
        click.echo(json.dumps({"checks": list(CHECKS), "cells": [c.to_dict() for c in cells],
                               "red": sum(c.red for c in cells)}, indent=2))
    else:
        _print_table(cells)
    sys.exit(1 if any(c.red for c in cells) else 0)


def _print_table(cells) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=150)
    table = Table(title="teeth invariance: op x check")
    for column in ("profile", "op", *CHECKS):
        table.add_column(column)
    rows: dict[tuple[str, str], dict[str, object]] = {}
    for c in cells:
        rows.setdefault((c.profile, c.op), {})[c.check] = c
    for (profile, op), by_check in rows.items():
        table.add_row(profile, op, *[_cell_text(by_check.get(check)) for check in CHECKS])
    console.print(table)
    notes = [c for c in cells if c.status in ("fail", "error", "known")]
    skipped = sorted({(c.profile, c.detail) for c in cells if c.status == "skip"})
    for c in notes:
        tag = f"known ({c.tracking})" if c.status == "known" else c.status.upper()
        console.print(f"[{_STYLE[c.status]}]{tag}[/] " + escape(f"{c.op} [{c.profile}] {c.check}: {c.detail}"))
    for profile, reason in skipped:
        console.print("[yellow]skipped[/] " + escape(f"{profile}: {reason}"))
    red = sum(c.red for c in cells)
    console.print(f"{len(cells)} cells: {red} red" + (" (untracked)" if red else ""))


def _cell_text(cell) -> str:
    if cell is None:
        return "-"
    return f"[{_STYLE[cell.status]}]{cell.status}[/]"
