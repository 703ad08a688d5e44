"""`teeth serve`'s JSON API in process (Starlette's TestClient): pushes, their refusals, and the queries."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
import warnings
from pathlib import Path

import pytest

from tests.helpers.serve_runs import record_run

from teeth.store.records import OutcomeFilter
from teeth.serve.app import create_app
from teeth.serve.store import ServeStore
from teeth.store.db import SCHEMA_VERSION

with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what teeth push uses
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def two_local_runs(tmp_path):
    """A local database with two runs of `rows`: run 1 with 3 survivors (commit aaa..), run 2 with 1 (bbb..)."""
    db = tmp_path / "local.db"
    record_run(db, survivors=3, commit="a" * 40)
    record_run(db, survivors=1, commit="b" * 40, seed="b")
    store = ServeStore(db, create=False)
    return store, [store.export_run(1), store.export_run(2)]


class Server:
    def __init__(self, db, reads="open", max_body=64 * 2**20):
        self.db = db
        self.client = TestClient(create_app(db, reads, max_body))
        self.token = ServeStore(db).serving().create_token("ci")
        self.auth = {"authorization": f"Bearer {self.token}"}

    def push(self, body, **headers):
        return self.client.post("/api/runs", content=body if isinstance(body, bytes) else json.dumps(body),
                                headers={**self.auth, **headers})

    def count(self, table: str) -> int:
        with sqlite3.connect(self.db) as db:
            return db.execute(f"select count(*) from {table}").fetchone()[0]

    def stored(self) -> tuple[int, int, int]:
        return self.count("runs"), self.count("outcomes"), self.count("tests")


@pytest.fixture
def server(tmp_path):
    return Server(tmp_path / "server.db")


def test_a_pushed_run_is_stored_with_its_mutants_outcomes_and_tests(server, two_local_runs):
    local, (first, _) = two_local_runs
    answer = server.push(first)
    assert answer.status_code == 201, answer.text
    assert answer.json() == {"run": 1, "target": "rows", "stored": True, "mutants": 12, "outcomes": 24}
    assert server.stored() == (1, 24, 2)
    remote = ServeStore(server.db)
    assert remote.kill_rates(1, ("op", "profile", "operator")) == local.kill_rates(1, ("op", "profile", "operator"))
    assert remote.run(1).commit == "a" * 40 and remote.run(1).started_at == local.run(1).started_at


def test_a_pushed_run_keeps_its_notes(server, two_local_runs, tmp_path):
    local, _ = two_local_runs
    audit = "audit (cpu): 3 survived or no_coverage mutant(s) run against the whole suite: 0 disagreement(s)"
    with sqlite3.connect(local.path) as db:
        db.execute("update runs set notes = json_array(?) where id = 1", [audit])
    answer = server.push(local.export_run(1))
    assert answer.status_code == 201, answer.text
    assert list(ServeStore(server.db).run(answer.json()["run"]).notes) == [audit]


def test_pushing_the_same_run_twice_stores_it_once(server, two_local_runs):
    _, (first, second) = two_local_runs
    assert server.push(first).status_code == 201
    again = server.push(first)
    assert again.status_code == 200 and again.json()["stored"] is False and again.json()["run"] == 1
    assert server.stored() == (1, 24, 2)
    assert server.push(second).json()["run"] == 2 and server.stored() == (2, 48, 4)


@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer teeth_wrong"}, {"authorization": "Basic x"}],
                         ids=["missing", "unknown", "not-bearer"])
def test_a_push_without_a_valid_token_is_401_and_stores_nothing(server, two_local_runs, headers):
    _, (first, _) = two_local_runs
    answer = server.client.post("/api/runs", content=json.dumps(first), headers=headers)
    assert answer.status_code == 401 and "token" in answer.json()["error"]
    assert server.stored() == (0, 0, 0)


def _drop_run_target(body):
    del body["run"]["target"]


def _orphan_outcome(body):
    body["outcomes"][0]["mutant_id"] = "not-a-mutant"


def _unknown_status(body):
    body["outcomes"][0]["status"] = "vanished"


def _foreign_mutant(body):
    body["mutants"][0]["target"] = "other"


def _huge_line(body):
    body["mutants"][0]["line"] = 10**30


def _negative_schema(body):
    body["schema"] = -5


def _duration(text):
    def spoil(body):
        body["outcomes"][0]["duration"] = 0.25
        return json.dumps(body).replace('"duration": 0.25', f'"duration": {text}', 1).encode()
    return spoil


def _no_mutants(body):
    body["mutants"], body["outcomes"] = [], []


def _slashed_target(body):
    body["run"]["target"] = "a/b"
    for mutant in body["mutants"]:
        mutant["target"] = "a/b"


@pytest.mark.parametrize("spoil, fragment", [
    (lambda b: b"{not json", "not JSON"),
    (lambda b: b"[1, 2]", "JSON object"),
    (_drop_run_target, "run.target"),
    (_orphan_outcome, "not-a-mutant"),
    (_unknown_status, "outcomes.0.status"),
    (_foreign_mutant, "target"),
    (lambda b: b"[" * 100_000, "nested too deeply"),
    (_huge_line, "mutants.0.line"),
    (_negative_schema, "schema"),
    (_duration("NaN"), "finite"),
    (_duration("Infinity"), "finite"),
    (_duration("1e999"), "finite"),
    (_duration("-1.0"), "outcomes.0.duration"),
    (_no_mutants, "mutants"),
    (_slashed_target, "letters, digits"),
], ids=["not-json", "not-an-object", "no-target", "orphan-outcome", "unknown-status", "foreign-mutant",
        "nested-100000-deep", "line-10**30", "schema--5", "nan-duration", "infinity-duration", "1e999-duration",
        "negative-duration", "no-mutants", "target-a/b"])
def test_a_malformed_run_is_400_with_what_is_wrong_and_stores_nothing(server, two_local_runs, spoil, fragment):
    _, (first, _) = two_local_runs
    body = json.loads(json.dumps(first))
    spoiled = spoil(body)
    answer = server.push(spoiled if spoiled is not None else body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith("malformed run: ") and fragment in answer.json()["error"]
    assert server.stored() == (0, 0, 0)


def test_a_run_larger_than_the_limit_is_413_and_stores_nothing(tmp_path, two_local_runs):
    _, (first, _) = two_local_runs
    small = Server(tmp_path / "small.db", max_body=4096)
    body = json.dumps(first).encode()
    assert len(body) > 4096
    answer = small.push(body)
    assert answer.status_code == 413 and "4096 bytes" in answer.json()["error"]
    chunked = small.client.post("/api/runs", content=iter([body[:3000], body[3000:]]), headers=small.auth)
    assert chunked.status_code == 413  # no Content-Length: the stream is counted
    assert small.stored() == (0, 0, 0)


def test_the_same_run_sent_with_another_schema_number_is_stored_once(server, two_local_runs):
    _, (first, _) = two_local_runs
    assert server.push(first).status_code == 201
    again = server.push({**first, "schema": 1})
    assert again.status_code == 200 and again.json()["run"] == 1 and server.stored() == (1, 24, 2)


def test_a_run_from_a_newer_schema_is_refused_with_one_clear_error(server, two_local_runs):
    _, (first, _) = two_local_runs
    answer = server.push({**first, "schema": SCHEMA_VERSION + 1})
    assert answer.status_code == 409
    assert answer.json()["error"] == (f"the run was recorded with teeth schema {SCHEMA_VERSION + 1}, newer than this "
                                      f"server understands ({SCHEMA_VERSION}); upgrade the server's teeth")
    assert server.stored() == (0, 0, 0)


@pytest.mark.parametrize("atomic", [True, False], ids=["one-transaction", "sqlite-utils-3-without-atomic"])
def test_a_push_that_fails_while_writing_leaves_no_run_behind(server, two_local_runs, monkeypatch, atomic):
    _, (first, _) = two_local_runs
    if not atomic:
        monkeypatch.setattr("teeth.store.db.write_transaction", lambda db: contextlib.nullcontext())

    def broken(self, run_id, profile, outcomes):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ServeStore, "record_outcomes", broken)
    with pytest.raises(RuntimeError):
        server.push(first)
    assert server.stored() == (0, 0, 0) and server.count("pushed_runs") == 0


def test_a_push_waits_for_another_writer_instead_of_failing_with_database_is_locked(server, two_local_runs,
                                                                                    monkeypatch):
    """CI once saw a 500 under concurrent pushes: a deferred transaction that has read (sqlite-utils reads the
    schema when it must) cannot take the write lock while another connection holds it, and SQLite answers
    "database is locked" at once, busy timeout or not. Here, once the push has read, another writer tries to
    take the lock for a second: a push that holds the write lock from its start keeps it out."""
    _, (first, _) = two_local_runs
    other = sqlite3.connect(server.db, isolation_level=None, check_same_thread=False, timeout=0)
    record_outcomes = ServeStore.record_outcomes

    def another_writer_meanwhile(self, *args):
        self.db.execute("select count(*) from runs").fetchone()
        with contextlib.suppress(sqlite3.OperationalError):  # "database is locked": the push holds the lock
            other.execute("BEGIN IMMEDIATE")
            threading.Timer(1.0, lambda: other.execute("COMMIT")).start()
        return record_outcomes(self, *args)

    monkeypatch.setattr(ServeStore, "record_outcomes", another_writer_meanwhile)
    answer = server.push(first)
    assert answer.status_code == 201, answer.text
    assert server.stored() == (1, len(first["outcomes"]), len(first["tests"]))
    other.close()


def test_targets_list_each_target_with_its_latest_run_and_kill_rate(server, two_local_runs):
    _, runs = two_local_runs
    for body in runs:
        server.push(body)
    assert server.client.get("/api/targets").json() == [
        {"target": "rows", "runs": 2, "latest_run": 2, "kill_rate": 23 / 24}]


def test_history_gives_each_runs_commit_time_and_kill_rate_per_op_profile_and_operator(server, two_local_runs):
    local, runs = two_local_runs
    for body in runs:
        server.push(body)
    history = server.client.get("/api/targets/rows/history").json()
    assert [(r["run"], r["commit"]) for r in history["runs"]] == [(1, "a" * 40), (2, "b" * 40)]
    assert history["runs"][0]["started_at"] == local.run(1).started_at
    cells = {(c["op"], c["profile"], c["operator"]): c for c in history["runs"][0]["kill_rates"]}
    assert len(cells) == 2 * 2 * 3  # ops x profiles x operators
    # run 1: mutants 0, 1, 2 survive in cpu; 0 and 2 are take_rows (zero_storage_offset, whole_batch)
    assert cells[("take_rows", "cpu", "zero_storage_offset")]["kill_rate"] == 0.5
    assert cells[("take_rows", "cpu", "whole_batch")]["kill_rate"] == 0.5
    assert cells[("total", "cpu", "wrong_slice_start")]["kill_rate"] == 0.5
    assert cells[("take_rows", "torch_cpu_fp32", "whole_batch")]["kill_rate"] == 1.0
    assert sum(c["survived"] for c in history["runs"][1]["kill_rates"]) == 1


def test_a_runs_survivors_are_its_surviving_mutants_with_diffs(server, two_local_runs):
    local, (first, _) = two_local_runs
    server.push(first)
    survivors = server.client.get("/api/runs/1/survivors").json()
    survived = local.results(1, OutcomeFilter.of("survived"))
    assert sorted(s["mutant_id"] for s in survivors) == sorted(r.mutant.id for r in survived)
    assert all(s["mutant"] == s["mutant_id"] for s in survivors)  # the old key, kept for one release
    assert all(s["status"] == "survived" and s["diff"].startswith("--- a/rows.py") for s in survivors)


def test_a_mutants_history_lists_its_outcome_in_every_run_newest_first(server, two_local_runs, tmp_path):
    _, (first, _) = two_local_runs
    server.push(first)
    db = tmp_path / "later.db"  # the same code, a stronger suite: mutant rows-00000 is killed next time
    record_run(db, survivors=0, commit="c" * 40)
    server.push(ServeStore(db).export_run(1))
    found = server.client.get("/api/mutants/rows-00000").json()
    assert found["op"] == "take_rows" and found["diff"].startswith("--- a/rows.py")
    assert [(o["run_id"], o["profile"], o["status"]) for o in found["outcomes"]] == [
        (2, "cpu", "killed"), (2, "torch_cpu_fp32", "killed"), (1, "cpu", "survived"), (1, "torch_cpu_fp32", "killed")]


@pytest.mark.parametrize("path", ["/api/targets/nope/history", "/api/runs/9", "/api/runs/9/survivors",
                                  "/api/mutants/nope", "/targets/nope", "/runs/9", "/mutants/nope", "/badge/nope.svg"])
def test_unknown_names_are_404(server, path):
    assert server.client.get(path).status_code == 404


def test_token_gated_reads_refuse_queries_pages_and_badges_without_a_token(tmp_path, two_local_runs):
    _, (first, _) = two_local_runs
    gated = Server(tmp_path / "gated.db", reads="token")
    assert gated.push(first).status_code == 201
    for path in ("/api/targets", "/api/targets/rows/history", "/api/runs/1/survivors", "/", "/runs/1",
                 "/badge/rows.svg"):
        assert gated.client.get(path).status_code == 401, path
        assert gated.client.get(path, headers={"authorization": "Bearer teeth_wrong"}).status_code == 401, path
        assert gated.client.get(path, headers=gated.auth).status_code == 200, path
        assert gated.client.get(path, params={"token": gated.token}).status_code == 200, path


def test_open_reads_need_no_token(server, two_local_runs):
    server.push(two_local_runs[1][0])
    assert server.client.get("/api/runs/1").json()["run"]["target"] == "rows"


def test_the_badge_shows_the_targets_latest_kill_rate(server, two_local_runs):
    for body in two_local_runs[1]:
        server.push(body)
    badge = server.client.get("/badge/rows.svg")
    assert badge.headers["content-type"].startswith("image/svg+xml") and ">95.8%<" in badge.text


def test_tokens_are_stored_only_as_digests(server):
    with sqlite3.connect(server.db) as db:
        dumped = "\n".join(db.iterdump())
    assert server.token not in dumped and "ci" in dumped


def test_every_route_is_documented_in_docs_serve(server):
    documented = (Path(__file__).resolve().parents[2] / "docs" / "serve.md").read_text()
    for route in server.client.app.routes:
        path = re.sub(r"\{(\w+)(:\w+)?\}", lambda m: {"name": "NAME"}.get(m.group(1), "ID"), route.path)
        assert f"`{'POST' if 'POST' in route.methods else 'GET'} {path}`" in documented or \
            f"`{path}`" in documented, path
