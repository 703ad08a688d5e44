"""`teeth merge`: join the shards of a run (`teeth run --shard k/n`) into one run."""

from __future__ import annotations


import click



@click.command("merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--into", "into", required=True, type=click.Path(dir_okay=False),
              help="The database the merged run is written to (created if missing).")
@click.option("--target", "target_name", default=None, help="The latest run of this target in each shard "
              "(default: each database's latest run).")
def merge_command(shards, into, target_name):
    """Join the runs of teeth run --shard k/n, one database each, into one run."""
    from pathlib import Path

    from teeth.run.shards import merge as merge_shards

    run_id = merge_shards([Path(s) for s in shards], Path(into), target_name)
    click.echo(f"merged {len(shards)} shard(s) into run {run_id} of {into}")
