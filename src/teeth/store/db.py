"""The store: the one door to SQLite (through sqlite-utils); every write and every query of teeth's database."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import sqlite_utils

from teeth.core import Outcome, Status, counts_sql
from teeth.errors import TeethError
from teeth.store.lines import parse_ranges
from teeth.store.records import (ExecutingTests, KillRate, Matrix, MatrixEntry, Mutant, MutantOutcome, OutcomeFilter,
                           Result, Run, RunStatus, TestRecord, kill_rate_of, matrix_rows, mutant_of, mutant_row,
                           outcome_of, outcome_row, result_of, run_of, run_row, record_of_test, row_of_test)
from teeth.store.opening import (make_folder, migration_lock, open_for_writing, open_read_only,
                                 require_teeth_tables, retry_while_locked, write_transaction)
from teeth.store.schema import SCHEMA_VERSION, run_columns, upgrade

DEFAULT_DB = "db/teeth.db"


# SQL: the run measured every mutant it discovered (not one shard, not chosen mutants).
WHOLE_OPS = "{runs}.shard is null and {runs}.mutant_filter is null"
# SQL: a whole `teeth run`: what reading commands read by default ("latest"); a check run only when named.
WHOLE_TEETH_RUN = "{runs}.kind = 'run' and " + WHOLE_OPS
# SQL: each op it measured, it measured whole under each profile it ran: a point of `teeth history` (an op or profile
# filter leaves the other ops and profiles out; an operator filter or `teeth check` measures part of an op).
WHOLE_OP_RATES = WHOLE_OPS + " and {runs}.kind = 'run' and {runs}.operator_filter is null"
# SQL: the run measured the target whole, as `teeth run` without a filter does: a base for `teeth check`.
WHOLE_RUN = WHOLE_OP_RATES + " and {runs}.op_filter is null and {runs}.profile_filter is null"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def db_path(explicit: str | None) -> Path:
    return Path(explicit or os.environ.get("TEETH_DB") or DEFAULT_DB)


class Store:
    """One writer; every table and query of teeth's database."""

    def __init__(self, path: Path | str, create: bool = True):
        """create=False: a reading command's store, opened read-only; it never creates or migrates."""
        self.path = Path(path)
        if not create:
            self.db = open_read_only(self.path)
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            self._check_version(version)
            require_teeth_tables(self.db, self.path)
            if version < SCHEMA_VERSION:  # read an upgraded copy in memory; the file is left as it is
                self.db = upgraded_copy(self.db, version)
            return
        try:
            make_folder(self.path.parent)
            self.db = open_for_writing(self.path)
            self._migrate()
        except (OSError, sqlite3.OperationalError, sqlite3.DatabaseError) as exc:
            raise TeethError(f"cannot use database {self.path}: {exc}") from None

    def close(self) -> None:
        self.db.conn.close()

    # -- schema ---------------------------------------------------------------
    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise TeethError(f"database {self.path} has schema {version}, newer than this teeth "
                             f"understands ({SCHEMA_VERSION}); upgrade teeth")

    def _migrate(self) -> None:
        self._check_version(self.db.execute("PRAGMA user_version").fetchone()[0])
        retry_while_locked(lambda: self.db.execute("PRAGMA journal_mode=WAL"))
        retry_while_locked(self._migrate_locked)

    def _migrate_locked(self) -> None:
        with migration_lock(self.db) as version:  # re-read under the write lock: another run may have migrated
            self._check_version(version)
            upgrade(self.db, version)

    # -- writes ---------------------------------------------------------------
    def start_run(self, target: str, profiles: list[str], operators: list[str], meta: dict) -> int:
        row = {"target": target, "started_at": now(), "status": RunStatus.RUNNING.value, "profiles": json.dumps(profiles),
               "operators": json.dumps(operators), "commit": meta.get("commit"), "dirty": meta.get("dirty"),
               "versions": json.dumps(meta.get("versions", {})), "options": json.dumps(meta.get("options", {})),
               "pid": os.getpid(), "host": socket.gethostname(), **run_columns(meta.get("options", {}))}
        return self.db["runs"].insert(row).last_pk

    def claim_run(self, run_id: int) -> None:
        """`--resume`: this process now owns the run."""
        self.db["runs"].update(run_id, {"status": RunStatus.RUNNING.value, "pid": os.getpid(), "host": socket.gethostname()})

    def record_protection(self, run_id: int, profile: str, protection: str) -> None:
        """What isolated the tests of one profile's worker, as `{profile: text}`."""
        known = self.run(run_id).protection
        self.db["runs"].update(run_id, {"protection": json.dumps({**known, profile: protection})})

    def record_mutants(self, mutants: Iterable[Mutant]) -> None:
        """Mutants as stored, or as discovered (`teeth.discovery.discover.Mutant` has the same fields, and more)."""
        self.db["mutants"].upsert_all((mutant_row(m) for m in mutants), pk="id")

    def record_outcomes(self, run_id: int, profile: str, outcomes: Iterable[Outcome]) -> None:
        self.db["outcomes"].upsert_all(({"run_id": run_id, **outcome_row(o, profile)} for o in outcomes),
                                       pk=("run_id", "mutant_id", "profile"))

    def record_tests(self, run_id: int, profile: str, tests: dict[str, dict], covers: dict | None = None,
                     test_keys: dict | None = None, profile_key: str | None = None, lines: dict | None = None) -> None:
        """A baseline's tests (`{test: {duration, failure}}` as the worker reports them), with what each covered and
        executed and their keys."""
        self.db["tests"].upsert_all((row_of_test(TestRecord(
            run_id=run_id, profile=profile, test=test, duration=record["duration"], failure=record["failure"] or None,
            covers=covers[test] if covers is not None else None, lines=lines[test] if lines is not None else None,
            test_key=(test_keys or {}).get(test), profile_key=profile_key)) for test, record in tests.items()),
            pk=("run_id", "profile", "test"))

    def record_matrix(self, run_id: int, profile: str, matrices: dict[str, list[list]]) -> None:
        """`--full-matrix`: per mutant, every test it ran as [test, check or None (passed), detail]."""
        matrix = {mutant: {profile: {test: MatrixEntry(check, detail) for test, check, detail in rows}}
                  for mutant, rows in matrices.items()}
        self.db["matrix"].upsert_all(({"run_id": run_id, **row} for row in matrix_rows(matrix)),
                                     pk=("run_id", "mutant_id", "profile", "test"))

    def kill_matrix(self, run_id: int, mutant_id: str | None = None) -> Matrix:
        """A run's full matrix: mutant -> profile -> test -> its verdict (check None: the test passed); empty for a
        run without `--full-matrix`."""
        where, params = "run_id = ?", [run_id]
        if mutant_id is not None:
            where, params = where + " and mutant_id = ?", params + [mutant_id]
        found: dict[str, dict[str, dict[str, MatrixEntry]]] = {}
        if not self.db["matrix"].exists():
            return found
        for r in self.db["matrix"].rows_where(where, params, order_by="mutant_id, profile, test"):
            found.setdefault(r["mutant_id"], {}).setdefault(r["profile"], {})[r["test"]] = MatrixEntry(
                r["check"], r["detail"])
        return found

    def finish_run(self, run_id: int, status: RunStatus, timings: dict, totals: dict, notes: list[str] = ()) -> None:
        """`notes`: what the run found about the suite, shown again by `teeth results`."""
        self.db["runs"].update(run_id, {"status": RunStatus(status).value, "finished_at": now(), "timings": json.dumps(timings),
                                        "totals": json.dumps(totals), "notes": json.dumps(list(notes)) if notes
                                        else None})

    def add_run(self, run: Run, results: list[Result], tests: list[TestRecord], then=None,
                matrix: Matrix | None = None, mutants: bool = True) -> int:
        """A whole run recorded elsewhere (shards being merged, a pushed run): the run (its id is the new row's; its
        kind and filters are read from its options), its results (mutants too, unless `mutants` is False) and
        baseline tests, in one transaction; `then(run_id)` writes more in it. Nothing stays on failure."""
        run_id = None
        try:
            with write_transaction(self.db):
                run_id = self.db["runs"].insert({**run_row(run), **run_columns(run.options)}).last_pk
                if mutants:
                    self.record_mutants({r.mutant.id: r.mutant for r in results}.values())
                by_profile: dict[str, list[Outcome]] = {}
                for r in results:
                    by_profile.setdefault(r.profile, []).append(r.outcome)
                for profile, outcomes in by_profile.items():
                    self.record_outcomes(run_id, profile, outcomes)
                self.db["tests"].upsert_all((row_of_test(replace(t, run_id=run_id)) for t in tests),
                                            pk=("run_id", "profile", "test"))
                if matrix:
                    self.db["matrix"].upsert_all(({**r, "run_id": run_id} for r in matrix_rows(matrix)),
                                                 pk=("run_id", "mutant_id", "profile", "test"))
                if then is not None:
                    then(run_id)
        except BaseException:
            if run_id is not None:  # sqlite-utils before 4 may commit inside the transaction: undo by hand
                self.forget_run(run_id)
            raise
        return run_id

    def forget_run(self, run_id: int) -> None:
        for table in ("outcomes", "tests", "matrix"):
            if self.db[table].exists():
                self.db[table].delete_where("run_id = ?", [run_id])
        self.db["runs"].delete_where("id = ?", [run_id])

    # -- reads ----------------------------------------------------------------
    def run(self, run_id: int) -> Run:
        try:
            return run_of(self.db["runs"].get(run_id))
        except (sqlite_utils.db.NotFoundError, OverflowError):  # OverflowError: past SQLite's 64-bit integers
            raise TeethError(f"no run {run_id} in {self.path}") from None

    def abandoned(self, run: Run | None) -> bool:
        """A run still `running` whose process is gone (it was killed): interrupted, in fact."""
        if run is None or run.status is not RunStatus.RUNNING or not run.pid or run.host != socket.gethostname():
            return False
        try:
            os.kill(run.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    def latest_run(self, target: str | None = None, status: RunStatus | None = None) -> Run | None:
        where, params = [], []
        if target:
            where.append("target = ?"), params.append(target)
        if status:
            where.append("status = ?"), params.append(status)
        rows = list(self.db["runs"].rows_where(" and ".join(where) or None, params, order_by="id desc", limit=1))
        return run_of(rows[0]) if rows else None

    def latest_whole_run(self, target: str | None = None, with_outcomes: bool = False) -> Run | None:
        """The latest whole `teeth run` (of `target`, when given): not a `teeth check`, not one shard, not chosen
        mutants; with_outcomes: only a run that recorded outcomes. What every reading command reads unless told
        `--run ID`."""
        where, params = [WHOLE_TEETH_RUN.format(runs="r")], []
        if target:
            where.append("r.target = ?"), params.append(target)
        if with_outcomes:
            where.append("exists (select 1 from outcomes o where o.run_id = r.id)")
        rows = self.db.query(f"select r.* from runs r where {' and '.join(where)} order by r.id desc limit 1", params)
        return next((run_of(row) for row in rows), None)

    def test_records(self, target: str, profile: str, profile_key: str) -> dict[str, TestRecord]:
        """Each test's newest passing baseline record of `target` under this profile and profile key."""
        sql = """select t.* from tests t join (
                   select t2.test, max(t2.run_id) as run_id from tests t2 join runs r on r.id = t2.run_id
                   where r.target = ? and t2.profile = ? and t2.profile_key = ? and t2.covers is not null
                     and t2.failure is null group by t2.test) newest
                 on t.test = newest.test and t.run_id = newest.run_id and t.profile = ?"""
        return {row["test"]: record_of_test(row) for row in self.db.query(sql, [target, profile, profile_key, profile])}

    def kill_history(self, target: str, profile: str) -> list[tuple[str, str, str, str]]:
        """(mutant, file, function, killing test) of every kill of `target` under `profile`, oldest run first."""
        sql = """select o.mutant_id, m.file, m.function, o.killed_by from outcomes o
                 join mutants m on m.id = o.mutant_id join runs r on r.id = o.run_id
                 where r.target = ? and o.profile = ? and o.status = ? and o.killed_by is not null
                 order by o.run_id"""
        return [tuple(row) for row in self.db.execute(sql, [target, profile, Status.KILLED]).fetchall()]

    def reused_count(self, run_id: int) -> int:
        return self.db["outcomes"].count_where("run_id = ? and reused_from is not null", [run_id])

    def executed_count(self, run_id: int) -> int:
        """Outcomes of a run that a worker decided in it (not reused, not decided without running a test)."""
        ran = [s for s in Status if s.tested and s is not Status.NO_COVERAGE]
        return self.db["outcomes"].count_where(
            f"run_id = ? and reused_from is null and status in ({', '.join('?' * len(ran))})", [run_id, *ran])

    def outcome_counts(self, run_id: int) -> dict[str, int]:
        """How many of a run's outcomes have each status (every status, 0 included): a tally, as `Run.totals` keeps
        it, not a row."""
        row = next(self.db.query(f"select {counts_sql()} from outcomes o where o.run_id = ?", [run_id]))
        return {status.value: row[status] or 0 for status in Status}

    def base_run(self, target: str, commit: str) -> Run | None:
        """The latest completed, clean `teeth run` of the target at `commit` that measured it whole: no `--op`,
        `--operator` or `--profile` filter, not one shard, not chosen mutants (a merged run of shards counts)."""
        rows = self.db.query(
            """select * from runs where target = ? and "commit" = ? and status = 'completed' and coalesce(dirty, 0) = 0
               and """ + WHOLE_RUN.format(runs="runs") + " order by id desc limit 1", [target, commit])
        return next((run_of(r) for r in rows), None)

    def newest_keyed_outcomes(self, profile: str, mutant_ids: list[str]) -> dict[str, MutantOutcome]:
        """The newest outcome with a cache key of each of these mutants under a profile, by mutant id."""
        found: dict[str, MutantOutcome] = {}
        runs: dict[int, Run] = {}
        for start in range(0, len(mutant_ids), 500):
            chunk = mutant_ids[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            sql = f"""select * from outcomes where profile = ? and cache_key is not null and mutant_id in ({marks})
                      order by run_id"""
            for row in self.db.query(sql, [profile, *chunk]):
                run = runs.get(row["run_id"]) or runs.setdefault(row["run_id"], self.run(row["run_id"]))
                found[row["mutant_id"]] = MutantOutcome(run, profile, outcome_of(row))
        return found

    def flaky_tests(self, target: str, profile: str) -> set[str]:
        """The tests any baseline of `target` under `profile` found flaky (failed, then passed on a retry)."""
        sql = """select distinct t.test from tests t join runs r on r.id = t.run_id
                 where r.target = ? and t.profile = ? and t.failure is not null
                 and json_valid(t.failure) and json_extract(t.failure, '$.flaky')"""
        return {row["test"] for row in self.db.query(sql, [target, profile])}

    def tests(self, run_id: int) -> list[TestRecord]:
        """The tests a run's baselines ran, as recorded (what `teeth merge` and `teeth push` copy)."""
        return [record_of_test(r)
                for r in self.db["tests"].rows_where("run_id = ?", [run_id], order_by="profile, test")]

    def done_keys(self, run_id: int) -> set[tuple[str, str]]:
        return {(r["mutant_id"], r["profile"]) for r in self.db["outcomes"].rows_where("run_id = ?", [run_id])}

    def results(self, run_id: int, only: OutcomeFilter = OutcomeFilter()) -> list[Result]:
        """A run's outcomes with their mutants (of the statuses `only` names), by file, line, mutant and profile."""
        statuses = [s.value for s in only.statuses]
        sql = """select m.*, o.* from outcomes o join runs r on r.id = o.run_id
                 join mutants m on m.id = o.mutant_id and m.target = r.target
                 where o.run_id = ?""" + (f" and o.status in ({', '.join('?' * len(statuses))})" if statuses else "") \
            + " order by m.file, m.line, m.id, o.profile"
        return [result_of(row) for row in self.db.query(sql, [run_id, *statuses])]

    def baseline_tests(self, run_id: int) -> list[TestRecord]:
        """The tests a run's baselines ran (profile, test, covers), oldest profile first; for a profile whose
        baseline did not run (every outcome reused), the newest earlier baseline of the same target and profile."""
        run = self.run(run_id)
        found = []
        for profile in run.profiles:
            source = self.db.execute(
                """select max(t.run_id) from tests t join runs r on r.id = t.run_id
                   where r.target = ? and t.profile = ? and t.run_id <= ?""",
                [run.target, profile, run_id]).fetchone()[0]
            found += [record_of_test(row) for row in self.db.query("select * from tests where run_id = ? and "
                                                            "profile = ? order by test", [source, profile])]
        return found

    def kill_rates(self, run_id: int, by: tuple[str, ...] = ("op", "profile")) -> list[KillRate]:
        columns = ", ".join({"op": "m.op", "profile": "o.profile", "check": 'o."check"',
                             "operator": "m.operator"}[b] + f" as {b}" for b in by)
        groups = ", ".join(str(i + 1) for i in range(len(by)))
        sql = f"""select {columns}, {counts_sql()}
                  from outcomes o join runs r on r.id = o.run_id join mutants m on m.id = o.mutant_id
                  and m.target = r.target where o.run_id = ? group by {groups} order by {groups}"""
        return [kill_rate_of(r, by) for r in self.db.query(sql, [run_id])]

    def mutant(self, mutant_id: str) -> Mutant | None:
        matches = list(self.db["mutants"].rows_where("substr(id, 1, ?) = ?", [len(mutant_id), mutant_id],
                                                       limit=2))  # a literal prefix: no LIKE wildcards
        if len(matches) > 1:
            raise TeethError(f"mutant id {mutant_id!r} is ambiguous; give more characters")
        return mutant_of(matches[0]) if matches else None

    def outcomes_of(self, mutant_id: str) -> list[MutantOutcome]:
        """The mutant's outcome in every run that measured it, newest run first."""
        runs: dict[int, Run] = {}
        return [MutantOutcome(runs.get(r["run_id"]) or runs.setdefault(r["run_id"], self.run(r["run_id"])),
                              r["profile"], outcome_of(r))
                for r in self.db.query("select o.* from outcomes o where o.mutant_id = ? "
                                       "order by o.run_id desc, o.profile", [mutant_id])]

    def tests_executing(self, target: str, file: str, lines: range) -> list[ExecutingTests]:
        """Per profile: the newest run of `target` that recorded line coverage, and its passing baseline tests that
        executed any of `lines` of `file` (a display path), by name."""
        newest = self.db.query(
            """select t.profile, max(t.run_id) as run_id from tests t join runs r on r.id = t.run_id
               where r.target = ? and t.lines is not null group by t.profile order by t.profile""", [target])
        found = []
        for row in list(newest):
            tests = [t["test"] for t in self.db.query(
                "select test, lines from tests where run_id = ? and profile = ? and failure is null order by test",
                [row["run_id"], row["profile"]]) if parse_ranges(json.loads(t["lines"]).get(file, "")) & set(lines)]
            found.append(ExecutingTests(row["profile"], row["run_id"], tuple(tests)))
        return found

    def run_targets(self) -> list[str]:
        return [r[0] for r in self.db.execute("select distinct target from runs order by target")]

    def runs_with_outcomes(self, target: str | None = None) -> list[Run]:
        """Every run that recorded outcomes (of `target`, when given), oldest first."""
        sql = "select r.* from runs r where exists (select 1 from outcomes o where o.run_id = r.id)" + \
            (" and r.target = ?" if target else "") + " order by r.id"
        return [run_of(r) for r in self.db.query(sql, [target] if target else [])]

    def kill_rate_history(self, target: str | None = None) -> list[KillRate]:
        """Outcome counts per (run, op, profile) for every run with outcomes of whole ops, oldest run first; each
        with its `run`."""
        sql = f"""select r.id as run_id, m.op, o.profile, {counts_sql()}
                 from outcomes o join runs r on r.id = o.run_id
                 join mutants m on m.id = o.mutant_id and m.target = r.target
                 where """ + WHOLE_OP_RATES.format(runs="r") + (" and r.target = ? " if target else " ") + \
            "group by r.id, m.op, o.profile order by 1, 2, 3"
        runs: dict[int, Run] = {}
        return [kill_rate_of(r, ("op", "profile"), runs.get(r["run_id"]) or runs.setdefault(r["run_id"],
                                                                                            self.run(r["run_id"])))
                for r in self.db.query(sql, [target] if target else [])]


def upgraded_copy(db: sqlite_utils.Database, version: int) -> sqlite_utils.Database:
    """An in-memory copy of an older database, migrated to this teeth's schema: what a reading command reads."""
    memory = sqlite_utils.Database(sqlite3.connect(":memory:", check_same_thread=False))
    db.conn.backup(memory.conn)
    db.conn.close()
    with migration_lock(memory):
        upgrade(memory, version)
    return memory
