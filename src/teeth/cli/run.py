"""`teeth run`: mutate a target, run its tests against every mutant (or the chosen ones), record outcomes, gate."""

from __future__ import annotations

import sys
import time

import click

from teeth.cli.options import JOBS_HELP, config_option, console, db_option, errors
from teeth.config.targets import load_config
from teeth.core import STATUSES
from teeth.errors import EXIT_INTERRUPTED, TeethError
from teeth.report.progress import RichProgress
from teeth.store.db import Store, db_path


@click.command("run")
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
def run_command(target_name, ops, profile_names, operator_names, jobs, db, config_path, resume, backend, address,
                no_cache, fail_under, execution, mutant_ids, only, shard_text, audit_text, full_matrix, no_infection):
    """Mutate a target, run its tests against every mutant (or the chosen ones), record outcomes."""
    from teeth.run.lab import Lab, command_clock, select_ops, stale_equivalents

    clock = command_clock()  # the run's timings start with the process
    from teeth.discovery.cache import DiscoveryCache
    from teeth.run.preflight import choose_mutants, discover_ops, require_resumable
    from teeth.report.terminal import print_run_report
    from teeth.run.request import RunRequest

    request = RunRequest.of_run(load_config(config_path), target_name, ops=ops, operator_names=operator_names,
                                profile_names=profile_names, jobs=jobs, backend=backend, address=address,
                                execution=execution, cache=not no_cache, resume=resume, fail_under=fail_under,
                                shard=shard_text, audit=audit_text, full_matrix=full_matrix, infection=not no_infection)
    target = request.target
    if resume:
        require_resumable(db_path(db), target)
    discovering = time.perf_counter()
    found = discover_ops(target, list(request.operators), list(ops), DiscoveryCache())  # an unknown --op is refused before the database is opened
    clock["discover"] = time.perf_counter() - discovering
    warning = stale_equivalents(request, found.mutants)
    if warning:
        click.echo(warning, err=True)
    request = request.choosing(choose_mutants(found.mutants, db_path(db), target.name, list(mutant_ids), list(only)),
                               only)
    if request.chosen is not None and not request.chosen:
        click.echo(f"teeth: no {' or '.join(only)} mutants in the latest whole `teeth run` of target {target.name}; "
                   "nothing to run", err=True)
        return
    backends = _backend(request)  # ray: connect, or start a local cluster; one-line errors
    store = Store(db_path(db))
    lab = Lab(request, store, backends, RichProgress(errors))
    try:
        clock["prepare"] = time.perf_counter() - clock.pop("entered") - clock["discover"]  # config, database, backend
        summary = lab.run(discovery=found, clock=clock)
    except KeyboardInterrupt:
        if lab.run_id is None:
            click.echo("teeth: interrupted before the run started; nothing was recorded", err=True)
        else:
            click.echo(f"teeth: interrupted; run {lab.run_id} recorded as interrupted "
                       f"(continue it with: teeth run --target {target.name} --resume)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        backends.close()  # ray: stop the local cluster this run started; leave a cluster it only joined
    errors.print(f"[dim]{_measured(summary, len(select_ops(found.mutants, list(ops))), request)}[/dim]")
    for profile, protection in store.run(summary.run_id).protection.items():
        errors.print(f"[dim]{profile}: isolation: {protection}[/dim]")
    reused = store.reused_count(summary.run_id)
    if reused:
        errors.print(f"[dim]{reused} outcome(s) reused from earlier runs: their cache key still holds "
                     "(--no-cache runs them again)[/dim]")
    print_run_report(console, store, summary.run_id)
    for note in summary.notes:  # flaky tests, an audit's disagreements
        click.echo(note)
    _gate_run(summary, request.gate)  # the target's fail_under gates whole runs, not a slice of the mutants


def _measured(summary, made: int, request) -> str:
    """The run's first summary line: a whole run's mutants and those not made; a part of the target (a shard, chosen
    mutants) says which part and counts its own mutants only (what was not made belongs to no part)."""
    if request.whole:
        d = summary.discovery
        return (f"{len(summary.mutants)} mutants; not made: {d.arid} arid (messages, docstrings, logging), "
                f"{d.duplicates} duplicate, {d.unviable} unviable")
    parts = [f"shard {request.shard}"] if request.shard is not None else []
    if request.chosen is not None:
        only = request.only
        parts.append(f"chosen mutants (--only {' '.join(only)})" if only else "chosen mutants (--mutant)")
    return f"{' of '.join(parts)}: {len(summary.mutants)} of the target's {made} mutants"


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


def _gate_run(summary, fail_under: float | None) -> None:
    """`teeth run`'s gate: exit 1 when the run's kill rate is under fail_under (`teeth check`'s semantics)."""
    from teeth.errors import EXIT_GATE_FAILED
    from teeth.gate.policy import under_fail_under
    from teeth.report.rates import rate_text

    if fail_under is None:
        return
    rate = summary.kill_rate
    if under_fail_under(rate, fail_under):
        click.echo(f"teeth run: FAILED: kill rate {rate_text(rate)} is under fail_under {rate_text(fail_under)}")
        sys.exit(EXIT_GATE_FAILED)
    shown = "no mutant counts towards a kill rate" if rate is None else f"kill rate {rate_text(rate)}"
    click.echo(f"teeth run: passed: {shown}, fail_under {rate_text(fail_under)}")


def _backend(request):
    from teeth.workers.local import LocalBackends

    if request.backend == "local":
        return LocalBackends()
    from teeth.workers.ray_backend import RayBackends
    from teeth.workers.ray_cluster import RaySession

    return RayBackends(RaySession(request.address, request.jobs))
