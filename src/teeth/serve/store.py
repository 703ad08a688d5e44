"""The service's store: teeth's Store plus push tokens, pushed-run digests, and the queries the API serves."""

from __future__ import annotations

import json
import threading

from sqlite_utils.migrations import Migrations

from teeth.core import COUNTED, SURVIVING, Status, counts_sql, kill_rate
from teeth.errors import TeethError
from teeth.store.records import OutcomeFilter, Result, Run, mutant_row
from teeth.serve.payload import PushedRun, check_target_name, push_body, pushed_records
from teeth.serve.tokens import Token, new_token, same_digest, token_digest
from teeth.store.db import Store, now
from teeth.store.opening import write_transaction

COUNTS_SQL = counts_sql()

WRITE_LOCK = threading.Lock()  # one writer per process: pushes are stored one at a time
SERVE_MIGRATIONS = Migrations("teeth-serve")  # the service's own tables: a migration set of their own


@SERVE_MIGRATIONS()
def m001_tokens_and_pushes(db) -> None:
    db["serve_tokens"].create({"name": str, "digest": str, "created_at": str}, pk="name", if_not_exists=True)
    db["pushed_runs"].create({"digest": str, "run_id": int, "token": str, "pushed_at": str, "schema": int},
                             pk="digest", if_not_exists=True)


@SERVE_MIGRATIONS()
def m002_mutants_scoped_by_target(db) -> None:
    """A mutant is (target, id): a push of one target can no longer rewrite another's mutant of the same id. The
    rows already stored are kept (each under its own target); tokens gain a target scope and a revocation time."""
    if db["mutants"].exists() and db["mutants"].pks == ["id"]:
        db["mutants"].transform(pk=("target", "id"))
    if db["outcomes"].exists() and any(fk.column == "mutant_id" for fk in db["outcomes"].foreign_keys):
        db["outcomes"].transform(drop_foreign_keys=["mutant_id"])  # mutants.id alone is no longer a key
    for column in ("targets", "revoked_at"):
        if column not in db["serve_tokens"].columns_dict:
            db["serve_tokens"].add_column(column, str)


