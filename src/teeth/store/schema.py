"""The store's schema: named migrations (sqlite-utils' `Migrations`), each applied in a transaction and recorded."""

from __future__ import annotations

import json
import re

import sqlite_utils
from sqlite_utils.migrations import Migrations

MIGRATIONS = Migrations("teeth")
STEPS: list[str] = []  # the names, in order; `PRAGMA user_version` is how many of them a database has


def step(func):
    """Register a migration under its function's name; it also sets `user_version` to its place in the order, so a
    teeth that knows fewer steps refuses the database instead of misreading it."""
    number = len(STEPS) + 1

    def apply(db: sqlite_utils.Database) -> None:
        func(db)
        db.execute(f"PRAGMA user_version = {number}")

    STEPS.append(func.__name__)
    MIGRATIONS(name=func.__name__)(apply)
    return func


@step
def m001_runs_mutants_outcomes_tests(db: sqlite_utils.Database) -> None:
    db["runs"].create({
        "id": int, "target": str, "started_at": str, "finished_at": str, "status": str,
        "commit": str, "dirty": int, "profiles": str, "operators": str, "versions": str,
        "timings": str, "totals": str, "options": str,
    }, pk="id", if_not_exists=True)
    db["mutants"].create({
        "id": str, "target": str, "file": str, "line": int, "end_line": int, "function": str,
        "op": str, "operator": str, "original": str, "replacement": str, "diff": str, "skip": str,
    }, pk="id", if_not_exists=True)
    db["outcomes"].create({
        "run_id": int, "mutant_id": str, "profile": str, "status": str, "killed_by": str,
        "check": str, "duration": float, "tests_run": int, "test_seconds": float, "detail": str,
    }, pk=("run_id", "mutant_id", "profile"), foreign_keys=[("run_id", "runs", "id"), ("mutant_id", "mutants", "id")],
        if_not_exists=True)
    _tests_table(db)
    db["outcomes"].create_index(["mutant_id"], if_not_exists=True)


@step
def m002_outcome_cache_keys(db: sqlite_utils.Database) -> None:
    """Incremental runs (teeth.run.incremental): the key an outcome was decided on, and the run it was reused from."""
    _add_columns(db["outcomes"], {"cache_key": str, "reused_from": int})


@step
def m003_test_coverage(db: sqlite_utils.Database) -> None:
    """Test selection (teeth.run.selection): what each test executed, and the keys it ran under."""
    _tests_table(db)
    _add_columns(db["tests"], {"covers": str, "test_key": str, "profile_key": str})
    db["tests"].create_index(["profile", "test"], if_not_exists=True)


@step
def m004_run_supervision(db: sqlite_utils.Database) -> None:
    """The process that owns a running run, and what isolated its tests."""
    _add_columns(db["runs"], {"pid": int, "host": str, "protection": str})


@step
def m005_test_lines(db: sqlite_utils.Database) -> None:
    """`teeth show`: the lines each baseline test executed (teeth.store.lines.line_ranges)."""
    _add_columns(db["tests"], {"lines": str})


@step
def m006_mutant_paths(db: sqlite_utils.Database) -> None:
    """`file` is as shown (an installed module's from its import root); `path`: the absolute path."""
    if db["mutants"].exists():  # a database without one gets it, with `path`, from the first insert
        _add_columns(db["mutants"], {"path": str})


@step
def m007_run_kind_and_filters(db: sqlite_utils.Database) -> None:
    """What a run measured, as columns (no JSON to parse): its kind and the filters it ran under, filled from the
    options of the runs already recorded (their `--profile` was not recorded: null)."""
    _add_columns(db["runs"], {column: str for column in RUN_COLUMNS})
    for row in list(db.query("select id, options from runs")):
        db["runs"].update(row["id"], run_columns(json.loads(row["options"] or "{}")))


@step
def m008_kill_matrix(db: sqlite_utils.Database) -> None:
    """`--full-matrix`: every test a mutant ran and its verdict (`check` null: it passed), one row each."""
    db["matrix"].create({"run_id": int, "mutant_id": str, "profile": str, "test": str, "check": str, "detail": str},
                        pk=("run_id", "mutant_id", "profile", "test"), if_not_exists=True)
    db["matrix"].create_index(["run_id", "test"], if_not_exists=True)


