"""The `teeth` command: a thin click layer over the library; errors are one line and an exit code."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import sys
import threading
import time

import click
from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.text import Text

from teeth import DISTRIBUTION
from teeth.cli_options import (DB_HELP, JOBS_HELP, config_option, configured, db_option, describe_run, format_option,
                               resolve_run, root_option, run_option, run_options, source_root)
from teeth.config import load_config
from teeth.core import STATUSES, Status, Why, kill_rate, shown_detail
from teeth.errors import EXIT_INTERRUPTED, EXIT_STORE_FULL, EXIT_USAGE, TeethError
from teeth.operators import all_operators, bug_class, select_operators
from teeth.report.progress import RichProgress
from teeth.report.terminal import Output
from teeth.shards import Shard
from teeth.store import Store, db_path
from teeth.store_opening import disk_full

console = Output()  # through a pipe: whole lines (report/terminal.py)
errors = Console(stderr=True)


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


@main.command()
@click.option("--target", "target_name", required=True, help="Target name from [tool.teeth.targets].")
@click.option("--op", "ops", multiple=True, help="Only mutants of this op (repeatable).")
@click.option("--profile", "profile_names", multiple=True, help="Only this profile (repeatable).")
@click.option("--operator", "operator_names", multiple=True, help="Only this operator; 'domain' or 'generic' "
              "name a group (repeatable).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help=JOBS_HELP)
@db_option()
@config_option
@click.option("--resume", is_flag=True, help="Continue the target's interrupted latest run.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: forked warm workers on this machine; ray: warm actors on a Ray cluster (docs/ray.md).")
@click.option("--address", default=None, help="With --backend ray: the cluster's HOST:PORT, ray://HOST:PORT or "
              "'auto' (default: start a local cluster).")
@click.option("--execution", type=click.Choice(["warm", "cold"]), default=None,
              help="warm: the baseline runs in a forked child, the worker imports what it imported and forks "
              "mutants from that warm state; cold: the worker imports only the target's modules (the CUDA path). "
              "Either way the worker never runs a test. Default: each profile's own (CUDA profiles are cold).")
@click.option("--no-cache", is_flag=True, help="Run every mutant; reuse no stored outcome whose key still holds.")
@click.option("--fail-under", "fail_under", default=None, callback=lambda _ctx, param, value: _fraction(param, value),
              help="Exit 1 when the run's kill rate is under this fraction (0.8 = 80%; default: the target's "
              "fail_under).")
@click.option("--mutant", "mutant_ids", multiple=True, help="Only this mutant (an id or a literal prefix; "
              "repeatable), run against today's tests: no stored outcome is reused.")
@click.option("--only", "only", multiple=True, type=click.Choice(STATUSES), help="Only the mutants with this "
              "status in the target's latest run (repeatable), run again: no stored outcome is reused.")
@click.option("--shard", "shard_text", default=None, metavar="K/N", help="Only shard K of N (K from 1 to N): "
              "the mutants whose id hashes to K-1 mod N; join the shards with teeth merge.")
@click.option("--audit", "audit_text", default=None, metavar="N|all", help="Then run N sampled (or all) survived "
              "and no_coverage mutants against the whole suite, without test selection, and report each disagreement.")
@click.option("--full-matrix", is_flag=True, help="Each mutant runs every test that executes it (not only until one "
              "fails) and every verdict is recorded: teeth show, teeth tests. Measures every mutant (no reuse).")
@click.option("--no-infection", is_flag=True, help="Run every mutant's tests, without the infection pass that "
              "decides the mutants no test infects and without comparing survivors' outputs: no survivor gets a why "
              "(docs/survivors.md).")
def run(target_name, ops, profile_names, operator_names, jobs, db, config_path, resume, backend, address, no_cache,
        fail_under, execution, mutant_ids, only, shard_text, audit_text, full_matrix, no_infection):
    """Mutate a target, run its tests against every mutant (or the chosen ones), record outcomes."""
    from teeth.lab import Lab, command_clock, select_ops

    clock = command_clock()  # the run's timings start with the process
    from teeth.discovery_cache import DiscoveryCache
    from teeth.incremental import OutcomeCache
    from teeth.preflight import choose_mutants, discover_ops, require_resumable
    from teeth.report.terminal import print_run_report

    audit = _audit(audit_text)
    config = load_config(config_path)
    target = config.target(target_name)
    operators = select_operators(list(operator_names) or target.operators)
    profiles = _profiles(target, profile_names)
    if execution:
        profiles = [dataclasses.replace(p, execution=execution) for p in profiles]
    if resume:
        require_resumable(db_path(db), target)
    discovering = time.perf_counter()
    found = discover_ops(target, operators, list(ops), DiscoveryCache())  # an unknown --op is refused before the database is opened
    clock["discover"] = time.perf_counter() - discovering
    stale = [] if operator_names else sorted(set(target.equivalent) - {m.id for m in found.mutants})  # --operator: not all made
    if stale:
        click.echo(f"teeth: warning: target {target.name}: equivalent id(s) that match no mutant of its files as they "
                   f"are now (the code changed?): {', '.join(stale)}", err=True)
    shard = Shard.parse(shard_text) if shard_text is not None else None
    chosen = choose_mutants(found.mutants, db_path(db), target.name, list(mutant_ids), list(only))
    if chosen is not None and not chosen:
        click.echo(f"teeth: no {' or '.join(only)} mutants in the latest whole `teeth run` of target {target.name}; "
                   "nothing to run", err=True)
        return
    backends = _backend(backend, address, jobs)  # ray: connect, or start a local cluster; one-line errors
    store = Store(db_path(db))
    reuse = not no_cache and chosen is None and not full_matrix  # chosen mutants run against today's tests
    lab = Lab(target, store, backends, RichProgress(errors), cache=OutcomeCache(target, store, reuse=reuse),
              audit=audit, full_matrix=full_matrix, infection=not no_infection)
    jobs = jobs or (0 if backend == "ray" else os.cpu_count() or 1)  # ray, 0: one worker per slot of the cluster
    options = {"ops": list(ops), "jobs": jobs, "operators": list(operator_names), "profiles": list(profile_names),
               "backend": backend, "address": address, "no_cache": no_cache, "execution": execution}
    if chosen is not None:
        options.update(mutants=sorted(chosen), only=list(only))
    if shard is not None:
        options["shard"] = str(shard)
    if full_matrix:
        options["full_matrix"] = True
    if no_infection:
        options["no_infection"] = True

    def scope(mutants):
        return [m for m in mutants if (shard is None or shard.holds(m.id)) and (chosen is None or m.id in chosen)]

    try:
        clock["prepare"] = time.perf_counter() - clock.pop("entered") - clock["discover"]  # config, database, backend
        summary = lab.run(operators, profiles, ops=list(ops) or None, jobs=jobs, resume=resume, discovery=found, clock=clock,
                          options=options, scope=scope if shard is not None or chosen is not None else None)
    except KeyboardInterrupt:
        if lab.run_id is None:
            click.echo("teeth: interrupted before the run started; nothing was recorded", err=True)
        else:
            click.echo(f"teeth: interrupted; run {lab.run_id} recorded as interrupted "
                       f"(continue it with: teeth run --target {target.name} --resume)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        backends.close()  # ray: stop the local cluster this run started; leave a cluster it only joined
    errors.print(f"[dim]{_measured(summary, len(select_ops(found.mutants, list(ops))), shard, chosen, only)}[/dim]")
    for profile, protection in store.run(summary.run_id).protection.items():
        errors.print(f"[dim]{profile}: isolation: {protection}[/dim]")
    reused = store.reused_count(summary.run_id)
    if reused:
        errors.print(f"[dim]{reused} outcome(s) reused from earlier runs: their cache key still holds "
                     "(--no-cache runs them again)[/dim]")
    print_run_report(console, store, summary.run_id)
    for note in summary.notes:  # flaky tests, an audit's disagreements
        click.echo(note)
    whole = shard is None and chosen is None  # the target's fail_under gates whole runs, not a slice of the mutants
    _gate_run(store, summary.run_id, fail_under if fail_under is not None else target.fail_under if whole else None)


def _measured(summary, made: int, shard, chosen: set[str] | None, only: tuple[str, ...]) -> str:
    """The run's first summary line: a whole run's mutants and those not made; a part of the target (a shard, chosen
    mutants) says which part and counts its own mutants only (what was not made belongs to no part)."""
    if shard is None and chosen is None:
        d = summary.discovery
        return (f"{len(summary.mutants)} mutants; not made: {d.arid} arid (messages, docstrings, logging), "
                f"{d.duplicates} duplicate, {d.unviable} unviable")
    parts = [f"shard {shard}"] if shard is not None else []
    if chosen is not None:
        parts.append(f"chosen mutants (--only {' '.join(only)})" if only else "chosen mutants (--mutant)")
    return f"{' of '.join(parts)}: {len(summary.mutants)} of the target's {made} mutants"


def _audit(text: str | None):
    """`--audit N|all` as an Audit, or None without the option; one line and exit 2 for anything else."""
    if text is None:
        return None
    from teeth.audit import Audit, parse_audit

    try:
        return Audit(parse_audit(text))
    except ValueError:
        raise TeethError(f"--audit {text!r}: expected a number of mutants (1 or more) or 'all'") from None


def _fraction(param, value: str | None) -> float | None:
    """A fraction from 0 to 1 given on the command line; one line and exit 2 otherwise (80 is not 80%)."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        number = None
    if number is None or not 0 <= number <= 1:
        raise TeethError(f"--{param.name.replace('_', '-')} {value!r}: expected a fraction from 0 to 1 "
                         f"(0.8 means 80%)")
    return number


