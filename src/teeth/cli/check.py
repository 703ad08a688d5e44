"""`teeth check`: mutate the functions changed since a merge-base, then gate."""

from __future__ import annotations

import sys

import click

from teeth.cli.options import JOBS_HELP, config_option, db_option, errors, format_option
from teeth.config.targets import load_config
from teeth.report.progress import RichProgress
from teeth.store.db import Store, db_path


@click.command("check")
@click.option("--base", default="main", show_default=True, help="Compare against the merge-base of this ref and HEAD.")
@click.option("--target", "target_names", multiple=True, help="Only this target (repeatable; default: every one).")
@format_option("text", "github", "json",
               help="text; github: ::error annotations + $GITHUB_STEP_SUMMARY; json: Stryker's report schema.")
@click.option("--no-cache", is_flag=True, help="Run every mutant in scope; reuse no stored outcome.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help=JOBS_HELP)
@click.option("--full-matrix", is_flag=True, help="Each mutant in scope runs every test that executes it; every "
              "verdict is recorded (teeth show, teeth tests).")
@db_option()
@config_option
def check_command(base, target_names, fmt, no_cache, jobs, full_matrix, db, config_path):
    """Mutate the functions changed since the merge-base with --base, then gate: exit 1 when it fails."""
    from teeth.gate.check import check_target, plan
    from teeth.errors import EXIT_GATE_FAILED
    from teeth.gate.policy import text_report
    from teeth.workers.local import LocalBackends

    planned = plan(load_config(config_path), list(target_names), base)  # git and config errors: nothing written
    store = Store(db_path(db))
    checks = [check_target(store, target, changes, LocalBackends(), jobs, not no_cache,
                           RichProgress(errors), full_matrix=full_matrix) for target, changes in planned]
    passed = all(c.verdict.passed for c in checks)
    if fmt == "json":
        from teeth.report.stryker import check_part, report_json
        click.echo(report_json([check_part(store, c) for c in checks]))
    else:
        from teeth.gate.test_review import review_lines

        for c in checks:
            click.echo("\n".join(text_report(c.verdict, c.executed, c.reused, c.worker, c.functions, c.baseline)
                                 + (review_lines(c.review) if c.review else [])))
        if fmt == "github":
            from teeth.report.github import annotations, write_step_summary
            click.echo("\n".join(annotations(checks)))
            write_step_summary(checks, passed)
        click.echo(f"teeth check: {'passed' if passed else 'FAILED'} (base {base})")
    if not passed:
        sys.exit(EXIT_GATE_FAILED)
