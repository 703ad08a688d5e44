"""`teeth run --shard k/n` and `teeth merge`: a sharded run merged is the unsharded run; mismatched shards refused."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import teeth_in_process

from teeth.config.targets import load_config
from teeth.errors import EXIT_SHARDS_REFUSED, EXIT_USAGE
from teeth.run.shards import Shard

N = 3


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "teeth.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def statuses(db: Path, run: int | None = None) -> dict[tuple[str, str], str]:
    with sqlite3.connect(db) as conn:
        run = run or conn.execute("select max(id) from runs").fetchone()[0]
        return {(m, p): s for m, p, s in conn.execute(
            "select mutant_id, profile, status from outcomes where run_id = ?", [run])}


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """weak_suite run once unsharded and once as shards 1/3, 2/3, 3/3, each shard in its own database."""
    base = tmp_path_factory.mktemp("shards")
    root = base / "weak_suite"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "weak_suite", root,
                    ignore=shutil.ignore_patterns("__pycache__"))
    whole = base / "whole.db"
    done = cli("run", "--target", "rows", "--db", str(whole), cwd=root)
    assert done.returncode == 0, done.stderr
    parts = []
    for k in range(1, N + 1):
        parts.append(base / f"shard{k}.db")
        done = cli("run", "--target", "rows", "--shard", f"{k}/{N}", "--db", str(parts[-1]), cwd=root)
        assert done.returncode == 0, done.stderr
        parts[-1].with_suffix(".said").write_text(done.stderr)
    return root, whole, parts


def test_a_sharded_run_merged_has_the_status_of_the_unsharded_run_for_every_mutant(shards, tmp_path):
    root, whole, parts = shards
    pieces = [set(statuses(p)) for p in parts]
    assert all(pieces) and sum(map(len, pieces)) == len(set().union(*pieces))  # every shard measured, disjoint
    into = tmp_path / "merged.db"
    done = cli("merge", *map(str, parts), "--into", str(into), cwd=root)
    assert done.returncode == 0, done.stderr
    assert statuses(into) == statuses(whole)
    with sqlite3.connect(into) as conn:
        run = conn.execute("select status, totals, options from runs").fetchone()
        (covered,) = conn.execute("select count(*) from tests where lines is not null").fetchone()
    assert run[0] == "completed" and covered > 0
    assert [m["shard"] for m in json.loads(run[2])["merged"]] == ["1/3", "2/3", "3/3"]
    totals = json.loads(run[1])
    assert totals["killed"] + totals["survived"] == len(statuses(whole))
    results = cli("results", "--db", str(into), "--format", "json", cwd=root)
    assert len(json.loads(results.stdout)) == len(statuses(whole))


def test_a_shard_is_no_kill_rate_data_point_and_the_merged_run_is(shards, tmp_path):
    root, _, parts = shards
    into = tmp_path / "merged.db"
    assert cli("merge", *map(str, parts), "--into", str(into), cwd=root).returncode == 0
    one_shard = json.loads(cli("history", "--db", str(parts[0]), "--format", "json", cwd=root).stdout)
    merged = json.loads(cli("history", "--db", str(into), "--format", "json", cwd=root).stdout)
    assert one_shard == [] and {row["run"] for row in merged} == {1}


def test_a_shard_run_says_which_shard_and_counts_only_its_own_mutants(shards):
    root, whole, parts = shards
    for k, part in enumerate(parts, start=1):
        said = " ".join(part.with_suffix(".said").read_text().split())
        assert f"shard {k}/{N}: {len(statuses(part))} of the target's {len(statuses(whole))} mutants" in said, said
        assert "not made" not in said, said  # what discovery did not make belongs to the whole target


def test_shards_hold_each_mutant_exactly_once_whatever_the_order():
    ids = [f"{i:012x}" for i in range(200)]
    owners = [[k for k in range(1, N + 1) if Shard(k, N).holds(i)] for i in ids]
    assert all(len(o) == 1 for o in owners)
    assert {o[0] for o in owners} == set(range(1, N + 1))


@pytest.mark.parametrize("text", ["0/3", "4/3", "x", "1/0", "-1/2"])
def test_a_shard_that_does_not_exist_is_bad_input(shards, text, tmp_path):
    root, _, _ = shards  # bad input starts no worker: in process
    done = teeth_in_process("run", "--target", "rows", "--shard", text, "--db", tmp_path / "t.db", cwd=root)
    assert done.exit_code == EXIT_USAGE and "--shard" in done.stderr and "Traceback" not in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit), repr(done.exception)
    assert not (tmp_path / "t.db").exists()


def _altered(path: Path, tmp_path: Path, sql: str) -> Path:
    copy = tmp_path / f"altered-{path.name}"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute(sql)
    return copy


@pytest.mark.parametrize(("sql", "says"), [
    ("update runs set target = 'other'", "different targets"),
    ("update runs set \"commit\" = 'abc123'", "different commits"),
    ("update runs set options = json_set(options, '$.config', 'another')", "different configs"),
    ("update runs set status = 'interrupted'", "not completed"),
])
def test_merge_refuses_shards_of_different_targets_commits_or_configs(shards, tmp_path, sql, says):
    root, _, parts = shards
    into = tmp_path / "merged.db"
    done = cli("merge", str(parts[0]), str(_altered(parts[1], tmp_path, sql)), str(parts[2]), "--into", str(into),
               cwd=root)
    assert done.returncode == EXIT_SHARDS_REFUSED, done.stderr
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1 and not into.exists()


def test_the_merged_run_keeps_the_notes_of_every_shard_once(shards, tmp_path):
    root, _, parts = shards
    audit = "audit (cpu): 3 survived or no_coverage mutant(s) run against the whole suite: 0 disagreement(s)"
    noted = [_altered(part, tmp_path, f"update runs set notes = json_array('{audit}', 'shard {k} of 3')")
             for k, part in enumerate(parts, 1)]
    into = tmp_path / "merged.db"
    done = cli("merge", *map(str, noted), "--into", str(into), cwd=root)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(into) as conn:
        (notes,) = conn.execute("select notes from runs").fetchone()
    assert json.loads(notes) == [audit, "shard 1 of 3", "shard 2 of 3", "shard 3 of 3"]
    assert audit in cli("results", "--db", str(into), cwd=root).stdout  # shown again, as for a run of one piece


def test_merge_refuses_overlapping_and_missing_shards(shards, tmp_path):
    root, _, parts = shards
    into = tmp_path / "merged.db"
    twice = tmp_path / "again.db"
    shutil.copy(parts[0], twice)
    done = cli("merge", *map(str, parts), str(twice), "--into", str(into), cwd=root)
    assert done.returncode == EXIT_SHARDS_REFUSED and "overlapping" in done.stderr
    done = cli("merge", str(parts[0]), str(parts[2]), "--into", str(into), cwd=root)
    assert done.returncode == EXIT_SHARDS_REFUSED and "2/3 missing" in done.stderr
    assert not into.exists()


def test_the_config_digest_changes_with_what_decides_outcomes(shards, tmp_path):
    root, _, parts = shards
    with sqlite3.connect(parts[0]) as conn:
        (options,) = conn.execute("select options from runs").fetchone()
    digest = load_config(None, root).target("rows").digest()
    assert json.loads(options)["config"] == digest
    pyproject = root.parent / "changed" / "pyproject.toml"
    shutil.copytree(root, pyproject.parent, ignore=shutil.ignore_patterns("__pycache__"))
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]', 'tests = ["tests"]\ntimeout_floor = 9.0'))
    assert load_config(None, pyproject.parent).target("rows").digest() != digest


def test_merge_refuses_a_shard_as_the_database_it_writes_into_by_any_name(shards, tmp_path):
    root, _, parts = shards
    copies = [tmp_path / p.name for p in parts]
    for part, copy in zip(parts, copies):
        shutil.copy(part, copy)
    (tmp_path / "linked.db").hardlink_to(copies[2])
    before = [c.read_bytes() for c in copies]
    for into in (copies[0], tmp_path / "sub" / ".." / copies[1].name, tmp_path / "linked.db"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        done = cli("merge", *map(str, copies), "--into", str(into), cwd=root)
        assert done.returncode == EXIT_SHARDS_REFUSED, done.stderr
        assert f"--into {into} is the shard" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert [c.read_bytes() for c in copies] == before  # no run with 0 outcomes added to a shard


def test_a_full_disk_while_merging_is_one_line_and_leaves_no_run(shards, tmp_path, monkeypatch):
    import sqlite3 as sqlite

    from tests.helpers.cli import assert_one_line_error, teeth_in_process
    from teeth.errors import EXIT_STORE_FULL
    from teeth.store.db import Store

    root, _, parts = shards
    into = tmp_path / "merged.db"
    written = Store.record_outcomes

    def full(self, run_id, profile, outcomes):  # the runs row is in; its outcomes find the disk full
        written(self, run_id, profile, list(outcomes)[:1])
        raise sqlite.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "record_outcomes", full)
    result = teeth_in_process("merge", *parts, "--into", into, cwd=root)
    assert_one_line_error(result, "database or disk is full", code=EXIT_STORE_FULL)
    with sqlite.connect(into) as conn:
        assert conn.execute("select count(*) from runs").fetchone() == (0,)
        assert conn.execute("select count(*) from outcomes").fetchone() == (0,)
