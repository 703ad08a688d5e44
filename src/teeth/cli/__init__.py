"""The `teeth` command: a thin click layer over the library, one module per command (or small family of commands);
errors are one line and an exit code."""

from __future__ import annotations

import signal
import sqlite3
import sys
import threading

import click

from teeth import DISTRIBUTION
from teeth.errors import EXIT_INTERRUPTED, EXIT_STORE_FULL, EXIT_USAGE, TeethError
from teeth.store.opening import disk_full


class TeethGroup(click.Group):
    """Turns every TeethError, and every bad value click finds before teeth (a missing option, a value out of
    range or not a choice, an unknown command), into one line on stderr and its exit code."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as exc:  # an option of `teeth` itself
            _usage_error(exc)

    def invoke(self, ctx):
        main_thread = threading.current_thread() is threading.main_thread()  # only it may set handlers
        previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)} if main_thread else {}
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # a command's (or a command group's) arguments
            _usage_error(exc)
        except TeethError as exc:
            click.echo(f"teeth: error: {' '.join(str(exc).splitlines())}", err=True)  # one line, always
            sys.exit(exc.exit_code)
        except sqlite3.OperationalError as exc:  # a command without a run to keep resumable (merge, a token)
            if not disk_full(exc):
                raise
            click.echo(f"teeth: error: cannot record: {exc}; free some space and run it again", err=True)
            sys.exit(EXIT_STORE_FULL)
        except KeyboardInterrupt:
            click.echo("teeth: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        finally:  # as they were (teeth also runs inside other programs: CliRunner, an IDE), unless a signal came:
            for sig, handler in previous.items():  # then any other is ignored until the process has exited
                if signal.getsignal(sig) is _interrupt:
                    signal.signal(sig, handler)


def _usage_error(exc: click.ClickException) -> None:
    """click's three lines (usage, a hint, the error) as teeth's one; `teeth` alone still prints the help."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # click 8.2: a group run without a command
        raise exc
    ctx = getattr(exc, "ctx", None)
    where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
    click.echo(f"teeth: error: {' '.join(exc.format_message().splitlines())}{where}", err=True)
    sys.exit(EXIT_USAGE)


def _interrupt(signum, frame):
    """Ctrl-C and SIGTERM alike: the command stops and records what it has; a second signal while it does so is
    ignored (a double Ctrl-C lost outcomes the progress bar had shown)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


@click.group(cls=TeethGroup)
@click.version_option(package_name=DISTRIBUTION)
def main():
    """teeth: mutation testing that proves a batched-tensor test suite has teeth."""


def _register_commands() -> None:
    from teeth.cli.apply import apply_command
    from teeth.cli.check import check_command
    from teeth.cli.history import history_command
    from teeth.cli.merge import merge_command
    from teeth.cli.operators import operators_command
    from teeth.cli.report import badge_command, report_command
    from teeth.cli.results import results_command, show_command
    from teeth.cli.review import diff_command, tests_command
    from teeth.cli.run import run_command
    from teeth.cli.serve import push_command, serve_command

    for command in (run_command, check_command, results_command, badge_command, show_command, apply_command,
                    merge_command, operators_command, history_command, report_command, serve_command, push_command,
                    tests_command, diff_command):
        main.add_command(command)
    try:
        from teeth.cli.invariance import invariance_command
    except ImportError:
        return
    main.add_command(invariance_command)


_register_commands()