def _gate_run(store: Store, run_id: int, fail_under: float | None) -> None:
    """`teeth run`'s gate: exit 1 when the run's kill rate is under fail_under (`teeth check`'s semantics)."""
    from teeth.errors import EXIT_GATE_FAILED
    from teeth.gate import under_fail_under
    from teeth.report.rates import rate_text

    if fail_under is None:
        return
    counts: dict[str, int] = {}
    for row in store.results(run_id):
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    rate = kill_rate(counts)
    if under_fail_under(rate, fail_under):
        click.echo(f"teeth run: FAILED: kill rate {rate_text(rate)} is under fail_under {rate_text(fail_under)}")
        sys.exit(EXIT_GATE_FAILED)
    shown = "no mutant counts towards a kill rate" if rate is None else f"kill rate {rate_text(rate)}"
    click.echo(f"teeth run: passed: {shown}, fail_under {rate_text(fail_under)}")


@main.command()
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
def check(base, target_names, fmt, no_cache, jobs, full_matrix, db, config_path):
    """Mutate the functions changed since the merge-base with --base, then gate: exit 1 when it fails."""
    from teeth.check import check_target, plan
    from teeth.errors import EXIT_GATE_FAILED
    from teeth.gate import text_report
    from teeth.workers.local import LocalBackends

    planned = plan(load_config(config_path), list(target_names), base)  # git and config errors: nothing written
    store = Store(db_path(db))
    checks = [check_target(store, target, changes, LocalBackends(), jobs or os.cpu_count() or 1, not no_cache,
                           RichProgress(errors), full_matrix=full_matrix) for target, changes in planned]
    passed = all(c.verdict.passed for c in checks)
    if fmt == "json":
        from teeth.report.stryker import check_part, report_json
        click.echo(report_json([check_part(store, c) for c in checks]))
    else:
        from teeth.test_review import review_lines

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