class ServeStore(Store):
    """A Store whose database also holds `serve_tokens` and `pushed_runs` (created by `serving()`)."""

    def serving(self) -> "ServeStore":
        """Apply the service's migrations (its tables; a plain `teeth run` never needs them)."""
        with write_transaction(self.db):
            SERVE_MIGRATIONS.apply(self.db)
        return self

    # -- tokens -----------------------------------------------------------------
    def create_token(self, name: str, targets: tuple[str, ...] = ()) -> str:
        """A new push token named `name` (for `targets` only, when given); only its digest is stored, the token is
        returned once."""
        if not name.strip():
            raise TeethError("a token needs a name")
        for target in targets:
            check_target_name(target, TeethError)
        token = new_token()
        with WRITE_LOCK:
            if self.db["serve_tokens"].count_where("name = ?", [name]):
                raise TeethError(f"a token named {name!r} already exists in {self.path}")
            self.db["serve_tokens"].insert({"name": name, "digest": token_digest(token), "created_at": now(),
                                            "targets": json.dumps(sorted(set(targets))) if targets else None})
        return token

    def revoke_token(self, name: str) -> None:
        """Revoke the token named `name`: it pushes and reads nothing from now on (its name stays, with its pushes)."""
        with WRITE_LOCK:
            rows = list(self.db["serve_tokens"].rows_where("name = ?", [name]))
            if not rows:
                known = ", ".join(r["name"] for r in self.db["serve_tokens"].rows_where("revoked_at is null",
                                                                                       order_by="name")) or "none"
                raise TeethError(f"no token named {name!r} in {self.path} (tokens in use: {known})")
            if rows[0]["revoked_at"] is None:
                self.db["serve_tokens"].update(name, {"revoked_at": now()})

    def token(self, token: str | None) -> Token | None:
        """The token's name and targets, or None when it is missing, unknown or revoked."""
        if not token:
            return None
        wanted = token_digest(token)
        for row in self.db["serve_tokens"].rows_where("digest = ? and revoked_at is null", [wanted], limit=1):
            if same_digest(row["digest"], wanted):
                return Token(row["name"], tuple(json.loads(row["targets"])) if row["targets"] else ())
        return None

    def token_name(self, token: str | None) -> str | None:
        """The name of the token, or None when it is missing, unknown or revoked."""
        found = self.token(token)
        return found.name if found else None

    # -- pushes -----------------------------------------------------------------
    def store_push(self, run: PushedRun, digest: str, token: str) -> tuple[int, bool]:
        """Record a pushed run like a local one; (run id, False) when a run with this digest is already stored."""
        with WRITE_LOCK:
            for row in self.db["pushed_runs"].rows_where("digest = ?", [digest], limit=1):
                return row["run_id"], False
            record, mutants, results, tests = pushed_records(run)

            def then(run_id: int) -> None:
                # A push only adds: a mutant this target already has keeps its stored row, and (target, id) is the
                # key, so a push of another target never touches it.
                self.db["mutants"].insert_all((mutant_row(m) for m in mutants), pk=("target", "id"), ignore=True)
                self.db["pushed_runs"].insert({"digest": digest, "run_id": run_id, "token": token,
                                               "pushed_at": now(), "schema": run.schema_version})

            run_id = self.add_run(  # one transaction per push: a failure leaves nothing behind
                record, results, tests, then=then, mutants=False)
            return run_id, True

    def export_run(self, run_id: int) -> dict:
        """A local run as the JSON body `teeth push` sends (reused_from is local to this file: not sent)."""
        results = self.results(run_id)
        if not results:
            raise TeethError(f"run {run_id} in {self.path} has no outcomes to push")
        return push_body(self.run(run_id), results, self.tests(run_id))

    # -- queries the API serves ---------------------------------------------------
    def target_summaries(self) -> list[dict]:
        """Per target: its run count and its latest run with outcomes, with that run's overall kill rate."""
        latest = {row["target"]: row["run"] for row in self.db.query(
            """select target, max(id) as run from runs r
               where exists (select 1 from outcomes o where o.run_id = r.id) group by target""")}
        found = []
        for row in self.db.query("select target, count(*) as runs from runs group by target order by target"):
            run_id = latest.get(row["target"])
            counts = self.kill_rates(run_id, by=("profile",)) if run_id else []
            totals = {k: sum(c.counts[k] for c in counts) for k in COUNTED}
            found.append({"target": row["target"], "runs": row["runs"], "latest_run": run_id,
                          "kill_rate": kill_rate(totals) if run_id else None})
        return found

    def target_history(self, target: str) -> list[dict]:
        """Per run of `target` with outcomes, oldest first: commit, time and kill rate per op x profile x operator."""
        if target not in self.run_targets():
            raise LookupError(f"no runs of target {target!r}")
        sql = f"""select r.id as run, r."commit", r.dirty, r.started_at, r.status, m.op, o.profile, m.operator,
                         {COUNTS_SQL}
                  from outcomes o join runs r on r.id = o.run_id
                  join mutants m on m.id = o.mutant_id and m.target = r.target
                  where r.target = ? group by r.id, m.op, o.profile, m.operator order by r.id, m.op, o.profile,
                  m.operator"""
        runs: dict[int, dict] = {}
        for row in self.db.query(sql, [target]):
            run = runs.setdefault(row["run"], {k: row[k] for k in ("run", "commit", "dirty", "started_at", "status")}
                                  | {"kill_rates": []})
            cell = {k: row[k] for k in ("op", "profile", "operator", *Status)}
            run["kill_rates"].append(cell | {"kill_rate": kill_rate(cell)})
        return list(runs.values())

    def find_run(self, run_id: int) -> Run:
        try:
            return self.run(run_id)
        except TeethError:
            raise LookupError(f"no run {run_id}") from None

    def survivors(self, run_id: int) -> list[Result]:
        """A run's surviving mutants, one result per (mutant, profile), with their diffs."""
        self.find_run(run_id)
        return self.results(run_id, OutcomeFilter(SURVIVING))

    def mutant_history(self, mutant_id: str, target: str | None = None) -> dict:
        """A mutant (exact id; of `target`, needed when several targets hold the id) and its outcome in every run of
        its target, newest first."""
        found = [dict(r) for r in self.db["mutants"].rows_where(
            "id = ?" + (" and target = ?" if target else ""), [mutant_id, target] if target else [mutant_id],
            order_by="target")]
        if not found:
            raise LookupError(f"no mutant {mutant_id!r}" + (f" of target {target!r}" if target else ""))
        if len(found) > 1:
            raise Ambiguous(f"mutant id {mutant_id!r} is held by targets {', '.join(m['target'] for m in found)}: "
                            f"ask for one (/targets/NAME/mutants/{mutant_id})")
        mutant = found[0]
        outcomes = [dict(o) for o in self.db.query(
            """select o.run_id, r."commit", r.started_at, o.profile, o.status, o.killed_by, o."check", o.detail
               from outcomes o join runs r on r.id = o.run_id where o.mutant_id = ? and r.target = ?
               order by o.run_id desc, o.profile""", [mutant_id, mutant["target"]])]
        return {**mutant, "outcomes": outcomes}


class Ambiguous(LookupError):
    """An id several targets hold, asked for without its target (HTTP 409)."""
