"""The commands that read a kill matrix or compare runs: `teeth tests` and `teeth diff`."""

from __future__ import annotations

import json

import click

from teeth.cli.options import db_option, describe_run, format_option, resolve_run, run_options
from teeth.errors import TeethError
from teeth.store.db import Store, db_path


@click.command("tests")
@run_options
@format_option("table", "json")
@db_option()
def tests_command(run_ref, target_name, fmt, db):
    """List a --full-matrix run's tests by the mutants they kill, and kill alone."""
    from teeth.report.kill_matrix import tests_table

    store = Store(db_path(db), create=False)
    run = resolve_run(store, run_ref, target_name)
    rows = tests_table(store, run.id)
    if not rows:
        raise TeethError(f"{describe_run(run)} has no kill matrix: record one with teeth run --full-matrix "
                         f"(or teeth check --full-matrix)")
    if fmt == "json":
        click.echo(describe_run(run), err=True)
        click.echo(json.dumps([r.as_json() for r in rows], indent=2))
        return
    click.echo(describe_run(run))
    width = max(len(r.test) for r in rows)
    click.echo(f"{'test':<{width}}  kills  alone  executes")
    for r in rows:
        click.echo(f"{r.test:<{width}}  {len(r.kills):>5}  {len(r.alone):>5}  {len(r.executes):>8}")
    idle = [r.test for r in rows if not r.kills]
    if idle:
        click.echo(f"{len(idle)} test(s) kill no mutant they execute")


@click.command("diff")
@click.argument("a")
@click.argument("b")
@format_option("table", "json")
@db_option()
def diff_command(a, b, fmt, db):
    """Compare two runs (RUN, or DB:RUN from another database): status changes, new kills, mutants only in one."""
    from teeth.report.run_diff import diff_lines, diff_runs, load_side, parse_side

    sides = []
    for label in (a, b):
        path, ref = parse_side(label, db_path(db))
        store = Store(path, create=False)
        sides.append(load_side(store, resolve_run(store, ref), label))
    found = diff_runs(*sides)
    if fmt == "json":
        click.echo(found.as_json())
        return
    click.echo("\n".join(diff_lines(found, describe_run)))