def _backend(name, address, jobs):
    from teeth.workers.local import LocalBackends

    if name == "local":
        if address:
            raise TeethError("--address needs --backend ray")
        return LocalBackends()
    from teeth.workers.ray_backend import RayBackends
    from teeth.workers.ray_cluster import RaySession

    return RayBackends(RaySession(address, jobs or 0))


def _profiles(target, names):
    if not names:
        return target.profiles
    known = {p.name: p for p in target.profiles}
    for name in names:
        if name not in known:
            raise TeethError(f"unknown profile {name!r} for target {target.name}; its profiles: {', '.join(known)}")
    return [known[n] for n in names]


@main.command()
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
def results(run_ref, target_name, status, ops, operator_names, files, fmt, root, config_path, db):
    """List the outcomes of a run."""
    from teeth.report.json import results_json
    from teeth.report.terminal import narrowed, results_table

    def rows_of(run_id):
        return narrowed(store.results(run_id, status), ops, operator_names, files)

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


@main.command()
@click.option("--target", "target_name", required=True, help="The target whose latest run the badge shows.")
@click.option("--out", default=None, help="Where to write the SVG badge [default: badge.svg beside the database, "
              "in its folder that teeth keeps out of git].")
@click.option("--endpoint", default=None, help="Also write shields.io's endpoint JSON here "
              "(https://img.shields.io/endpoint?url=...).")