@step
def m009_outcome_why(db: sqlite_utils.Database) -> None:
    """Why a survivor survived (teeth.run.infection): `not_infected`, `not_propagated`, `not_checked`, `unmeasured`."""
    if db["outcomes"].exists():
        _add_columns(db["outcomes"], {"why": str})


@step
def m010_run_notes(db: sqlite_utils.Database) -> None:
    """What a run found about the suite (flaky tests, a selection audit's disagreements), as a JSON list of lines."""
    _add_columns(db["runs"], {"notes": str})


@step
def m011_outcome_failure_and_signal(db: sqlite_utils.Database) -> None:
    """The outcome's worker failure (`not_applied`, `raised`, `crashed`, `no_result`, `lost`) and the signal its child
    died of, as columns: before, a signal was folded into the detail ("signal 11: crashed with SIGSEGV") and the
    failure not stored. Filled from the old details where they say it; the signal prefix leaves the detail."""
    if not db["outcomes"].exists():
        return
    _add_columns(db["outcomes"], {"failure": str, "signal": int})
    for row in list(db.query('select rowid, status, "check", detail from outcomes where detail is not null')):
        failure, sig, detail = old_detail_facts(row["status"], row["check"], row["detail"])
        if (failure, sig) != (None, None):
            db.execute("update outcomes set failure = ?, signal = ?, detail = ? where rowid = ?",
                       [failure, sig, detail, row["rowid"]])


# What teeth's workers wrote in the detail of an outcome before m011, per worker failure.
OLD_FAILURE_DETAILS = (("crashed", re.compile(r"crashed with SIG\w+")),
                       ("no_result", re.compile(r"exited with code -?\d+ without a result")),
                       ("lost", re.compile(r"its Ray worker died \d+ times running it")),
                       ("raised", re.compile(r"killed by .*, which did not pass in the baseline: no evidence")))
OLD_SIGNAL = re.compile(r"signal (\d+): (.*)", re.DOTALL)


def old_detail_facts(status: str, check: str | None, detail: str) -> tuple[str | None, int | None, str]:
    """(failure, signal, detail without the signal) of an outcome stored before m011; None where it does not say.
    Only a crash kill and an error had a signal folded in (another kill's detail is a test's message)."""
    sig = None
    if (status == "error" or check == "crash") and (found := OLD_SIGNAL.fullmatch(detail)):
        sig, detail = int(found[1]), found[2]
    failure = next((name for name, pattern in OLD_FAILURE_DETAILS if pattern.match(detail)), None) \
        if status == "error" else None
    return failure, sig, detail


RUN_COLUMNS = ("kind", "op_filter", "operator_filter", "profile_filter", "shard", "mutant_filter")


def run_columns(options: dict) -> dict:
    """A run's explicit columns from its recorded options (written in one place, `RunRequest.recorded_options`; read
    back here for a new run, a merged or pushed one and, by m007, the runs recorded before these columns): `kind` run
    or check; each filter the command was given, as a JSON list (None: not filtered); `shard` K/N."""
    def listed(key: str) -> str | None:
        values = options.get(key)
        return json.dumps(values) if values else None

    return {"kind": options.get("command") or "run", "op_filter": listed("ops"),
            "operator_filter": listed("operators"), "profile_filter": listed("profiles"),
            "shard": options.get("shard"), "mutant_filter": listed("mutants")}


def _tests_table(db: sqlite_utils.Database) -> None:
    db["tests"].create({"run_id": int, "profile": str, "test": str, "duration": float, "failure": str},
                       pk=("run_id", "profile", "test"), if_not_exists=True)


def _add_columns(table, columns: dict) -> None:
    for column, kind in columns.items():
        if column not in table.columns_dict:
            table.add_column(column, kind)


def upgrade(db: sqlite_utils.Database, version: int) -> None:
    """Apply the steps a database at `version` lacks, in order; a database from before named migrations (versions
    1 to 6 kept only `user_version`) first has the steps it already went through recorded as applied."""
    table = db[MIGRATIONS.migrations_table]
    if version and not MIGRATIONS.applied(db):
        MIGRATIONS.ensure_migrations_table(db)
        adopted = f"before named migrations (user_version {version})"  # when is not known
        table.insert_all({"migration_set": MIGRATIONS.name, "name": name, "applied_at": adopted}
                         for name in STEPS[:version])
    MIGRATIONS.apply(db)


SCHEMA_VERSION = len(STEPS)
