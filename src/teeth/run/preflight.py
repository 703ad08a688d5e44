"""What `teeth run` checks before it creates or writes the database: a run to resume, the ops and mutants asked for."""

from __future__ import annotations

from pathlib import Path

from teeth.config.targets import Target
from teeth.discovery.discover import Discovery, discover
from teeth.errors import ConfigError
from teeth.store.records import RunStatus
from teeth.run.lab import select_ops
from teeth.operators import Operator
from teeth.store.db import Store


def require_resumable(path: Path, target: Target) -> None:
    """`--resume`: the target's latest run must be interrupted; read-only, so a refusal changes nothing."""
    if not path.exists():
        raise ConfigError(f"nothing to resume: no teeth database at {path}")
    store = Store(path, create=False)
    latest = store.latest_run(target.name)
    abandoned = store.abandoned(latest)
    store.close()
    if latest is None or not (latest.status is RunStatus.INTERRUPTED or abandoned):
        raise ConfigError(f"nothing to resume: the latest run of target {target.name!r} "
                          f"is {latest.status if latest else 'missing'}, not interrupted")


def discover_ops(target: Target, operators: list[Operator], ops: list[str], cache=None) -> Discovery:
    """Discover the target's mutants (through `cache`, a DiscoveryCache, when given) and refuse an op none of them
    belongs to, before anything is stored."""
    discovery = cache.discover(target, operators) if cache is not None else discover(target, operators)
    select_ops(discovery.mutants, ops)
    return discovery


def choose_mutants(mutants: list, db: Path, target_name: str, ids: list[str], only: list[str]) -> set[str] | None:
    """The ids `--mutant` and `--only` name among the mutants found now; None when neither is given."""
    if not ids and not only:
        return None
    chosen: set[str] = set()
    for prefix in ids:
        matches = [m.id for m in mutants if m.id.startswith(prefix)]
        if not matches:
            raise ConfigError(f"no mutant {prefix!r} in target {target_name} as its files are now")
        if len(set(matches)) > 1:
            raise ConfigError(f"mutant id {prefix!r} is ambiguous; give more characters")
        chosen.add(matches[0])
    if only:
        store = Store(db, create=False)
        latest = store.latest_whole_run(target_name)
        if latest is None:
            raise ConfigError(f"--only {'/'.join(only)}: no whole `teeth run` of target {target_name} in {db}")
        present = {m.id for m in mutants}
        chosen |= {row.mutant.id for row in store.results(latest.id)
                   if row.status in only and row.mutant.id in present}
        store.close()
    return chosen
