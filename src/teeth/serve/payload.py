"""A pushed run on the wire: its pydantic schema, its parsing, and its content digest."""

from __future__ import annotations

import hashlib
import json
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from teeth.core import STATUSES
from teeth.store import SCHEMA_VERSION

Status = Literal[STATUSES]  # type: ignore[valid-type]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PushedRunMeta(_Strict):
    target: str = Field(min_length=1, max_length=200)
    started_at: Optional[str] = None
    finished_at: Optional[str] = None
    status: str
    commit: Optional[str] = None
    dirty: Optional[int] = None
    profiles: list[str]
    operators: list[str]
    versions: dict = {}
    timings: Optional[dict] = None
    totals: Optional[dict] = None
    options: dict = {}


class PushedMutant(_Strict):
    id: str = Field(min_length=1, max_length=200)
    target: str
    file: str
    line: int
    end_line: Optional[int] = None
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
    check: Optional[str] = None
    duration: Optional[float] = None
    tests_run: Optional[int] = None
    test_seconds: Optional[float] = None
    detail: Optional[str] = None
    cache_key: Optional[str] = None


class PushedTest(_Strict):
    profile: str
    test: str
    duration: Optional[float] = None
    failure: Optional[str] = None  # JSON text, as the tests table keeps it
    covers: Optional[str] = None
    test_key: Optional[str] = None
    profile_key: Optional[str] = None
    lines: Optional[str] = None  # JSON text: the lines the test executed per file (teeth show)


class PushedRun(_Strict):
    """Everything one run recorded: its metadata, its mutants, their outcomes, and its baseline tests."""

    schema_version: int = Field(alias="schema")
    run: PushedRunMeta
    mutants: list[PushedMutant]
    outcomes: list[PushedOutcome]
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


class NewerSchema(Exception):
    """The run was recorded by a teeth whose schema this one does not know."""


def parse_push(body: bytes) -> PushedRun:
    """The run in a request body. Raises NewerSchema, or ValueError with one line on what is wrong."""
    try:
        data = json.loads(body)
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


def digest(run: PushedRun) -> str:
    """The run's content key: the same run pushed twice has one digest. The metadata's free-form objects
    (versions, timings, ...) are key-sorted; the rest is in the models' field order (pydantic's fast JSON)."""
    key = hashlib.sha256(json.dumps(run.run.model_dump(), sort_keys=True).encode())
    key.update(run.model_dump_json(by_alias=True, exclude={"run"}).encode())
    return key.hexdigest()
