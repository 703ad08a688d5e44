"""A pushed run on the wire: its pydantic schema, its parsing, and its content digest."""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from teeth.core import STATUSES, Check, Status as StatusEnum, WorkerFailure
from teeth.store.records import (Mutant, Result, Run, RunStatus, TestRecord, mutant_of, mutant_row, outcome_of,
                           outcome_row, record_of_test, row_of_test)
from teeth.store.db import SCHEMA_VERSION

Status = Literal[STATUSES]  # type: ignore[valid-type]
TARGET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
TARGET_RULE = ("a target name the server stores is 1 to 200 letters, digits, '.', '_' or '-', starting with a letter "
               "or digit (it is a path segment of every page, API path and badge)")
Line = Annotated[int, Field(ge=0, le=2**31 - 1)]  # SQLite keeps 64-bit integers; a line number needs far fewer
Count = Annotated[int, Field(ge=0, le=2**31 - 1)]
Seconds = Annotated[float, Field(ge=0)]  # finite: the models refuse NaN and infinities


def check_target_name(name: str, error=ValueError) -> str:
    """`name` when the server can store and serve it, else `error` with the rule."""
    if not TARGET_NAME.fullmatch(name):
        raise error(f"target {name!r} refused: {TARGET_RULE}")
    return name


TargetName = Annotated[str, AfterValidator(check_target_name)]


def _json_text(text: str) -> str:
    json.loads(text)  # a ValueError is the model's validation error
    return text


JsonText = Annotated[str, AfterValidator(_json_text)]  # JSON as the tests table keeps it, as text


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class PushedRunMeta(_Strict):
    target: TargetName
    started_at: Optional[str] = None
    finished_at: Optional[str] = None
    status: Literal[tuple(s.value for s in RunStatus)]  # type: ignore[valid-type]
    commit: Optional[str] = None
    dirty: Optional[int] = Field(None, ge=0, le=1)
    profiles: list[str]
    operators: list[str]
    versions: dict = {}
    timings: Optional[dict] = None
    totals: Optional[dict] = None
    options: dict = {}
    notes: list[str] = []  # what the run found about the suite (runs.notes): an audit's lines


class PushedMutant(_Strict):
    id: str = Field(min_length=1, max_length=200)
    target: str
    file: str
    line: Line
    end_line: Optional[Line] = None
    function: Optional[str] = None
    op: str
    operator: str
    original: Optional[str] = None
    replacement: Optional[str] = None
    diff: Optional[str] = None
    skip: Optional[str] = None


class PushedOutcome(_Strict):
    mutant_id: str
    profile: str
    status: Status
    killed_by: Optional[str] = None
    check: Optional[Literal[tuple(c.value for c in Check)]] = None  # type: ignore[valid-type]
    duration: Optional[Seconds] = None
    tests_run: Optional[Count] = None
    test_seconds: Optional[Seconds] = None
    detail: Optional[str] = None
    signal: Optional[Annotated[int, Field(ge=1, le=255)]] = None  # the signal the mutant's child died of
    failure: Optional[Literal[tuple(f.value for f in WorkerFailure)]] = None  # type: ignore[valid-type]
    cache_key: Optional[str] = None

    @model_validator(mode="after")
    def _failure_is_an_error(self):
        if self.failure is not None and self.status != StatusEnum.ERROR:
            raise ValueError(f"a worker failure ({self.failure}) is an error, not {self.status}")
        return self


class PushedTest(_Strict):
    profile: str
    test: str
    duration: Optional[Seconds] = None
    failure: Optional[JsonText] = None  # JSON text, as the tests table keeps it
    covers: Optional[JsonText] = None
    test_key: Optional[str] = None
    profile_key: Optional[str] = None
    lines: Optional[JsonText] = None  # JSON text: the lines the test executed per file (teeth show)


