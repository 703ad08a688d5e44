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
