"""`--run ID|latest` and `--target`: one resolver for every command that reads a stored run."""

from __future__ import annotations

import pytest

from tests.helpers.cli import assert_one_line_error, teeth_in_process
from teeth.cli.options import resolve_run
from teeth.errors import TeethError
from teeth.store.db import Store

# Every command that takes a run reference, with what it needs besides; {out} is a fresh folder.
READERS = {
    "results": ["results"],
    "report": ["report", "--html", "{out}"],
    "push": ["push", "http://127.0.0.1:9", "--token", "t"],  # refused before anything is sent
}


@pytest.fixture
def store(tmp_path):
    """Runs 1 and 3 of target rows, run 2 of target cols."""
    store = Store(tmp_path / "teeth.db")
    for target in ("rows", "cols", "rows"):
        store.start_run(target, ["cpu"], [], {})
    return store


def test_latest_is_the_newest_whole_run_and_with_a_target_the_newest_of_that_target(store):
    assert resolve_run(store, "latest").id == 3
    assert resolve_run(store, "latest", "cols").id == 2
    assert resolve_run(store, "2").target == "cols"


@pytest.mark.parametrize("args, fragment", [
    (["--run", "last"], "--run takes a run id or 'latest', not 'last'"),
    (["--run", "7"], "no run 7 in"),
])
@pytest.mark.parametrize("command", READERS)
def test_a_bad_run_reference_is_the_same_one_line_error_in_every_command(store, tmp_path, command, args, fragment):
    line = [a.format(out=tmp_path / "out") for a in READERS[command]]
    assert_one_line_error(teeth_in_process(*line, *args, "--db", store.path, cwd=tmp_path), fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["results", "report"])
def test_latest_of_a_target_without_runs_names_the_target(store, tmp_path, command):
    line = [a.format(out=tmp_path / "out") for a in READERS[command]]
    assert_one_line_error(teeth_in_process(*line, "--target", "nope", "--db", store.path, cwd=tmp_path),
                          "no whole `teeth run` of target 'nope' in")


def test_latest_of_an_empty_database_is_one_line(tmp_path):
    empty = Store(tmp_path / "teeth.db")
    with pytest.raises(TeethError, match="^no whole `teeth run` in "):
        resolve_run(empty, "latest")
    assert_one_line_error(teeth_in_process("results", "--db", empty.path, cwd=tmp_path), "no whole `teeth run` in")
