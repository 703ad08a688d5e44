"""Reading commands open the database read-only and never create or migrate; other files are refused untouched; creation is safe under concurrency."""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from teeth.cli import main
from teeth.store.db import Store
from tests.helpers.databases import version_1_database

READS = {
    "results": ["results"],
    "show": ["show", "abc"],
    "history": ["history"],
    "report": ["report", "--html", "REPORT"],
}


def read(command: str, db: Path, tmp_path: Path):
    args = [str(tmp_path / "html") if a == "REPORT" else a for a in READS[command]]
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def assert_refused(result, *fragments):
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("command", sorted(READS))
def test_another_applications_sqlite_file_is_refused_and_left_byte_identical(tmp_path, command):
    db = tmp_path / "app" / "other.db"
    db.parent.mkdir()
    with sqlite3.connect(db) as conn:
        conn.execute("create table notes (id integer primary key, body text)")
        conn.execute("insert into notes (body) values ('mine')")
    conn.close()
    before = files_of(db.parent)
    assert_refused(read(command, db, tmp_path), "not a teeth database", str(db))
    assert files_of(db.parent) == before
    assert not (tmp_path / "html").exists()


@pytest.mark.parametrize("command", sorted(READS))
def test_an_empty_file_is_refused_and_stays_empty(tmp_path, command):
    db = tmp_path / "empty.db"
    db.touch()
    assert_refused(read(command, db, tmp_path), "empty file, not a teeth database")
    assert db.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_run_refuses_another_applications_sqlite_file(tmp_path, project):
    root = project("weak_suite")
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("create table notes (id integer primary key, body text)")
    conn.close()
    before = db.read_bytes()
    result = CliRunner().invoke(main, ["run", "--target", "rows", "--config", str(root / "pyproject.toml"),
                                       "--db", str(db)])
    assert_refused(result, "not a teeth database")
    assert db.read_bytes() == before


@pytest.mark.parametrize("command", ["results", "show", "history"])
def test_reading_an_older_teeth_database_never_migrates_it(tmp_path, command):
    db = tmp_path / "old.db"
    version_1_database(db)
    before = db.read_bytes()
    result = read(command, db, tmp_path)
    assert result.exit_code == 0, (result.output, result.exception)
    assert db.read_bytes() == before
    with sqlite3.connect(db) as conn:
        assert conn.execute("pragma user_version").fetchone()[0] == 1
        assert conn.execute("pragma journal_mode").fetchone()[0] == "delete"
    conn.close()


def read_only_mount_works(folder: Path) -> bool:
    quoted = shlex.quote(str(folder))
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind {quoted} {quoted} && "
                            f"mount -o remount,bind,ro {quoted}"], capture_output=True)
    return probe.returncode == 0


def test_a_database_on_a_read_only_file_system_can_be_read(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    store = Store(folder / "teeth.db")
    store.finish_run(store.start_run("rows", ["cpu"], [], {}), "completed", {}, {})
    store.db.conn.close()
    if shutil.which("unshare") is None or not read_only_mount_works(folder):
        pytest.skip("needs unshare and user namespaces to mount a folder read-only")
    quoted = shlex.quote(str(folder))
    script = (f"mount --bind {quoted} {quoted} && mount -o remount,bind,ro {quoted} && exec "
              f"{shlex.quote(sys.executable)} -m teeth.cli results --run 1 --format json --db {quoted}/teeth.db")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


OWNER, READER = 4242, 4343  # two users without a login: a database in a folder both may write


def as_user(uid: int, step) -> str:
    """`step()` in a forked child running as `uid`; what it returns (a line), or the error it raised."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(uid)
            os.setuid(uid)
            said = str(step())
        except BaseException as exc:  # noqa: BLE001 - the parent asserts on what happened
            said = f"{type(exc).__name__}: {exc}"
        os.write(write_fd, said.encode()[:4000])
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        said = pipe.read().decode()
    os.waitpid(pid, 0)
    return said


def record_a_run(db: Path) -> str:
    store = Store(db)
    store.finish_run(store.start_run("rows", ["cpu"], [], {}), "completed", {}, {})
    store.close()
    return "recorded"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to act as two users")
@pytest.mark.parametrize("command", sorted(READS))
def test_a_read_by_another_user_leaves_nothing_that_stops_the_owners_next_write(command, tmp_path):
    record_a_run(tmp_path / "warm.db")
    read(command, tmp_path / "warm.db", tmp_path)  # imports what the command imports: the users cannot reach them
    with tempfile.TemporaryDirectory() as shared:  # under /tmp: a folder both users reach
        folder = Path(shared)
        folder.chmod(0o1777)
        db = folder / "teeth.db"
        assert as_user(OWNER, lambda: record_a_run(db)) == "recorded"
        read_back = as_user(READER, lambda: (lambda r: f"{r.exit_code} {r.output} {r.exception!r}")(
            read(command, db, folder / "reader")))
        assert read_back.split()[0] in {"0", "2"}, read_back  # `show abc`: no such mutant, one line
        strangers = {p.name: p.stat().st_uid for p in folder.iterdir() if p.stat().st_uid != OWNER}
        assert set(strangers) <= {"reader"}, strangers  # no -wal, no -shm of the reader's
        assert as_user(OWNER, lambda: record_a_run(db)) == "recorded"


RACER = """
import sys
from types import SimpleNamespace as Mutant
from teeth.store.db import Store
store = Store(sys.argv[1])
run = store.start_run("t", [], [], {})
store.record_mutants([Mutant(id=f"{sys.argv[2]}-{i}", target="t", file="f.py", line=i, end_line=i, function="f",
                             op="f", operator="x", original="a", replacement="b", diff="", skip=None)
                      for i in range(200)])
store.finish_run(run, "completed", {}, {})
"""


def test_runs_creating_the_same_new_database_at_once_all_succeed(tmp_path):
    for attempt in range(4):
        db = tmp_path / f"try{attempt}" / "teeth.db"
        racers = [subprocess.Popen([sys.executable, "-c", RACER, str(db), str(k)], stderr=subprocess.PIPE, text=True)
                  for k in range(3)]
        failures = [err for racer in racers if (err := racer.communicate(timeout=120)[1]) and racer.returncode]
        assert not failures, failures
        with sqlite3.connect(db) as conn:
            assert conn.execute("select count(*) from runs").fetchone()[0] == 3
        conn.close()


def test_a_step_that_sqlite_refuses_at_once_as_locked_is_retried_until_it_passes_or_time_runs_out():
    from teeth.store.opening import retry_while_locked

    answers = [sqlite3.OperationalError("database is locked")] * 2 + ["done"]

    def step():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert retry_while_locked(step) == "done" and answers == []
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        retry_while_locked(lambda: (_ for _ in ()).throw(sqlite3.OperationalError("database is locked")), timeout=0.2)
    calls = []
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry_while_locked(lambda: calls.append(1) or (_ for _ in ()).throw(sqlite3.OperationalError("no such table")))
    assert calls == [1]  # any other error is not retried
