"""teeth databases as older versions of teeth left them."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def version_1_database(path: Path) -> None:
    """A teeth database as the first schema made it: reading it must not migrate it."""
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            create table runs (id integer primary key, target text, started_at text, finished_at text, status text,
                               "commit" text, dirty integer, profiles text, operators text, versions text,
                               timings text, totals text, options text);
            create table mutants (id text primary key, target text, file text, line integer, end_line integer,
                                  function text, op text, operator text, original text, replacement text,
                                  diff text, skip text);
            create table outcomes (run_id integer, mutant_id text, profile text, status text, killed_by text,
                                   "check" text, duration float, tests_run integer, test_seconds float, detail text,
                                   primary key (run_id, mutant_id, profile));
            create table tests (run_id integer, profile text, test text, duration float, failure text,
                                primary key (run_id, profile, test));
            insert into runs (id, target, started_at, status) values (1, 'rows', '2025-01-01T00:00:00', 'completed');
            insert into mutants (id, target, file, line, end_line, function, op, operator, original, replacement,
                                 diff) values ('abc123', 'rows', 'rows.py', 2, 2, 'take', 'take', 'whole_batch',
                                 'x[1:]', 'x', '');
            insert into outcomes (run_id, mutant_id, profile, status) values (1, 'abc123', 'cpu', 'survived');
            pragma user_version = 1;
        """)
    conn.close()


# Outcomes as teeth's schema 10 stored them: a signal folded into the detail, a worker failure not stored.
VERSION_10_OUTCOMES = {
    "crash_kill": ("killed", "crash", "signal 11: crashed with SIGSEGV"),
    "crashed_child": ("error", None, "signal 6: crashed with SIGABRT"),
    "no_result": ("error", None, "exited with code 3 without a result"),
    "lost": ("error", None, "its Ray worker died 3 times running it: ActorDiedError"),
    "no_evidence": ("error", None, "killed by t.py::test_a, which did not pass in the baseline: no evidence"),
    "not_applied": ("error", None, "function take not found in rows.py"),
    "timeout": ("timeout", None, "no result after 2.0s (running t.py::test_a); its budget was 2.0 s"),
    "told_a_signal": ("killed", "accuracy", "signal 11: a test's own message"),
}


def version_10_database(path: Path) -> None:
    """A teeth database as schema 10 (the last before the outcome's failure and signal columns) made it: teeth's
    first ten named migrations, and one outcome per kind of detail they stored."""
    import sqlite_utils

    from teeth.store.schema import MIGRATIONS, STEPS

    db = sqlite_utils.Database(path)
    MIGRATIONS.apply(db, stop_before=STEPS[10])
    assert db.execute("pragma user_version").fetchone()[0] == 10
    db["runs"].insert({"id": 1, "target": "rows", "status": "completed", "kind": "run", "profiles": '["cpu"]'})
    for mutant, (status, check, detail) in VERSION_10_OUTCOMES.items():
        db["mutants"].insert({"id": mutant, "target": "rows", "file": "rows.py", "line": 2, "end_line": 2,
                              "function": "take", "op": "take", "operator": "whole_batch", "original": "x[1:]",
                              "replacement": "x", "diff": "", "skip": None, "path": "/rows.py"})
        db["outcomes"].insert({"run_id": 1, "mutant_id": mutant, "profile": "cpu", "status": status,
                               "check": check, "detail": detail, "duration": 1.0})
    db.conn.close()
