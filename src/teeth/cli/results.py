"""The commands that read a run's outcomes: `teeth results` (a run's list) and `teeth show` (one mutant)."""

from __future__ import annotations

import json

import click
from rich.syntax import Syntax
from rich.text import Text

from teeth.cli.options import (config_option, configured, console, db_option, describe_run, format_option, resolve_run,
                               root_option, run_option, run_options, source_root)
from teeth.core import STATUSES
from teeth.errors import TeethError
from teeth.operators import bug_class
from teeth.store.db import Store, db_path


@click.command("results")
@run_options
@click.option("--status", type=click.Choice(STATUSES), default=None)
@click.option("--op", "ops", multiple=True, help="Only mutants of this op (repeatable).")
@click.option("--operator", "operator_names", multiple=True, help="Only mutants of this operator (repeatable).")
@click.option("--file", "files", multiple=True, help="Only mutants in this file, as listed, or a glob such as "
              "'src/*' (repeatable).")
@format_option("table", "json", "stryker", "lines",
               help="table; json: a list for scripts; stryker: Stryker's mutation-testing-report-schema v2; lines: "
               "`path:line:col: STATUS OPERATOR: change (mutant ID)` per survivor (survived, no_coverage; or --status).")
@root_option("stryker, lines: where the target's files are read from (default: from the config).")
@config_option
@db_option()
def results_command(run_ref, target_name, status, ops, operator_names, files, fmt, root, config_path, db):
    """List the outcomes of a run."""
    from teeth.store.records import OutcomeFilter
    from teeth.report.json import results_json
    from teeth.report.terminal import narrowed, results_table

    def rows_of(run_id):
        return narrowed(store.results(run_id, OutcomeFilter.of(status)), ops, operator_names, files)

    store = Store(db_path(db), create=False)
    run_row = resolve_run(store, run_ref, target_name)
    run_id = run_row.id
    if fmt == "stryker" and (status or ops or operator_names or files):  # refused before anything is printed
        raise TeethError("--status, --op, --operator and --file narrow table, json and lines; a stryker report "
                         "holds every mutant")
    click.echo(describe_run(run_row), err=fmt != "table")  # which run it shows; machine formats keep stdout clean
    if fmt in ("stryker", "lines"):
        target = run_row.target
        files_root = source_root(target, root, config_path)
        if fmt == "lines":
            from teeth.report.lines import SURVIVING, survivor_lines

            for line in survivor_lines(rows_of(run_id), files_root, (status,) if status else SURVIVING):
                click.echo(line)
            return
        from teeth.report.stryker import report_json, run_part

        click.echo(report_json([run_part(store, run_id, files_root, configured(target, config_path, "fail_under"))]))
        return
    rows = rows_of(run_id)
    if fmt == "json":
        click.echo(results_json(rows))
    else:
        console.print(results_table(rows))
    for note in run_row.notes:  # what the run found: flaky tests, an audit
        click.echo(note, err=fmt != "table")



@click.command("show")
@click.argument("mutant_id")
@db_option()
@format_option("text", "json")
@run_option
def show_command(mutant_id, db, fmt, run_ref):
    """Print a mutant's diff and its outcomes (in `teeth run` runs; --run ID: in that run only)."""
    from teeth.report.kill_matrix import matrix_lines
    from teeth.store.records import RunKind
    from teeth.report.json import mutant_json

    store = Store(db_path(db), create=False)
    mutant = store.mutant(mutant_id)
    if mutant is None:
        raise TeethError(f"no mutant {mutant_id!r} in {store.path}")
    every = store.outcomes_of(mutant.id)
    named = None if run_ref == "latest" else resolve_run(store, run_ref)
    outcomes = [o for o in every if (o.run.id == named.id if named else o.run.kind is RunKind.RUN)]
    whole = (o for o in outcomes if o.run.whole)  # the latest whole run's, by default
    shown = named or next((o.run for o in whole), None)
    matrix = store.kill_matrix(shown.id, mutant.id) if shown else {}
    executing = store.tests_executing(mutant.target, mutant.file, range(mutant.line, mutant.end_line + 1))
    surviving = any(o.outcome.status.surviving for o in outcomes)
    explained = bug_class(mutant.operator, mutant.original, mutant.replacement) if surviving else None
    if fmt == "json":
        click.echo(mutant_json(mutant, shown, outcomes, executing, matrix, explained))
        return
    console.print(Text(describe_run(shown) if shown else f"no `teeth run` has an outcome of {mutant.id}"
                       + ("" if named or len(every) == len(outcomes) else " (--run ID shows a `teeth check` run's)")))
    console.print(Text.assemble((mutant.id, "bold"), f" {mutant.file}:{mutant.line} {mutant.function} "
                                f"op={mutant.op} operator={mutant.operator}"))
    if mutant.skip:
        console.print(Text(f"not run: {mutant.skip}"))
    console.print(Syntax(mutant.diff, "diff", theme="ansi_dark"))
    for o in outcomes:
        found = o.outcome
        by = f" by {found.killed_by} ({found.check})" if found.killed_by else ""
        detail = f" - {found.shown_detail}" if found.detail else ""
        why = f" ({found.why})" if found.why else ""
        console.print(Text(f"run {o.run.id} {o.profile}: {found.status}{why}{by}{detail}"))
    for line in matrix_lines(matrix):
        console.print(Text(line), soft_wrap=True)
    for why in dict.fromkeys(o.outcome.why for o in outcomes if o.outcome.why):
        console.print(Text.assemble(("why it survived: ", "bold"), why.title))
        console.print(Text(f"  a test that would kill it: {why.remedy}"))
    if explained:
        console.print(Text.assemble(("bug class ", "bold"), f"{explained['operator']} on this line: "
                                    f"{explained['change']} ({explained['summary']})"))
        console.print(Text(f"  what it means: {explained['means']}"))
        console.print(Text(f"  a test that kills it: {explained['killing_test']} "
                           f"(killed by checks: {', '.join(explained['kills'])})"))
    for found in executing:
        module = " (module-level code runs at import: every test runs it)" if not mutant.function else ""
        console.print(Text(f"tests that executed its lines [{found.profile}, run {found.run_id}]: "
                           f"{len(found.tests) or 'none'}{module}"))
        for test in found.tests:
            console.print(Text(f"  {test}"))
