"""What a push token may do on `teeth serve`: a push only adds, mutant ids are scoped by target, a token may be
limited to targets, and a revoked token is refused."""

from __future__ import annotations

import json
import sqlite3
import warnings

import pytest
import sqlite_utils
from sqlite_utils.migrations import Migrations

from tests.helpers.cli import assert_one_line_error, teeth_in_process
from tests.helpers.serve_runs import record_run

from teeth.serve.app import create_app
from teeth.serve.store import ServeStore, m001_tokens_and_pushes
from teeth.serve.tokens import token_digest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def runs_of_a_and_b(tmp_path):
    """A run of target `a`, and a run of target `b` whose mutants carry a's ids with b's own diffs (what a pusher of
    `b` can send, by accident or not)."""
    db = tmp_path / "local.db"
    record_run(db, target="a", survivors=3)
    store = ServeStore(db, create=False)
    of_a = store.export_run(1)
    of_b = json.loads(json.dumps(of_a))
    of_b["run"]["target"] = "b"
    for mutant in of_b["mutants"]:
        mutant["target"] = "b"
        mutant["diff"] = mutant["diff"].replace("x[0:]", "B_WAS_HERE")
    of_b["run"]["commit"] = "c" * 40
    return of_a, of_b


def _server(db, **tokens):
    client = TestClient(create_app(db))
    store = ServeStore(db).serving()
    made = {name: {"authorization": f"Bearer {store.create_token(name, tuple(targets))}"}
            for name, targets in tokens.items()}
    return client, made


def test_a_push_of_another_target_with_the_same_mutant_ids_leaves_the_first_targets_mutants_alone(
        tmp_path, runs_of_a_and_b):
    of_a, of_b = runs_of_a_and_b
    client, auth = _server(tmp_path / "server.db", ci=())
    assert client.post("/api/runs", json=of_a, headers=auth["ci"]).status_code == 201
    assert client.post("/api/runs", json=of_b, headers=auth["ci"]).status_code == 201
    some_id = of_a["mutants"][0]["id"]
    a_mutant = client.get(f"/api/targets/a/mutants/{some_id}").json()
    assert a_mutant["target"] == "a" and "B_WAS_HERE" not in a_mutant["diff"]
    assert [o["run_id"] for o in a_mutant["outcomes"]] == [1, 1]  # b's outcomes are b's mutant's
    b_mutant = client.get(f"/api/targets/b/mutants/{some_id}").json()
    assert b_mutant["target"] == "b" and "B_WAS_HERE" in b_mutant["diff"]
    assert all("B_WAS_HERE" not in s["diff"] for s in client.get("/api/runs/1/survivors").json())
    assert "B_WAS_HERE" not in client.get("/runs/1").text
    assert len(client.get("/api/runs/1/survivors").json()) == 3  # each survivor once, not once per target
    ambiguous = client.get(f"/api/mutants/{some_id}")
    assert ambiguous.status_code == 409 and "a, b" in ambiguous.json()["error"]
    rates = client.get("/api/targets/a/history").json()["runs"][0]["kill_rates"]
    assert sum(c["survived"] + c["killed"] for c in rates) == len(of_a["outcomes"])


def test_a_push_of_the_same_target_never_rewrites_a_stored_mutant(tmp_path, runs_of_a_and_b):
    of_a, _ = runs_of_a_and_b
    client, auth = _server(tmp_path / "server.db", ci=())
    assert client.post("/api/runs", json=of_a, headers=auth["ci"]).status_code == 201
    rewritten = json.loads(json.dumps(of_a))
    rewritten["run"]["commit"] = "d" * 40
    rewritten["mutants"][0]["diff"] = "REWRITTEN"
    assert client.post("/api/runs", json=rewritten, headers=auth["ci"]).status_code == 201
    assert client.get(f"/api/mutants/{of_a['mutants'][0]['id']}").json()["diff"] == of_a["mutants"][0]["diff"]


def test_a_token_scoped_to_a_target_cannot_push_another_and_is_told_why(tmp_path, runs_of_a_and_b):
    of_a, of_b = runs_of_a_and_b
    client, auth = _server(tmp_path / "server.db", only_b=("b",))
    refused = client.post("/api/runs", json=of_a, headers=auth["only_b"])
    assert refused.status_code == 403
    assert refused.json()["error"] == "token 'only_b' may push runs of b only, not of target 'a'; nothing stored"
    assert client.get("/api/targets").json() == []
    assert client.post("/api/runs", json=of_b, headers=auth["only_b"]).status_code == 201


def test_a_revoked_token_pushes_and_reads_nothing(tmp_path, runs_of_a_and_b):
    of_a, _ = runs_of_a_and_b
    db = tmp_path / "server.db"
    made = teeth_in_process("serve", "token", "create", "ci", "--target", "a", "--db", db, cwd=tmp_path)
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    client = TestClient(create_app(db, reads="token"))
    auth = {"authorization": f"Bearer {token}"}
    assert client.get("/api/targets", headers=auth).status_code == 200
    assert teeth_in_process("serve", "token", "revoke", "ci", "--db", db, cwd=tmp_path).exit_code == 0
    assert client.post("/api/runs", json=of_a, headers=auth).status_code == 401
    assert client.get("/api/targets", headers=auth).status_code == 401
    assert_one_line_error(teeth_in_process("serve", "token", "revoke", "nobody", "--db", db, cwd=tmp_path),
                          "no token named 'nobody'")


def test_a_database_served_before_scoped_ids_keeps_its_runs_and_tokens_when_migrated(tmp_path, runs_of_a_and_b):
    db = tmp_path / "old.db"
    record_run(db, target="a", survivors=3)
    old = Migrations("teeth-serve")
    old()(m001_tokens_and_pushes)
    old.apply(sqlite_utils.Database(db))
    before = ServeStore(db).kill_rates(1, ("op", "profile", "operator"))
    with sqlite3.connect(db) as raw:
        raw.execute("insert into serve_tokens (name, digest, created_at) values ('old', ?, 'then')",
                    [token_digest("teeth_old")])
    migrated = ServeStore(db).serving()
    assert migrated.db["mutants"].pks == ["target", "id"]
    assert migrated.kill_rates(1, ("op", "profile", "operator")) == before
    assert migrated.token("teeth_old").name == "old"
    of_a, of_b = runs_of_a_and_b
    client = TestClient(create_app(db))
    assert client.post("/api/runs", json=of_b, headers={"authorization": "Bearer teeth_old"}).status_code == 201
    assert "B_WAS_HERE" not in client.get(f"/api/targets/a/mutants/{of_a['mutants'][0]['id']}").json()["diff"]
