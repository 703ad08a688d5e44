"""`teeth history`: kill rate per op x profile over runs and commits."""

from __future__ import annotations


import click

from teeth.cli.options import console, db_option, format_option
from teeth.store.db import Store, db_path


@click.command("history")
@click.option("--target", "target_name", default=None, help="Only runs of this target.")
@click.option("--op", "ops", multiple=True, help="Only this op (repeatable).")
@click.option("--profile", "profile_names", multiple=True, help="Only this profile (repeatable).")
@click.option("--since", default=None, help="A run id (that run and later) or a date YYYY-MM-DD (UTC, inclusive).")
@format_option("table", "json", "csv")
@db_option()
def history_command(target_name, ops, profile_names, since, fmt, db):
    """Kill rate per op x profile over runs and commits, with a sparkline per row."""
    from teeth.report.history import history_csv, history_json, left_out, load_history, nothing_to_show, parse_since
    from teeth.report.chart import history_table

    window = parse_since(since)
    store = Store(db_path(db), create=False)
    found = load_history(store, target_name, tuple(ops), tuple(profile_names), window)
    if fmt == "json":
        click.echo(history_json(found))
    elif fmt == "csv":
        click.echo(history_csv(found), nl=False)
    elif not found.runs:
        click.echo(nothing_to_show(left_out(store, target_name, tuple(ops), tuple(profile_names), window)))
    else:
        console.print(history_table(found))
