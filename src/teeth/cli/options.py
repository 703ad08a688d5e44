"""The options several `teeth` commands share, declared once, what their values name, resolved once, and the
consoles the commands print to."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from teeth.errors import TeethError
from teeth.store.records import Run
from teeth.report.terminal import Output
from teeth.store.db import Store

console = Output()  # through a pipe: whole lines (report/terminal.py)
errors = Console(stderr=True)

DB_HELP = "SQLite file (default: $TEETH_DB or db/teeth.db)."
# `--jobs` has one meaning in every command and backend (RunRequest.jobs): how many mutants run at the same time.
JOBS_HELP = ("How many mutants run at the same time, each in its own process: a forked child of the warm worker "
             "locally, a one-slot actor on Ray (default: the machine's cores; on Ray, one per slot of the cluster).")


def db_option(help: str = DB_HELP):
    """`--db FILE`: the teeth database (`teeth.store.db.db_path` turns None into the default)."""
    return click.option("--db", "db", default=None, help=help)


def config_option(command):
    """`--config FILE`: a teeth.toml instead of pyproject.toml."""
    option = click.option("--config", "config_path", default=None, help="A teeth.toml instead of pyproject.toml.")
    return option(command)


def run_option(command):
    """`--run ID|latest`: which stored run a reading command reads (see `resolve_run`)."""
    return click.option("--run", "run_ref", default="latest", help="Run id, or 'latest'.")(command)


def run_options(command):
    """`--run ID|latest` and `--target NAME` (the latest run of that target)."""
    command = click.option("--target", "target_name", default=None,
                           help="With --run latest: the latest run of this target.")(command)
    return run_option(command)


def format_option(*choices: str, help: str | None = None, show_default: bool = False):
    """`--format`: one of `choices`, the first the default; the value reaches the command as `fmt`."""
    return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=show_default,
                        help=help)


def root_option(help: str = "Where the target's files are read from (default: from the config)."):
    """`--root DIR`: where a reading command reads the target's files (see `source_root`)."""
    return click.option("--root", default=None, help=help)


def resolve_run(store: Store, run_ref: str, target: str | None = None) -> Run:
    """`--run latest` (of `--target`, if given): the latest whole `teeth run` (a `teeth check`, a shard or chosen
    mutants only when named), or a run id (any run); one-line errors."""
    if run_ref == "latest":
        row = store.latest_whole_run(target)
        if row is None:
            raise TeethError(f"no whole `teeth run`{f' of target {target!r}' if target else ''} in {store.path} "
                             f"(a `teeth check`, a shard or chosen mutants are read only when named: --run ID)")
        return row
    try:
        run_id = int(run_ref)
    except ValueError:
        raise TeethError(f"--run takes a run id or 'latest', not {run_ref!r}") from None
    return store.run(run_id)


def describe_run(run: Run) -> str:
    """The one line every listing starts with: which run it shows, e.g. `run 12 (teeth run, batcher, 2026-12-02
    08:10)`; a part of a run says which part."""
    parts = [f"teeth {run.kind}", run.target, (run.started_at or "")[:16].replace("T", " ")]
    if run.shard:
        parts.append(f"shard {run.shard}")
    if run.mutant_filter:
        parts.append("chosen mutants")
    if not run.completed:
        parts.append(run.status)
    return f"run {run.id} ({', '.join(p for p in parts if p)})"


def reading_config(config_path: str | None):
    """The config for a command that only reads the database: None when there is none (an explicit --config must
    load)."""
    from teeth.config.targets import load_config

    try:
        return load_config(config_path)
    except TeethError:
        if config_path:
            raise
        return None


def configured(target: str, config_path: str | None, key: str):
    """A target's setting from the config, for a reading command; None when there is no config or no such target."""
    config = reading_config(config_path)
    return getattr(config.targets[target], key) if config is not None and target in config.targets else None


def source_root(target: str, root: str | None, config_path: str | None) -> Path:
    """Where the target's files are read from: `--root`, else the target's root in the config, else cwd."""
    if root:
        return Path(root)
    config = reading_config(config_path)
    if config is None:
        return Path.cwd()
    return config.targets[target].root if target in config.targets else config.path.parent
