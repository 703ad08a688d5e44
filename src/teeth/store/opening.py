"""Opening the database: read-only for reading commands, refusing files that are not teeth's, migrating under a lock."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

import sqlite_utils

from teeth.errors import TeethError

BUSY_TIMEOUT = 60.0  # seconds a connection waits for another writer (two runs creating one database) before failing
TEETH_TABLES = {"runs", "mutants", "outcomes"}


def open_read_only(path: Path) -> sqlite_utils.Database:
    """A connection that cannot write (sqlite `mode=ro`); the file must already be a teeth database."""
    if not path.exists():
        raise TeethError(f"no teeth database at {path} (run `teeth run` first, or pass --db)")
    if path.is_file() and path.stat().st_size == 0:
        raise TeethError(f"{path} is an empty file, not a teeth database; left as it is")
    try:
        db, version, tables = _peek(path, "mode=ro" + ("&immutable=1" if _foreign(path) else ""))
    except sqlite3.OperationalError as exc:
        # A WAL database in a folder this process cannot write (no -shm can be made): with no -wal file
        # there is nothing uncommitted, so reading the file as immutable sees all of it.
        if Path(f"{path}-wal").exists():
            raise TeethError(f"cannot use database {path}: {exc}") from None
        try:
            db, version, tables = _peek(path, "mode=ro&immutable=1")
        except sqlite3.DatabaseError as exc:
            raise TeethError(f"cannot use database {path}: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise TeethError(f"cannot use database {path}: {exc}") from None
    if version == 0:
        what = "an empty SQLite database" if not tables else "not a teeth database (it has no teeth schema)"
        raise TeethError(f"{path} is {what}; left as it is")
    return db


def _foreign(path: Path) -> bool:
    """Would reading create files its owner cannot write? SQLite makes the -wal and -shm of a WAL database on a
    read when they are missing, owned by the reader: another user's (a shared folder), the owner's next write then
    fails "attempt to write a readonly database". With no -wal file nothing is uncommitted (the last writer closed,
    and a writer changes the file itself only when it checkpoints), so the file is read as it is, creating nothing."""
    return not Path(f"{path}-wal").exists() and path.stat().st_uid != os.geteuid()


def require_teeth_tables(db: sqlite_utils.Database, path: Path) -> None:
    if TEETH_TABLES - set(db.table_names()):
        raise TeethError(f"{path} is not a teeth database (it lacks teeth's tables); left as it is")


def _peek(path: Path, options: str) -> tuple[sqlite_utils.Database, int, set[str]]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?{options}", uri=True, timeout=BUSY_TIMEOUT,
                           check_same_thread=False)
    db = sqlite_utils.Database(conn)
    try:
        return db, db.execute("PRAGMA user_version").fetchone()[0], set(db.table_names())
    except sqlite3.DatabaseError:
        conn.close()
        raise


def open_for_writing(path: Path) -> sqlite_utils.Database:
    """A connection that waits for other writers; a SQLite file of another application is refused, untouched."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT, check_same_thread=False)
    db = sqlite_utils.Database(conn)
    version, tables = db.execute(  # one statement, one snapshot: another run may be committing its migration
        "select (select user_version from pragma_user_version), "
        "(select count(*) from sqlite_master where type = 'table' and name not like 'sqlite%')").fetchone()
    if version == 0 and tables:
        conn.close()
        raise TeethError(f"{path} is not a teeth database (it has other tables and no teeth schema); left as it is")
    return db


def make_folder(folder: Path) -> None:
    """Create the database's folder; one teeth creates gets a `.gitignore` of `*` (as pytest's cache does), so that
    a run leaves a user's checkout clean. A folder that exists is left as it is."""
    try:
        folder.mkdir(parents=True)
    except FileExistsError:  # there already (another run may have just made it)
        return
    (folder / ".gitignore").write_text("# made by teeth: its database, badge and applied mutants stay out of git\n*\n")


def disk_full(exc: BaseException) -> bool:
    """Is this SQLite's SQLITE_FULL ("database or disk is full")?"""
    return isinstance(exc, sqlite3.OperationalError) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc))


def retry_while_locked(step, timeout: float = BUSY_TIMEOUT):
    """Run `step` again while SQLite answers "database is locked" without waiting (switching a new database to
    WAL, or two runs creating one database at once, can): for up to `timeout` seconds, then the error stands."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextlib.contextmanager
def write_transaction(db: sqlite_utils.Database):
    """One transaction that holds the write lock from its start (BEGIN IMMEDIATE): a deferred one that reads first
    fails at once with "database is locked" when another connection writes in between, busy timeout or not."""
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.conn.rollback()
        raise
    else:
        db.conn.commit()


@contextlib.contextmanager
def migration_lock(db: sqlite_utils.Database):
    """One migration at a time: the schema version is re-read under the write lock."""
    with write_transaction(db):
        yield db.execute("PRAGMA user_version").fetchone()[0]
