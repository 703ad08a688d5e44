"""Sharded runs: `teeth run --shard k/n` measures a stable slice of the mutants, `teeth merge` joins the slices.

A mutant belongs to shard k of n (k from 1 to n, as CI matrices count) when sha256(its id) mod n is k - 1, so the slices do not depend on the order or the
number of mutants found, and a mutant keeps its shard while other code changes. Each shard's run is recorded in its
own database (a stateless CI runner each); `merge` copies them into one run of one database, and refuses, before
writing anything, shards that do not make one run: different targets, commits, configs, package versions, splits,
an overlap, a missing or unfinished shard.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from teeth.core import STATUSES
from teeth.errors import ConfigError, ShardsRefused, TeethError
from teeth.store.records import Run, RunStatus
from teeth.store.db import Store, now

# Options that say how a shard ran, not what it measured: they may differ between shards.
HOW_IT_RAN = ("jobs", "backend", "address", "no_cache", "shard")


@dataclass(frozen=True)
class Shard:
    index: int  # k: 1 .. count
    count: int  # n

    @classmethod
    def parse(cls, text: str) -> Shard:
        found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
        if not found:
            raise ConfigError(f"--shard takes k/n (k from 1 to n), not {text!r}")
        index, count = int(found[1]), int(found[2])
        if count < 1 or not 1 <= index <= count:
            raise ConfigError(f"--shard {text}: k must be from 1 to n (shards of {count}: 1/{count} .. "
                              f"{count}/{count})" if count else f"--shard {text}: n must be at least 1")
        return cls(index, count)

    def holds(self, mutant_id: str) -> bool:
        return int(hashlib.sha256(mutant_id.encode()).hexdigest()[:16], 16) % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass
class ShardRun:
    """One shard database's run, read before anything is written."""

    path: Path
    store: Store
    run: Run
    options: dict
    shard: Shard

    @property
    def name(self) -> str:
        return f"{self.path} (run {self.run.id}, shard {self.shard})"


def read_shard(path: Path, target: str | None) -> ShardRun:
    if not path.is_file():
        raise TeethError(f"no database at {path}")
    store = Store(path, create=False)
    run = store.latest_run(target)
    if run is None:
        raise TeethError(f"no run{f' of target {target!r}' if target else ''} in {path}")
    return ShardRun(path, store, run, dict(run.options), Shard.parse(run.options.get("shard") or "1/1"))


def _what_it_measured(shard: ShardRun) -> dict:
    r = shard.run
    return {"target": r.target, "commit": r.commit, "profiles": list(r.profiles), "operators": list(r.operators),
            "versions": dict(r.versions),
            "options": {k: v for k, v in shard.options.items() if k not in HOW_IT_RAN},
            "shards": shard.shard.count}


def check_shards(shards: list[ShardRun]) -> None:
    """Refuse shards that do not make one run, naming the first difference."""
    first = shards[0]
    names = {"target": "targets", "commit": "commits", "options": "configs", "profiles": "profiles",
             "operators": "operators", "versions": "package versions", "shards": "splits (n)"}
    for shard in shards:
        if not shard.run.completed:
            raise ShardsRefused(f"{shard.name} is {shard.run.status}, not completed; finish it (teeth run "
                                f"--resume) before merging")
        if shard.run.dirty:
            raise ShardsRefused(f"{shard.name} was run on uncommitted changes; shards must be runs of one commit")
        mine, theirs = _what_it_measured(first), _what_it_measured(shard)
        for key, label in names.items():
            if mine[key] != theirs[key]:
                raise ShardsRefused(f"shards of different {label}: {first.name} has {_short(mine[key])}, "
                                    f"{shard.name} has {_short(theirs[key])}")
    seen: dict[int, ShardRun] = {}
    for shard in shards:
        if shard.shard.index in seen:
            raise ShardsRefused(f"overlapping shards: {seen[shard.shard.index].name} and {shard.name} are both "
                                f"shard {shard.shard}")
        seen[shard.shard.index] = shard
    owner: dict[tuple[str, str], ShardRun] = {}
    for shard in shards:
        for key in shard.store.done_keys(shard.run.id):
            if key in owner:
                raise ShardsRefused(f"overlapping shards: mutant {key[0]} ({key[1]}) is in {owner[key].name} "
                                    f"and {shard.name}")
            owner[key] = shard
    missing = [f"{k}/{first.shard.count}" for k in range(1, first.shard.count + 1) if k not in seen]
    if missing:
        raise ShardsRefused(f"shard(s) {', '.join(missing)} missing: the merged run would not be whole")


def _short(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:79] + "…"


def merge(paths: list[Path], into: Path, target: str | None = None) -> int:
    """Join the shards' runs into one new run of the database `into`; return its id."""
    for path in paths:  # the same file by any name (a relative path, a symbolic or hard link): its inode
        if into.exists() and path.exists() and os.path.samefile(path, into):
            raise ShardsRefused(f"--into {into} is the shard {path}: the merged run goes into another database")
    shards = sorted((read_shard(p, target) for p in paths), key=lambda s: s.shard.index)
    check_shards(shards)
    first = shards[0]
    options = {k: v for k, v in first.options.items() if k != "shard"}
    options["merged"] = [{"db": str(s.path), "run": s.run.id, "shard": str(s.shard)} for s in shards]
    timings: dict[str, float] = {}
    for shard in shards:  # machine time: summed over the shards
        for stage, seconds in (shard.run.timings or {}).items():
            timings[stage] = timings.get(stage, 0.0) + seconds
    # everything read before the target database is opened
    results = [r for s in shards for r in s.store.results(s.run.id)]
    tests = [t for s in shards for t in s.store.tests(s.run.id)]
    matrix = {m: per_profile for s in shards for m, per_profile in s.store.kill_matrix(s.run.id).items()}
    counts = {s: sum(1 for r in results if r.status == s) for s in STATUSES}
    made = first.run.totals or {}
    counts.update({k: made[k] for k in ("arid", "duplicates", "unviable") if k in made})
    notes = tuple(dict.fromkeys(n for s in shards for n in s.run.notes))  # each once
    return Store(into).add_run(Run(
        id=0, target=first.run.target, started_at=min(s.run.started_at for s in shards), finished_at=now(),
        status=RunStatus.COMPLETED, commit=first.run.commit, dirty=first.run.dirty, profiles=first.run.profiles,
        operators=first.run.operators, versions=first.run.versions, options=options, timings=timings,
        totals=counts, notes=notes), results, tests, matrix=matrix)