class PushedRun(_Strict):
    """Everything one run recorded: its metadata, its mutants, their outcomes, and its baseline tests."""

    schema_version: int = Field(alias="schema", ge=1)  # above the server's: NewerSchema, before validation
    run: PushedRunMeta
    mutants: list[PushedMutant] = Field(min_length=1)  # `teeth push` sends no run without outcomes
    outcomes: list[PushedOutcome] = Field(min_length=1)
    tests: list[PushedTest] = []

    @model_validator(mode="after")
    def _consistent(self):
        ids = {m.id for m in self.mutants}
        if any(m.target != self.run.target for m in self.mutants):
            raise ValueError(f"every mutant must belong to the run's target {self.run.target!r}")
        missing = {o.mutant_id for o in self.outcomes} - ids
        if missing:
            raise ValueError(f"outcomes of mutants not in the run: {', '.join(sorted(missing)[:3])}")
        if len({(o.mutant_id, o.profile) for o in self.outcomes}) != len(self.outcomes):
            raise ValueError("two outcomes for one (mutant, profile)")
        return self


def push_body(run: Run, results: list[Result], tests: list[TestRecord]) -> dict:
    """A run as the JSON body `teeth push` sends: its metadata, its mutants by id, its outcomes by mutant and
    profile, its tests (JSON columns as text); `reused_from` is local to the database: not sent."""
    shown = run.to_json()
    meta = {k: shown[k] for k in PushedRunMeta.model_fields}
    meta["dirty"] = None if run.dirty is None else int(run.dirty)
    mutants = {r.mutant.id: r.mutant for r in results}
    return {"schema": SCHEMA_VERSION, "run": meta,
            "mutants": [{k: mutant_row(mutants[i])[k] for k in PushedMutant.model_fields} for i in sorted(mutants)],
            "outcomes": [{k: outcome_row(r.outcome, r.profile)[k] for k in PushedOutcome.model_fields}
                         for r in sorted(results, key=lambda r: r.key)],
            "tests": [{k: row_of_test(t)[k] for k in PushedTest.model_fields} for t in tests]}


def pushed_records(pushed: PushedRun) -> tuple[Run, list[Mutant], list[Result], list[TestRecord]]:
    """A pushed run as the store takes it: the run (its id is the store's to give), mutants, results, tests."""
    meta = pushed.run
    run = Run(id=0, target=meta.target, started_at=meta.started_at, finished_at=meta.finished_at,
              status=RunStatus(meta.status), commit=meta.commit, dirty=None if meta.dirty is None else bool(meta.dirty),
              profiles=tuple(meta.profiles), operators=tuple(meta.operators), versions=meta.versions,
              options=meta.options, timings=meta.timings, totals=meta.totals, notes=tuple(meta.notes))
    mutants = {m.id: mutant_of(m.model_dump()) for m in pushed.mutants}
    results = [Result(mutants[o.mutant_id], o.profile, outcome_of(o.model_dump())) for o in pushed.outcomes]
    return run, list(mutants.values()), results, [record_of_test(t.model_dump()) for t in pushed.tests]


class NewerSchema(Exception):
    """The run was recorded by a teeth whose schema this one does not know."""


def parse_push(body: bytes) -> PushedRun:
    """The run in a request body. Raises NewerSchema, or ValueError with one line on what is wrong."""
    try:
        data = json.loads(body, parse_constant=_non_finite, parse_float=_finite)
    except RecursionError:
        raise ValueError("body is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("body must be a JSON object")
    schema = data.get("schema")
    if isinstance(schema, int) and not isinstance(schema, bool) and schema > SCHEMA_VERSION:
        raise NewerSchema(f"the run was recorded with teeth schema {schema}, newer than this server understands "
                          f"({SCHEMA_VERSION}); upgrade the server's teeth")
    try:
        return PushedRun.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ValueError(f"{where}: {first['msg']} ({exc.error_count()} problem(s))") from None


def _non_finite(word: str):
    raise ValueError(f"{word} is not a number a run records (numbers must be finite)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range (numbers must be finite)")
    return value


def digest(run: PushedRun) -> str:
    """The run's content key: the same run pushed twice has one digest, whatever schema number it came with. The
    metadata's free-form objects (versions, timings, ...) are key-sorted; the rest is in the models' field order
    (pydantic's fast JSON; every number in it is finite, so no two values print alike). A run without notes has the
    digest it had before runs carried notes."""
    meta = run.run.model_dump(exclude={"notes"} if not run.run.notes else None)  # a run without notes: as before
    key = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    key.update(run.model_dump_json(by_alias=True, exclude={"run", "schema_version"}).encode())
    return key.hexdigest()
