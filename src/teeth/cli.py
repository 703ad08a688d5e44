"""The `teeth` command: a thin click layer over the library; errors are one line and an exit code."""

from __future__ import annotations

import json
import os
import sys

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.syntax import Syntax

from teeth.config import load_config
from teeth.errors import EXIT_INTERRUPTED, TeethError
from teeth.operators import all_operators, select_operators
from teeth.store import STATUSES, Store, db_path

console = Console()
errors = Console(stderr=True)


class TeethGroup(click.Group):
    """Turns every TeethError into one line on stderr and its exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except TeethError as exc:
            click.echo(f"teeth: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("teeth: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)


@click.group(cls=TeethGroup)
@click.version_option(package_name="teeth")
def main():
    """teeth: mutation testing that proves a batched-tensor test suite has teeth."""


class RichProgress:
    """Draws the lab's progress: a bar with counts and ETA per profile."""

    def __init__(self):
        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                            console=errors, transient=False)
        self.task = None
        self.counts: dict[str, int] = {}

    def stage(self, text: str) -> None:
        if errors.is_terminal:
            errors.print(f"[dim]{text}[/dim]")

    def start(self, profile: str, total: int) -> None:
        if self.task is None:
            self.bar.start()
        self.counts = {}
        self.task = self.bar.add_task(profile, total=total, counts="")

    def advance(self, mutant, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        self.bar.update(self.task, advance=1, counts=" ".join(f"{s}:{n}" for s, n in sorted(self.counts.items())))

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()


@main.command()
@click.option("--target", "target_name", required=True, help="Target name from [tool.teeth.targets].")
@click.option("--op", "ops", multiple=True, help="Only mutants of this op (repeatable).")
@click.option("--profile", "profile_names", multiple=True, help="Only this profile (repeatable).")
@click.option("--operator", "operator_names", multiple=True, help="Only this operator; 'domain' or 'generic' "
              "name a group (repeatable).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Concurrent mutants (default: cores).")
@click.option("--db", "db", default=None, help="SQLite file (default: $TEETH_DB or db/teeth.db).")
@click.option("--config", "config_path", default=None, help="A teeth.toml instead of pyproject.toml.")
@click.option("--resume", is_flag=True, help="Continue the target's interrupted latest run.")
def run(target_name, ops, profile_names, operator_names, jobs, db, config_path, resume):
    """Mutate a target, run its tests against every mutant, record outcomes."""
    from teeth.lab import Lab
    from teeth.report.terminal import print_run_report
    from teeth.workers.local import LocalBackend

    config = load_config(config_path)
    target = config.target(target_name)
    operators = select_operators(list(operator_names) or target.operators)
    profiles = _profiles(target, profile_names)
    store = Store(db_path(db))
    lab = Lab(target, store, LocalBackend, RichProgress())
    jobs = jobs or os.cpu_count() or 1
    try:
        summary = lab.run(operators, profiles, ops=list(ops) or None, jobs=jobs, resume=resume,
                          options={"ops": list(ops), "jobs": jobs, "operators": list(operator_names)})
    except KeyboardInterrupt:
        run_row = store.latest_run(target.name)
        click.echo(f"teeth: interrupted; run {run_row['id']} recorded as interrupted "
                   f"(continue it with: teeth run --target {target.name} --resume)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    d = summary.discovery
    errors.print(f"[dim]{len(summary.mutants)} mutants; not made: {d.arid} arid (messages, docstrings, logging), "
                 f"{d.duplicates} duplicate, {d.unviable} unviable[/dim]")
    print_run_report(console, store, summary.run_id)


def _profiles(target, names):
    if not names:
        return target.profiles
    known = {p.name: p for p in target.profiles}
    for name in names:
        if name not in known:
            raise TeethError(f"unknown profile {name!r} for target {target.name}; its profiles: {', '.join(known)}")
    return [known[n] for n in names]


@main.command()
@click.option("--run", "run_ref", default="latest", help="Run id, or 'latest'.")
@click.option("--target", "target_name", default=None, help="With --run latest: the latest run of this target.")
@click.option("--status", type=click.Choice(STATUSES), default=None)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@click.option("--db", "db", default=None)
def results(run_ref, target_name, status, fmt, db):
    """List the outcomes of a run."""
    from teeth.report.json import results_json
    from teeth.report.terminal import results_table

    store = Store(db_path(db), create=False)
    if run_ref == "latest":
        row = store.latest_run(target_name)
        if row is None:
            raise TeethError(f"no runs in {store.path}")
        run_id = row["id"]
    else:
        try:
            run_id = int(run_ref)
        except ValueError:
            raise TeethError(f"--run takes a run id or 'latest', not {run_ref!r}") from None
        store.run(run_id)
    rows = store.results(run_id, status)
    if fmt == "json":
        click.echo(results_json(rows))
    else:
        console.print(results_table(rows))


@main.command()
@click.argument("mutant_id")
@click.option("--db", "db", default=None)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def show(mutant_id, db, fmt):
    """Print a mutant's diff and its outcomes."""
    store = Store(db_path(db), create=False)
    mutant = store.mutant(mutant_id)
    if mutant is None:
        raise TeethError(f"no mutant {mutant_id!r} in {store.path}")
    outcomes = store.outcomes_of(mutant["id"])
    if fmt == "json":
        click.echo(json.dumps({**mutant, "outcomes": outcomes}, indent=2))
        return
    console.print(f"[bold]{mutant['id']}[/bold] {mutant['file']}:{mutant['line']} {mutant['function']} "
                  f"op={mutant['op']} operator={mutant['operator']}")
    if mutant["skip"]:
        console.print(f"not run: {mutant['skip']}")
    console.print(Syntax(mutant["diff"], "diff", theme="ansi_dark"))
    for o in outcomes:
        by = f" by {o['killed_by']} ({o['check']})" if o["killed_by"] else ""
        console.print(f"run {o['run_id']} {o['profile']}: {o['status']}{by}" + (f" - {o['detail']}" if o["detail"] else ""))


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def operators(fmt):
    """Every operator: the bug it models, the check that must kill it, and its examples."""
    ops = all_operators()
    if fmt == "json":
        click.echo(json.dumps([{"name": o.name, "domain": o.domain, "summary": o.summary, "bug": o.bug,
                                "kills": list(o.kills),
                                "examples": [{"before": e.before, "after": list(e.after)} for e in o.examples()]}
                               for o in ops], indent=2))
        return
    for op in ops:
        console.print(f"[bold]{op.name}[/bold]  {op.summary}  [dim](killed by: {', '.join(op.kills)})[/dim]")
        if op.domain:
            console.print(f"  {op.bug}", style="dim")
        for example in op.examples():
            for after in example.after or ("(no mutant)",):
                console.print(f"    {example.before!r}  ->  {after!r}", markup=False, highlight=False)


def _register_optional_commands() -> None:
    try:
        from teeth.invariance.cli import invariance_command
    except ImportError:
        return
    main.add_command(invariance_command)


_register_optional_commands()

if __name__ == "__main__":
    main()
