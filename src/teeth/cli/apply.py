"""`teeth apply`: write one mutant into the working tree (and put it back)."""

from __future__ import annotations


import click

from teeth.cli.options import DB_HELP, config_option, db_option
from teeth.config.targets import load_config
from teeth.errors import TeethError
from teeth.store.db import Store, db_path


@click.command("apply")
@click.argument("mutant_id")
@click.option("--revert", is_flag=True, help="Put the file back, byte for byte, as it was before teeth apply.")
@db_option(f"{DB_HELP[:-1]}; the original is kept in applied/ beside it.")
@config_option
def apply_command(mutant_id, revert, db, config_path):
    """Write one mutant into the working tree (the only command that writes it), to write the test that kills it."""
    from teeth.discovery.working_tree import apply, revert as revert_mutant

    path = db_path(db)
    if revert:
        click.echo(f"reverted {revert_mutant(path, mutant_id)}")
        return
    store = Store(path, create=False)
    mutant = store.mutant(mutant_id)
    if mutant is None:
        raise TeethError(f"no mutant {mutant_id!r} in {store.path}")
    target = load_config(config_path).target(mutant.target)
    written = apply(path, target, mutant.file, mutant.id)
    click.echo(f"applied {mutant.id} ({mutant.operator}) to {written}:{mutant.line}; "
               f"undo with: teeth apply {mutant.id} --revert")
