"""The store's schema: named migrations, each in a transaction and recorded; databases of schema 1 to 6 upgrade."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from teeth.errors import TeethError
from teeth.store.db import SCHEMA_VERSION, Store
from teeth.store.schema import MIGRATIONS, STEPS

from tests.helpers.databases import VERSION_10_OUTCOMES, version_1_database, version_10_database

# What teeth recorded before run columns existed: a filtered `teeth run`, a `teeth check`, a shard, chosen mutants.
OLD_RUNS = {
    1: {},
    2: {"ops": [], "operators": ["whole_batch"], "jobs": 2},
    3: {"command": "check", "base": "main"},
    4: {"ops": ["take"], "shard": "1/2"},
    5: {"mutants": ["abc123"], "only": ["survived"]},
}


def version_6_database(path: Path) -> None:
    """A teeth database as schema 6 (the last before named migrations) made it, with runs of every kind."""
    version_1_database(path)
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            alter table outcomes add column cache_key text;
            alter table outcomes add column reused_from integer;
            alter table tests add column covers text;
            alter table tests add column test_key text;
            alter table tests add column profile_key text;
            create index idx_tests_profile_test on tests (profile, test);
            alter table runs add column pid integer;
            alter table runs add column host text;
            alter table runs add column protection text;
            alter table tests add column lines text;
            alter table mutants add column path text;
            create index idx_outcomes_mutant_id on outcomes (mutant_id);
            pragma user_version = 6;
        """)
        with_old_runs(conn)
    conn.close()


def with_old_runs(conn: sqlite3.Connection) -> None:
    for run_id, options in OLD_RUNS.items():
        conn.execute("""insert or replace into runs (id, target, "commit", started_at, status, options)
                        values (?, 'rows', 'c0ffee', '2025-01-01T00:00:00', 'completed', ?)""",
                     [run_id, json.dumps(options)])


def old_database(path: Path, version: int) -> Path:
    if version == 1:
        version_1_database(path)
        with sqlite3.connect(path) as conn:
            with_old_runs(conn)
        conn.close()
    else:
        version_6_database(path)
    return path


def schema_of(db) -> dict[str, set[str]]:
    return {name: set(db[name].columns_dict) for name in db.table_names()}


def applied(db) -> list[str]:
    return [m.name for m in MIGRATIONS.applied(db)]


def test_a_new_database_records_every_named_migration_in_order():
    store = Store(":memory:")
    assert applied(store.db) == STEPS and len(STEPS) == SCHEMA_VERSION
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


@pytest.mark.parametrize("version", [1, 6])
def test_an_older_database_upgrades_to_the_schema_of_a_new_one_with_its_rows_kept(tmp_path, version):
    store = Store(old_database(tmp_path / "old.db", version))
    fresh = Store(tmp_path / "fresh.db")
    assert schema_of(store.db) == schema_of(fresh.db)
    assert applied(store.db) == STEPS  # the steps it had went through are recorded, the rest applied
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [r["status"] for r in store.db["outcomes"].rows] == ["survived"]
    assert [r.mutant.id for r in store.results(1)] == ["abc123"]


@pytest.mark.parametrize("version", [1, 6])
def test_the_run_columns_are_filled_from_the_options_of_old_runs(tmp_path, version):
    store = Store(old_database(tmp_path / "old.db", version))
    columns = {r["id"]: (r["kind"], r["op_filter"], r["operator_filter"], r["profile_filter"], r["shard"],
                         r["mutant_filter"]) for r in store.db["runs"].rows}
    assert columns == {1: ("run", None, None, None, None, None),
                       2: ("run", None, '["whole_batch"]', None, None, None),
                       3: ("check", None, None, None, None, None),
                       4: ("run", '["take"]', None, None, "1/2", None),
                       5: ("run", None, None, None, None, '["abc123"]')}
    assert store.base_run("rows", "c0ffee").id == 1  # the only whole, unfiltered `teeth run`


def test_a_reading_command_reads_an_older_database_upgraded_and_leaves_the_file_alone(tmp_path):
    path = old_database(tmp_path / "old.db", 6)
    before = path.read_bytes()
    store = Store(path, create=False)
    assert store.base_run("rows", "c0ffee").id == 1
    assert store.kill_rate_history("rows")[0].counts["survived"] == 1
    store.close()
    assert path.read_bytes() == before


def test_a_step_that_fails_leaves_the_database_at_its_old_schema_with_nothing_recorded(tmp_path):
    """Step 7 adds the run columns, then fills them from each run's options: a trigger makes that fill fail."""
    path = old_database(tmp_path / "old.db", 6)
    with sqlite3.connect(path) as conn:
        conn.execute("create trigger on_fire before update on runs begin select raise(abort, 'disk on fire'); end")
    conn.close()
    with pytest.raises(TeethError, match="disk on fire"):
        Store(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("pragma user_version").fetchone()[0] == 6
        assert "kind" not in {row[1] for row in conn.execute("pragma table_info(runs)")}
        assert not conn.execute("select count(*) from sqlite_master where name = '_sqlite_migrations'").fetchone()[0]
        conn.execute("drop trigger on_fire")
    conn.close()
    assert applied(Store(path).db) == STEPS  # the next opening applies it


def test_a_database_with_a_step_this_teeth_does_not_know_is_refused(tmp_path):
    path = tmp_path / "new.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"pragma user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(TeethError, match=f"has schema {SCHEMA_VERSION + 1}, newer than this teeth"):
        Store(path)


def test_the_steps_a_database_had_before_named_migrations_are_recorded_not_run_again(tmp_path):
    """A step that ran would be recorded with the time it ran (and step 1 would find its tables there already): the
    six steps the database went through are recorded as adopted, and only the steps after them ran."""
    path = old_database(tmp_path / "old.db", 6)
    records = MIGRATIONS.applied(Store(path).db)
    assert [r.name for r in records] == STEPS
    adopted = "before named migrations (user_version 6)"
    assert [r.applied_at for r in records[:6]] == [adopted] * 6
    assert adopted not in {r.applied_at for r in records[6:]}


def test_the_failure_and_signal_an_old_outcome_folded_into_its_detail_become_columns(tmp_path):
    path = tmp_path / "old.db"
    version_10_database(path)
    store = Store(path)
    stored = {r["mutant_id"]: (r["status"], r["failure"], r["signal"], r["detail"])
              for r in store.db["outcomes"].rows}
    assert stored == {
        "crash_kill": ("killed", None, 11, "crashed with SIGSEGV"),
        "crashed_child": ("error", "crashed", 6, "crashed with SIGABRT"),
        "no_result": ("error", "no_result", None, "exited with code 3 without a result"),
        "lost": ("error", "lost", None, "its Ray worker died 3 times running it: ActorDiedError"),
        "no_evidence": ("error", "raised", None,
                        "killed by t.py::test_a, which did not pass in the baseline: no evidence"),
        "not_applied": ("error", None, None, "function take not found in rows.py"),  # nothing says it
        "timeout": ("timeout", None, None, VERSION_10_OUTCOMES["timeout"][2]),
        "told_a_signal": ("killed", None, None, "signal 11: a test's own message"),  # a test's words, not a crash
    }
    assert applied(store.db) == STEPS
