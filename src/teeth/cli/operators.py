"""`teeth operators`: every operator, the bug it models and the check that must kill it."""

from __future__ import annotations

import json

import click
from rich.markup import escape

from teeth.cli.options import console, format_option
from teeth.operators import all_operators


@click.command("operators")
@format_option("text", "json")
def operators_command(fmt):
    """Every operator: the bug it models, the check that must kill it, and its examples."""
    ops = all_operators()
    if fmt == "json":
        click.echo(json.dumps([{"name": o.name, "domain": o.domain, "summary": o.summary, "bug": o.bug,
                                "kills": list(o.kills),
                                "examples": [{"before": e.before, "after": list(e.after)} for e in o.examples()]}
                               for o in ops], indent=2))
        return
    for op in ops:
        console.print(f"[bold]{op.name}[/bold]  {escape(op.summary)}  [dim](killed by: {', '.join(op.kills)})[/dim]")
        if op.domain:
            console.print(f"  {op.bug}", style="dim")
        for example in op.examples():
            for after in example.after or ("(no mutant)",):
                console.print(f"    {example.before!r}  ->  {after!r}", markup=False, highlight=False)
