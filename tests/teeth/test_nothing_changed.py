"""A refused `teeth run` changes nothing: `--resume` with nothing to resume and an unknown `--op` are found before the database is opened."""

from __future__ import annotations

from click.testing import CliRunner

from teeth.cli import main
from teeth.store.db import Store


def run(root, db, *args):
    return CliRunner().invoke(main, ["run", "--target", "rows", "--config", str(root / "pyproject.toml"),
                                     "--db", str(db), *args])


def assert_refused(result, *fragments):
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_resume_without_a_database_creates_none(project, tmp_path):
    db = tmp_path / "state" / "teeth.db"
    assert_refused(run(project("weak_suite"), db, "--resume"), "nothing to resume")
    assert not db.parent.exists()


def test_resume_after_a_completed_run_writes_no_mutant_rows(project, tmp_path):
    db = tmp_path / "state" / "teeth.db"
    store = Store(db)
    store.finish_run(store.start_run("rows", ["cpu"], [], {}), "completed", {}, {})
    store.db.conn.close()
    before = db.read_bytes()
    assert_refused(run(project("weak_suite"), db, "--resume"), "nothing to resume", "is completed")
    assert db.read_bytes() == before
    assert Store(db, create=False).db["mutants"].count == 0


def test_an_unknown_op_is_refused_before_the_database_is_created(project, tmp_path):
    db = tmp_path / "state" / "teeth.db"
    assert_refused(run(project("weak_suite"), db, "--op", "nope"), "unknown op 'nope'", "take_rows")
    assert not db.parent.exists()
