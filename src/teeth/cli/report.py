"""The commands that write a run's report to files: `teeth report` (static HTML) and `teeth badge` (SVG)."""

from __future__ import annotations


import click

from teeth.cli.options import config_option, db_option, describe_run, resolve_run, root_option, run_options, source_root
from teeth.errors import TeethError
from teeth.store.db import Store, db_path


@click.command("badge")
@click.option("--target", "target_name", required=True, help="The target whose latest run the badge shows.")
@click.option("--out", default=None, help="Where to write the SVG badge [default: badge.svg beside the database, "
              "in its folder that teeth keeps out of git].")
@click.option("--endpoint", default=None, help="Also write shields.io's endpoint JSON here "
              "(https://img.shields.io/endpoint?url=...).")
@db_option()
def badge_command(target_name, out, endpoint, db):
    """Write a badge of the kill rate of the target's latest whole `teeth run` (the run `teeth results` lists)."""
    from pathlib import Path

    from teeth.report import badge as kill_rate_badge
    from teeth.report.rates import rate_text

    store = Store(db_path(db), create=False)
    run = resolve_run(store, "latest", target_name)  # the rule of every reading command: `teeth results` lists it
    run_id, rate = run.id, kill_rate_badge.run_rate(store, run, describe_run(run))
    written = [(Path(out) if out else db_path(db).parent / "badge.svg", kill_rate_badge.svg(target_name, rate))]
    if endpoint:
        written.append((Path(endpoint), kill_rate_badge.endpoint(rate)))
    for path, text in written:
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise TeethError(f"cannot write {path}: {exc.strerror or exc}") from None
    click.echo(f"{', '.join(str(p) for p, _ in written)}: kill rate {rate_text(rate)} (run {run_id} of "
               f"{target_name})")


@click.command("report")
@click.option("--html", "html_dir", required=True, help="Folder to write index.html and files/*.html into.")
@run_options
@root_option()
@config_option
@db_option()
def report_command(html_dir, run_ref, target_name, root, config_path, db):
    """Write a static, offline HTML report: matrix, history chart, survivors, annotated sources."""
    from teeth.report.html import write_html_report

    store = Store(db_path(db), create=False)
    run_row = resolve_run(store, run_ref, target_name)
    index = write_html_report(store, run_row.id, html_dir, source_root(run_row.target, root, config_path))
    click.echo(f"{index}: {describe_run(run_row)}")
