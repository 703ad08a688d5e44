"""What one `teeth run` or `teeth check` of a target is asked to do, built once from the command's options, the
config and the defaults (cargo-mutants' `Options`), and handed down to the lab."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Literal

from teeth.config.targets import Config, Target
from teeth.errors import TeethError
from teeth.operators import Operator, select_operators
from teeth.config.profiles import Profile
from teeth.store.records import RunKind
from teeth.run.shards import Shard

Backend = Literal["local", "ray"]


@dataclass(frozen=True)
class RunRequest:
    """A run of one target: which mutants (`ops`, `shard`, `chosen`), under which operators and profiles, run how
    (`jobs`, `backend`, `execution`, `reuse`, ...), and gated by which `fail_under`. `recorded_options` is the one
    place the run's recorded options are written (`store_schema.run_columns` reads its kind and filters back)."""

    target: Target
    operators: tuple[Operator, ...]
    profiles: tuple[Profile, ...]
    jobs: int  # mutants run at once; 0: one per slot of a Ray cluster
    kind: RunKind = RunKind.RUN
    ops: tuple[str, ...] = ()  # --op: only mutants of these ops
    operator_names: tuple[str, ...] = ()  # --operator as given (empty: the target's operators)
    profile_names: tuple[str, ...] = ()  # --profile as given (empty: the target's profiles)
    backend: Backend = "local"
    address: str | None = None  # --backend ray: the cluster
    execution: str | None = None  # --execution: every profile's, instead of each profile's own
    cache: bool = True  # reuse stored outcomes whose cache key still holds (--no-cache: False)
    resume: bool = False
    fail_under: float | None = None  # --fail-under (None: the target's, for a whole run)
    shard: Shard | None = None
    chosen: frozenset[str] | None = None  # the mutants --mutant and --only name, once discovery found them
    only: tuple[str, ...] = ()  # --only: the statuses that chose them
    audit: int | Literal["all"] | None = None  # --audit N|all
    full_matrix: bool = False
    infection: bool = True  # --no-infection: False
    base: str | None = None  # teeth check: the ref given, its merge-base with HEAD, and the tests the change touches
    merge_base: str | None = None
    tests: dict | None = None

    @classmethod
    def of_run(cls, config: Config, target_name: str, *, ops=(), operator_names=(), profile_names=(),
               jobs: int | None = None, backend: Backend = "local", address: str | None = None,
               execution: str | None = None, cache: bool = True, resume: bool = False,
               fail_under: float | None = None, shard: str | None = None, audit: str | None = None,
               full_matrix: bool = False, infection: bool = True) -> RunRequest:
        """`teeth run`'s options over the target's config; one-line errors for a name the config does not know."""
        audited = _audit(audit)
        target = config.target(target_name)
        operators = select_operators(list(operator_names) or target.operators)
        profiles = _profiles(target, profile_names)
        if execution:
            profiles = [dataclasses.replace(p, execution=execution) for p in profiles]
        if backend == "local" and address:
            raise TeethError("--address needs --backend ray")
        return cls(target, tuple(operators), tuple(profiles),
                   jobs=jobs or (0 if backend == "ray" else os.cpu_count() or 1), ops=tuple(ops),
                   operator_names=tuple(operator_names), profile_names=tuple(profile_names), backend=backend,
                   address=address, execution=execution, cache=cache, resume=resume, fail_under=fail_under,
                   shard=Shard.parse(shard) if shard is not None else None, audit=audited, full_matrix=full_matrix,
                   infection=infection)

    @classmethod
    def of_check(cls, target: Target, base: str, merge_base: str, *, jobs: int | None = None, cache: bool = True,
                 full_matrix: bool = False) -> RunRequest:
        """`teeth check` of one target (`base`: the ref given, `merge_base`: its merge-base with HEAD): the
        target's operators and profiles."""
        return cls(target, tuple(select_operators(target.operators)), tuple(target.profiles),
                   jobs=jobs or os.cpu_count() or 1, kind=RunKind.CHECK, cache=cache, full_matrix=full_matrix,
                   base=base, merge_base=merge_base)

    def testing(self, added: list[str], edited: list[str]) -> RunRequest:
        """This check, judging the tests the change adds and edits: that takes every test's verdict (a full matrix,
        so no outcome is reused: a reused outcome has no matrix)."""
        return dataclasses.replace(self, full_matrix=True, tests={"added": list(added), "edited": list(edited)})

    def choosing(self, chosen: set[str] | None, only=()) -> RunRequest:
        """This request, run for the mutants --mutant and --only (`only`: its statuses) named among those
        discovered (None: all of them)."""
        return dataclasses.replace(self, chosen=frozenset(chosen) if chosen is not None else None, only=tuple(only))

    @property
    def whole(self) -> bool:
        """Whether the run measures all of the target's mutants: not one shard, not chosen mutants."""
        return self.shard is None and self.chosen is None

    @property
    def reuses(self) -> bool:
        """Whether stored outcomes may stand in for running a mutant: chosen mutants run against today's tests, and
        a full matrix wants every test's verdict."""
        return self.cache and self.chosen is None and not self.full_matrix

    @property
    def gate(self) -> float | None:
        """The kill rate the run must reach: --fail-under, else the target's fail_under for a whole run only."""
        if self.fail_under is not None:
            return self.fail_under
        return self.target.fail_under if self.whole else None

    def holds(self, mutant_id: str) -> bool:
        """Whether the mutant is in the run's part of the target (its shard, the chosen mutants)."""
        return (self.shard is None or self.shard.holds(mutant_id)) and (self.chosen is None or mutant_id in self.chosen)

    def recorded_options(self) -> dict:
        """The run's options as `runs.options` records them."""
        if self.kind is RunKind.CHECK:
            return {"command": "check", "base": self.base, "merge_base": self.merge_base, "jobs": self.jobs,
                    "cache": self.cache, **({"full_matrix": True} if self.full_matrix else {}),
                    **({"tests": self.tests} if self.tests is not None else {})}
        options = {"ops": list(self.ops), "jobs": self.jobs, "operators": list(self.operator_names),
                   "profiles": list(self.profile_names), "backend": self.backend, "address": self.address,
                   "no_cache": not self.cache, "execution": self.execution}
        if self.chosen is not None:
            options.update(mutants=sorted(self.chosen), only=list(self.only))
        if self.shard is not None:
            options["shard"] = str(self.shard)
        if self.full_matrix:
            options["full_matrix"] = True
        if not self.infection:
            options["no_infection"] = True
        return options


def _audit(text: str | None) -> int | Literal["all"] | None:
    """`--audit N|all`; one line and exit 2 for anything else."""
    if text is None:
        return None
    from teeth.run.audit import parse_audit

    try:
        count = parse_audit(text)
    except ValueError:
        raise TeethError(f"--audit {text!r}: expected a number of mutants (1 or more) or 'all'") from None
    return "all" if count is None else count


def _profiles(target: Target, names) -> list[Profile]:
    if not names:
        return target.profiles
    known = {p.name: p for p in target.profiles}
    for name in names:
        if name not in known:
            raise TeethError(f"unknown profile {name!r} for target {target.name}; its profiles: {', '.join(known)}")
    return [known[n] for n in names]
