"""`teeth invariance`: the status matrix op x check per profile, as a table or JSON; exit 0 green, 1 red, 2 bad input."""
from __future__ import annotations

import json
import sys

import click

from teeth.cli.options import config_option, format_option
from teeth.errors import ConfigError
from teeth.invariance.checks import CHECKS

_STYLE = {"pass": "green", "fail": "bold red", "error": "bold red", "skip": "yellow", "known": "magenta"}


@click.command("invariance")
@click.option("--profile", "profiles", multiple=True, help="Profile to run (repeatable); default: all.")
@click.option("--op", "ops", multiple=True, help="Op to run (repeatable); default: all the config's specs name.")
@format_option("table", "json", show_default=True)
@config_option
def invariance_command(profiles, ops, fmt, config_path):
    """Print the gradient-invariance status matrix (op x check) with verdicts, for the op specs and profiles
    that [tool.teeth.invariance] names.

    Exit codes: 0 every cell green, skipped or a known tracked failure; 1 a red cell; 2 bad input.
    """
    from teeth.config.targets import load_config

    from teeth.invariance.suite import load_suite

    config = load_config(config_path)
    suite = load_suite(config.invariance, config.path)
    for name, known, kind in ([(p, suite.profiles, "profile") for p in profiles]
                              + [(o, suite.specs, "op") for o in ops]):
        if name not in known:
            raise ConfigError(f"unknown {kind} {name!r}; known: {', '.join(known)}")
    from teeth.invariance.matrix import status_matrix

    cells = status_matrix(suite, ops=list(ops) or None, profiles=list(profiles) or None)
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
