"""`teeth serve token create`, `teeth serve` and `teeth push` as commands, against a live server on loopback."""

from __future__ import annotations

import socket
import sqlite3

import httpx
import pytest

from tests.helpers.cli import assert_one_line_error, teeth_cli, teeth_in_process
from tests.helpers.serve_runs import live_server, record_run


@pytest.fixture
def local_runs(tmp_path):
    """A local database with two recorded runs of `rows`."""
    db = tmp_path / "local" / "teeth.db"
    db.parent.mkdir()
    record_run(db, survivors=3)
    record_run(db, survivors=1, seed="b", commit="b" * 40)
    return db


@pytest.fixture
def served(tmp_path):
    """A running `teeth serve` with one push token; yields (url, token, server database)."""
    db = tmp_path / "server" / "teeth.db"
    done = teeth_cli("serve", "token", "create", "ci", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with live_server(db) as url:
        yield url, done.stdout.strip(), db


def test_token_create_prints_a_token_once_and_stores_only_its_digest(tmp_path):
    db = tmp_path / "teeth.db"
    done = teeth_cli("serve", "token", "create", "ci", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert token.startswith("teeth_") and len(token) > 40
    with sqlite3.connect(db) as conn:
        assert token not in "\n".join(conn.iterdump())
        assert conn.execute("select name from serve_tokens").fetchall() == [("ci",)]


def test_a_second_token_of_the_same_name_is_a_one_line_error(tmp_path):
    db = tmp_path / "teeth.db"
    assert teeth_cli("serve", "token", "create", "ci", "--db", str(db), cwd=tmp_path).returncode == 0
    assert_one_line_error(teeth_in_process("serve", "token", "create", "ci", "--db", db, cwd=tmp_path),
                          "a token named 'ci' already exists")


def test_push_sends_the_latest_run_and_pushing_it_again_stores_it_once(served, local_runs, tmp_path):
    url, token, server_db = served
    first = teeth_cli("push", url, "--token", token, "--db", str(local_runs), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"run 2 of rows stored as run 1 on {url} (12 mutants, 24 outcomes)"
    again = teeth_cli("push", url, "--token", token, "--db", str(local_runs), cwd=tmp_path)
    assert again.returncode == 0 and "already stored as run 1" in again.stdout
    older = teeth_cli("push", url, "--token", token, "--db", str(local_runs), "--run", "1", cwd=tmp_path)
    assert older.returncode == 0 and "run 1 of rows stored as run 2" in older.stdout
    history = httpx.get(f"{url}/api/targets/rows/history").json()
    assert [r["commit"][:1] for r in history["runs"]] == ["b", "a"]


def test_push_with_a_wrong_token_exits_5_with_the_servers_reason(served, local_runs, tmp_path):
    url, _, server_db = served
    done = teeth_cli("push", url, "--token", "teeth_wrong", "--db", str(local_runs), cwd=tmp_path)
    assert done.returncode == 5 and len(done.stderr.strip().splitlines()) == 1
    assert "(HTTP 401): a valid push token is required" in done.stderr
    with sqlite3.connect(server_db) as conn:
        assert conn.execute("select count(*) from runs").fetchone() == (0,)


def test_push_to_a_server_that_is_not_there_exits_5(local_runs, tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connection refused
        done = teeth_cli("push", f"http://127.0.0.1:{port}", "--token", "t", "--db", str(local_runs), cwd=tmp_path)
    assert done.returncode == 5 and len(done.stderr.strip().splitlines()) == 1
    assert "cannot reach" in done.stderr


def test_push_of_a_missing_database_or_run_is_a_one_line_error(tmp_path, local_runs):
    assert_one_line_error(teeth_in_process("push", "http://127.0.0.1:9", "--token", "t", "--db", tmp_path / "no.db",
                                           cwd=tmp_path), "no teeth database")
    assert_one_line_error(teeth_in_process("push", "http://127.0.0.1:9", "--token", "t", "--db", local_runs,
                                           "--run", "7", cwd=tmp_path), "no run 7")
    assert not (tmp_path / "no.db").exists()


def test_serve_on_a_port_in_use_is_a_one_line_error_and_creates_no_database(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        done = teeth_in_process("serve", "--db", tmp_path / "teeth.db", "--port", port, cwd=tmp_path)
    assert_one_line_error(done, f"cannot listen on 127.0.0.1:{port}")
    assert not (tmp_path / "teeth.db").exists()


def test_serve_on_a_host_that_cannot_be_bound_is_a_one_line_error_and_creates_no_database(tmp_path):
    done = teeth_in_process("serve", "--db", tmp_path / "teeth.db", "--host", "no-such-host.invalid", cwd=tmp_path)
    assert_one_line_error(done, "cannot listen on no-such-host.invalid:8787")
    assert not (tmp_path / "teeth.db").exists()


@pytest.mark.parametrize("token", ["tökén", "teeth_abc\nX-Evil: 1", "teeth abc", ""], ids=["non-ascii", "newline",
                                                                                          "space", "empty"])
def test_push_with_a_token_that_is_not_printable_ascii_is_one_line_and_sends_nothing(local_runs, tmp_path, token):
    done = teeth_in_process("push", "http://127.0.0.1:9", "--token", token, "--db", local_runs, cwd=tmp_path)
    assert_one_line_error(done, "--token must be printable ASCII")
    assert "cannot reach" not in done.output


def test_reads_are_token_gated_when_the_environment_says_so(tmp_path, monkeypatch):
    db = tmp_path / "teeth.db"
    token = teeth_cli("serve", "token", "create", "ci", "--db", str(db), cwd=tmp_path).stdout.strip()
    monkeypatch.setenv("TEETH_SERVE_READS", "token")
    with live_server(db) as url:
        assert httpx.get(f"{url}/api/targets").status_code == 401
        assert httpx.get(f"{url}/api/targets", headers={"authorization": f"Bearer {token}"}).json() == []