@db_option()
def badge(target_name, out, endpoint, db):
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


@main.command()
@click.argument("mutant_id")
@db_option()
@format_option("text", "json")
@run_option
def show(mutant_id, db, fmt, run_ref):
    """Print a mutant's diff and its outcomes (in `teeth run` runs; --run ID: in that run only)."""
    from teeth.kill_matrix import matrix_lines

    store = Store(db_path(db), create=False)
    mutant = store.mutant(mutant_id)
    if mutant is None:
        raise TeethError(f"no mutant {mutant_id!r} in {store.path}")
    every = store.outcomes_of(mutant["id"])
    named = None if run_ref == "latest" else resolve_run(store, run_ref)
    outcomes = [o for o in every if (o["run_id"] == named.id if named else o["kind"] == "run")]
    whole = (o for o in outcomes if not o["shard"] and not o["mutant_filter"])  # the latest whole run's, by default
    shown = named or next((store.run(o["run_id"]) for o in whole), None)
    matrix = store.kill_matrix(shown.id, mutant["id"]) if shown else {}
    executing = store.tests_executing(mutant["target"], mutant["file"], range(mutant["line"], mutant["end_line"] + 1))
    surviving = any(Status(o["status"]).surviving for o in outcomes)
    explained = bug_class(mutant["operator"], mutant["original"], mutant["replacement"]) if surviving else None
    if fmt == "json":
        mutant.pop("path", None)  # outputs show the file as `file` does; the absolute path stays in the database
        click.echo(json.dumps({**mutant, "run": shown.id if shown else None, "outcomes": outcomes,
                               "tests": executing, "matrix": matrix, "bug_class": explained}, indent=2))
        return
    console.print(Text(describe_run(shown) if shown else f"no `teeth run` has an outcome of {mutant['id']}"
                       + ("" if named or len(every) == len(outcomes) else " (--run ID shows a `teeth check` run's)")))
    console.print(Text.assemble((mutant["id"], "bold"), f" {mutant['file']}:{mutant['line']} {mutant['function']} "
                                f"op={mutant['op']} operator={mutant['operator']}"))
    if mutant["skip"]:
        console.print(Text(f"not run: {mutant['skip']}"))
    console.print(Syntax(mutant["diff"], "diff", theme="ansi_dark"))
    for o in outcomes:
        by = f" by {o['killed_by']} ({o['check']})" if o["killed_by"] else ""
        detail = f" - {shown_detail(o['detail'], o['signal'])}" if o["detail"] else ""
        why = f" ({o['why']})" if o.get("why") else ""
        console.print(Text(f"run {o['run_id']} {o['profile']}: {o['status']}{why}{by}{detail}"))
    for line in matrix_lines(matrix):
        console.print(Text(line), soft_wrap=True)
    for why in dict.fromkeys(Why(o["why"]) for o in outcomes if o.get("why")):
        console.print(Text.assemble(("why it survived: ", "bold"), why.title))
        console.print(Text(f"  a test that would kill it: {why.remedy}"))
    if explained:
        console.print(Text.assemble(("bug class ", "bold"), f"{explained['operator']} on this line: "
                                    f"{explained['change']} ({explained['summary']})"))
        console.print(Text(f"  what it means: {explained['means']}"))
        console.print(Text(f"  a test that kills it: {explained['killing_test']} "
                           f"(killed by checks: {', '.join(explained['kills'])})"))
    for profile, found in executing.items():
        module = " (module-level code runs at import: every test runs it)" if not mutant["function"] else ""
        console.print(Text(f"tests that executed its lines [{profile}, run {found['run_id']}]: "
                           f"{len(found['tests']) or 'none'}{module}"))
        for test in found["tests"]:
            console.print(Text(f"  {test}"))


