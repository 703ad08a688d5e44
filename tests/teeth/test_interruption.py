"""A run killed with SIGKILL leaves the tree byte-identical; Ctrl-C records an interrupted run that resumes."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.helpers.cli import results_of
from teeth.errors import EXIT_STORE_FULL


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def start_run(root: Path, db: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "teeth.cli", "run", "--target", "steps", "--jobs", "1",
                             "--db", str(db)], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_outcomes(db: Path, at_least: int, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with sqlite3.connect(db) as conn:
                count = conn.execute("select count(*) from outcomes").fetchone()[0]
            if count >= at_least:
                return count
        except sqlite3.OperationalError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"fewer than {at_least} outcomes after {timeout}s")


def test_sigkill_mid_run_leaves_the_tree_byte_identical(project, tmp_path):
    root = project("slow_suite")
    before = snapshot(root)
    db = tmp_path / "state" / "teeth.db"
    process = start_run(root, db)
    wait_for_outcomes(db, 1)
    process.send_signal(signal.SIGKILL)
    process.wait()
    time.sleep(0.5)  # the worker sees its coordinator gone and stops
    assert snapshot(root) == before


def test_ctrl_c_records_an_interrupted_run_and_resume_finishes_it(project, tmp_path, teeth):
    root = project("slow_suite")
    db = teeth.db
    process = start_run(root, db)
    partial = wait_for_outcomes(db, 2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select status from runs").fetchall() == [("interrupted",)]
        recorded = conn.execute("select count(*) from outcomes").fetchone()[0]
    assert recorded >= partial
    done = teeth("run", "--target", "steps", "--resume", cwd=root)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select id, status from runs").fetchall() == [(1, "completed")]
        mutants = conn.execute("select count(*) from mutants").fetchone()[0]
    rows = results_of(teeth, root)
    assert len(rows) == mutants == len({r["mutant"] for r in rows})


def test_resume_with_nothing_interrupted_is_a_one_line_error(project, teeth):
    root = project("weak_suite")
    teeth("run", "--target", "rows", cwd=root)
    done = teeth("run", "--target", "rows", "--resume", cwd=root)
    assert done.returncode == 2 and "nothing to resume" in done.stderr


def _statuses(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select id, status from runs order by id").fetchall()


def _finished_exactly_once(teeth, root: Path, db: Path) -> None:
    done = teeth("run", "--target", "steps", "--resume", cwd=root)
    assert done.returncode == 0, done.stderr
    assert _statuses(db) == [(1, "completed")]
    with sqlite3.connect(db) as conn:
        mutants = conn.execute("select count(*) from mutants").fetchone()[0]
    rows = results_of(teeth, root)
    assert len(rows) == mutants == len({r["mutant"] for r in rows})


def test_sigterm_is_handled_like_ctrl_c(project, teeth):
    root = project("slow_suite")
    process = start_run(root, teeth.db)
    wait_for_outcomes(teeth.db, 2)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr  # it was 143, with nothing said
    assert stderr.strip().splitlines()[-1].startswith("teeth: interrupted; run 1 recorded as interrupted")
    assert _statuses(teeth.db) == [(1, "interrupted")]
    _finished_exactly_once(teeth, root, teeth.db)


def test_a_run_whose_process_was_killed_resumes_and_is_no_data_point(project, teeth):
    root = project("slow_suite")
    process = start_run(root, teeth.db)
    wait_for_outcomes(teeth.db, 2)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert _statuses(teeth.db) == [(1, "running")]  # nothing could record it: its process is gone
    shown = teeth("history", "--format", "json", "--db", str(teeth.db), cwd=root)
    assert shown.returncode == 0 and json.loads(shown.stdout) == [], shown.stdout  # a partial run is not plotted
    _finished_exactly_once(teeth, root, teeth.db)
    shown = teeth("history", "--format", "json", "--db", str(teeth.db), cwd=root)
    assert {row["run"] for row in json.loads(shown.stdout)} == {1}


def test_a_double_ctrl_c_keeps_every_outcome_received(project, teeth):
    root = project("slow_suite")
    process = start_run(root, teeth.db)
    wait_for_outcomes(teeth.db, 1)
    process.send_signal(signal.SIGINT)
    time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert _statuses(teeth.db) == [(1, "interrupted")]
    _finished_exactly_once(teeth, root, teeth.db)


@pytest.mark.parametrize("where", ["discovery", "recording the mutants"])
def test_ctrl_c_before_the_run_opens_is_one_line_and_records_nothing(project, teeth, monkeypatch, where):
    from click.testing import CliRunner

    import teeth.run.preflight as preflight
    from teeth.cli import main
    from teeth.store.db import Store

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def interrupt():
        if where == "discovery":
            monkeypatch.setattr(preflight, "discover_ops", interrupted)
        else:  # inside the lab, before the run is in the database
            monkeypatch.setattr(Store, "record_mutants", interrupted)

    root = project("weak_suite")
    monkeypatch.chdir(root)
    db = root.parent / "state" / "teeth.db"
    interrupt()
    empty = CliRunner().invoke(main, ["run", "--target", "rows", "--db", str(db)])  # an empty database: a TypeError
    assert empty.exit_code == 130 and len(empty.output.strip().splitlines()) == 1, empty.output
    assert "Traceback" not in empty.output and "interrupted" in empty.output
    monkeypatch.undo()
    monkeypatch.chdir(root)
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    interrupt()
    again = CliRunner().invoke(main, ["run", "--target", "rows", "--db", str(db)])
    assert again.exit_code == 130 and "recorded as interrupted" not in again.output, again.output
    assert _statuses(db) == [(1, "completed")]


FULL_DISK = '''"""teeth, with the database's disk full once the first outcomes are recorded: every later write of outcomes
fails as SQLite fails then (and, with FIXTURE_FULL_FINISH, the run's last update too)."""
import os
import sqlite3
import sys

from teeth.cli import main
from teeth.store.db import Store

recorded, calls = Store.record_outcomes, []


def record_outcomes(self, run_id, profile, outcomes):
    calls.append(len(outcomes))
    if len(calls) > 1:
        raise sqlite3.OperationalError("database or disk is full")
    recorded(self, run_id, profile, outcomes)


def finish_run(self, *args):
    raise sqlite3.OperationalError("database or disk is full")


Store.record_outcomes = record_outcomes
if os.environ.get("FIXTURE_FULL_FINISH"):
    Store.finish_run = finish_run
sys.argv[0] = "teeth"
main()
'''


@pytest.mark.parametrize("finish", ["recorded", "not recorded either"])
def test_a_full_disk_while_recording_is_one_line_keeps_what_was_recorded_and_resumes(project, tmp_path, teeth,
                                                                                     finish):
    root, db = project("slow_suite"), teeth.db
    script = tmp_path / "full_disk.py"
    script.write_text(FULL_DISK)
    env = {**os.environ, **({"FIXTURE_FULL_FINISH": "1"} if finish != "recorded" else {})}
    done = subprocess.run([sys.executable, str(script), "run", "--target", "steps", "--jobs", "1", "--db", str(db)],
                          cwd=root, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == EXIT_STORE_FULL, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and "database or disk is full" in lines[-1], done.stderr
    assert "teeth run --target steps --resume" in lines[-1]
    with sqlite3.connect(db) as conn:
        kept = conn.execute("select mutant_id from outcomes").fetchall()
        total = conn.execute("select count(*) from mutants").fetchone()[0]
    assert 0 < len(kept) < total  # the first outcomes stay; the run did not finish
    # left `interrupted`, or `running` by a process that has exited: either way --resume continues it
    assert _statuses(db) == [(1, "interrupted" if finish == "recorded" else "running")]
    _finished_exactly_once(teeth, root, db)
    with sqlite3.connect(db) as conn:
        assert set(kept) <= set(conn.execute("select mutant_id from outcomes").fetchall())
