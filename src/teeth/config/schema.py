"""The config's schema (pydantic): every key's type and range; a violation is one line: key, value, expectation."""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from teeth.errors import ConfigError

def _no_nul(text: str) -> str:
    if "\0" in text:
        raise ValueError("a path without NUL characters")
    return text


PathText = Annotated[str, AfterValidator(_no_nul)]
MUTANT_ID = re.compile(r"[0-9a-f]{12}")


def _skip_pattern(text: str) -> str:
    parts = text.split("::")
    if len(parts) > 3 or not all(part.strip() for part in parts):
        raise ValueError("a pattern OPERATOR, FILE::FUNCTION or FILE::FUNCTION::OPERATOR (fnmatch, no empty part)")
    return text


def _equivalent(table: dict[str, str]) -> dict[str, str]:
    for ident, reason in table.items():
        if not MUTANT_ID.fullmatch(ident):
            raise ValueError(f"mutant ids (12 hex digits, as `teeth show` prints them) as keys, not {ident!r}")
        if not reason.strip():
            raise ValueError(f"a reason for {ident}")
    return table


SkipPattern = Annotated[str, AfterValidator(_skip_pattern)]


def _object_reference(text: str) -> str:
    module, colon, attribute = text.partition(":")
    if not colon or not attribute.isidentifier() or not all(part.isidentifier() for part in module.split(".")):
        raise ValueError("an object as MODULE:ATTRIBUTE (kernels.specs:OP_SPECS)")
    return text


ObjectReference = Annotated[str, AfterValidator(_object_reference)]


class _Table(BaseModel):
    # strict: "5" is not a number and "tests" is not a list of one; unknown keys are refused; no inf or nan
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class TargetTable(_Table):
    """`[tool.teeth.targets.NAME]`"""

    files: list[PathText] = []
    files_outside_root: bool = False  # files may match paths outside `root` (teeth apply writes there)
    modules: list[PathText] = []
    tests: list[PathText] = Field(min_length=1)
    pytest_args: list[str] = []
    operators: list[str] | None = None
    profiles: list[str] = ["cpu"]
    ops: dict[str, str] = {}
    root: PathText = "."
    fail_under: float | None = Field(default=None, ge=0, le=1)
    tolerance: float = Field(default=0.0, ge=0, le=1)
    required_operators: list[str] | None = None
    test_required_operators: list[str] | None = None
    new_kills: int = Field(default=1, ge=0)
    timeout_floor: float = Field(default=5.0, ge=0)
    timeout_factor: float = Field(default=5.0, ge=0)
    test_timeout_floor: float = Field(default=1.0, ge=0)
    test_timeout_factor: float = Field(default=5.0, ge=0)
    profile_files: dict[str, list[PathText]] = {}
    op_from: Literal["function", "file"] = "function"
    baseline_timeout: float = Field(default=1800.0, gt=0)
    sandbox: bool = True
    equivalent: Annotated[dict[str, str], AfterValidator(_equivalent)] = {}
    skip: list[SkipPattern] = []
    contiguous_decorators: list[str] = []
    baseline_retries: int = Field(default=2, ge=0, le=100)
    flaky: Literal["exclude", "refuse"] = "exclude"
    concurrency: list[Literal["thread", "greenlet", "gevent", "eventlet"]] | None = None


class ProfileTable(_Table):
    """`[tool.teeth.profiles.NAME]`"""

    env: dict[str, str | int | float] = {}
    pytest_args: list[str] | None = None
    requires: Literal["cuda"] | None = None
    execution: Literal["warm", "cold"] | None = None
    bounds_check: bool | None = None
    dtype: Literal["float32", "float64", "bfloat16", "float16"] = "float32"


class InvarianceTable(_Table):
    """`[tool.teeth.invariance]`: what `teeth invariance` checks."""

    specs: ObjectReference  # op name -> OpSpec (teeth.invariance.specs)
    profiles: ObjectReference  # profile name -> InvarianceProfile (teeth.invariance.profiles)


class TeethTable(_Table):
    """`[tool.teeth]` (or the top of a `--config` file)."""

    targets: dict[str, TargetTable] = {}
    profiles: dict[str, ProfileTable] = {}
    invariance: InvarianceTable | None = None


EXPECTED = {  # pydantic's error type -> what the key takes, in words
    "list_type": "a list", "string_type": "a string", "dict_type": "a table", "model_type": "a table",
    "float_type": "a number", "int_type": "an integer", "missing": "a value (the key is required)",
    "too_short": "at least one entry",
}
EXPECTED_OF_KEY = {"fail_under": "a fraction from 0 to 1 (0.8 means 80%)", "tolerance": "a fraction from 0 to 1"}
UNION_TAGS = {"str", "int", "float"}  # pydantic names the member of `str | int | float` in an error's location


def validate(table: object, where: str) -> TeethTable:
    """The teeth table, checked; a ConfigError of one line naming each bad key otherwise."""
    try:
        return TeethTable.model_validate(table)
    except ValidationError as exc:
        grouped: dict[tuple, list[dict]] = {}
        for error in exc.errors(include_url=False):
            loc = tuple(error["loc"])
            grouped.setdefault(loc[:-1] if loc and loc[-1] in UNION_TAGS else loc, []).append(error)
        problems = [_describe(loc, errors) for loc, errors in grouped.items()]
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        raise ConfigError(f"{where}: " + "; ".join(problems[:3]) + more) from None


def _describe(loc: tuple, errors: list[dict]) -> str:
    key = "".join(f"[{part}]" if isinstance(part, int) else f".{_quote(part)}" for part in loc).lstrip(".")
    key = key or "the teeth table"
    kind = errors[0]["type"]
    if kind == "missing":
        return f"{key}: missing; expected {EXPECTED[kind]}"
    given = _shown(errors[0].get("input"))
    if kind == "extra_forbidden":
        known = _known_keys(loc[:-1])
        return f"{key} = {given}: unknown key" + (f"; known keys: {', '.join(known)}" if known else "")
    expected = EXPECTED_OF_KEY.get(loc[-1]) if loc and len(loc) == 3 else None
    said = (EXPECTED.get(e["type"]) or e["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
            for e in errors)
    expected = expected or " or ".join(dict.fromkeys(said))
    return f"{key} = {given}: expected {expected}"


def _quote(part: str) -> str:
    return part if part.replace("_", "").isalnum() else json.dumps(part)


def _shown(value: object, width: int = 40) -> str:
    text = repr(value)
    return (text if len(text) <= width else text[: width - 1] + "…") + f" ({type(value).__name__})"


def _known_keys(loc: tuple) -> list[str]:
    """The keys the table at `loc` accepts: the top level, a target or a profile."""
    if not loc:
        return sorted(TeethTable.model_fields)
    if len(loc) == 1 and loc[0] == "invariance":
        return sorted(InvarianceTable.model_fields)
    if len(loc) == 2 and loc[0] in ("targets", "profiles"):
        return sorted({"targets": TargetTable, "profiles": ProfileTable}[loc[0]].model_fields)
    return []