@main.command("apply")
@click.argument("mutant_id")
@click.option("--revert", is_flag=True, help="Put the file back, byte for byte, as it was before teeth apply.")
@db_option(f"{DB_HELP[:-1]}; the original is kept in applied/ beside it.")
@config_option
def apply_command(mutant_id, revert, db, config_path):
    """Write one mutant into the working tree (the only command that writes it), to write the test that kills it."""
    from teeth.working_tree import apply, revert as revert_mutant

    path = db_path(db)
    if revert:
        click.echo(f"reverted {revert_mutant(path, mutant_id)}")
        return
    store = Store(path, create=False)
    mutant = store.mutant(mutant_id)
    if mutant is None:
        raise TeethError(f"no mutant {mutant_id!r} in {store.path}")
    target = load_config(config_path).target(mutant["target"])
    written = apply(path, target, mutant["file"], mutant["id"])
    click.echo(f"applied {mutant['id']} ({mutant['operator']}) to {written}:{mutant['line']}; "
               f"undo with: teeth apply {mutant['id']} --revert")


@main.command()
@click.argument("shards", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--into", "into", required=True, type=click.Path(dir_okay=False),
              help="The database the merged run is written to (created if missing).")
@click.option("--target", "target_name", default=None, help="The latest run of this target in each shard "
              "(default: each database's latest run).")
def merge(shards, into, target_name):
    """Join the runs of teeth run --shard k/n, one database each, into one run."""
    from pathlib import Path

    from teeth.shards import merge as merge_shards

    run_id = merge_shards([Path(s) for s in shards], Path(into), target_name)
    click.echo(f"merged {len(shards)} shard(s) into run {run_id} of {into}")


@main.command()
@format_option("text", "json")
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
        console.print(f"[bold]{op.name}[/bold]  {escape(op.summary)}  [dim](killed by: {', '.join(op.kills)})[/dim]")
        if op.domain:
            console.print(f"  {op.bug}", style="dim")
        for example in op.examples():
            for after in example.after or ("(no mutant)",):
                console.print(f"    {example.before!r}  ->  {after!r}", markup=False, highlight=False)


@main.command()
@click.option("--target", "target_name", default=None, help="Only runs of this target.")
@click.option("--op", "ops", multiple=True, help="Only this op (repeatable).")
@click.option("--profile", "profile_names", multiple=True, help="Only this profile (repeatable).")
@click.option("--since", default=None, help="A run id (that run and later) or a date YYYY-MM-DD (UTC, inclusive).")
@format_option("table", "json", "csv")
@db_option()
def history(target_name, ops, profile_names, since, fmt, db):
    """Kill rate per op x profile over runs and commits, with a sparkline per row."""
    from teeth.history import history_csv, history_json, left_out, load_history, nothing_to_show, parse_since
    from teeth.report.chart import history_table

    window = parse_since(since)
    store = Store(db_path(db), create=False)
    found = load_history(store, target_name, tuple(ops), tuple(profile_names), window)
    if fmt == "json":
        click.echo(history_json(found))
    elif fmt == "csv":
        click.echo(history_csv(found), nl=False)
    elif not found.runs:
        click.echo(nothing_to_show(left_out(store, target_name, tuple(ops), tuple(profile_names), window)))
    else:
        console.print(history_table(found))


@main.command()
@click.option("--html", "html_dir", required=True, help="Folder to write index.html and files/*.html into.")
@run_options
@root_option()
@config_option
@db_option()
def report(html_dir, run_ref, target_name, root, config_path, db):
    """Write a static, offline HTML report: matrix, history chart, survivors, annotated sources."""
    from teeth.report.html import write_html_report

    store = Store(db_path(db), create=False)
    run_row = resolve_run(store, run_ref, target_name)
    index = write_html_report(store, run_row.id, html_dir, source_root(run_row.target, root, config_path))
    click.echo(f"{index}: {describe_run(run_row)}")


def _register_optional_commands() -> None:
    from teeth.serve.cli import push_command, serve_command

    main.add_command(serve_command)
    main.add_command(push_command)
    from teeth.review_cli import diff_command, tests_command

    main.add_command(tests_command)
    main.add_command(diff_command)
    try:
        from teeth.invariance.cli import invariance_command
    except ImportError:
        return
    main.add_command(invariance_command)


_register_optional_commands()

if __name__ == "__main__":
    main()
