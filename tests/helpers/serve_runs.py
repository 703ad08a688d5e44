"""Runs recorded through teeth's Store without running tests: what `teeth push` sends and `teeth serve` shows."""

from __future__ import annotations

import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from teeth.serve.store import ServeStore
from tests.helpers.mutants import record_outcome_rows

OPERATORS = ("zero_storage_offset", "wrong_slice_start", "whole_batch")
PROFILES = ("cpu", "torch_cpu_fp32")
HOSTILE = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>'


def record_run(db: Path, target: str = "rows", mutants: int = 12, survivors: int = 3, commit: str = "a" * 40,
               seed: str = "", hostile: bool = False) -> int:
    """One completed run of `target`: `mutants` mutants over two ops, each outcome in both profiles; the first
    `survivors` mutants survive in `cpu`. `seed` varies the mutant ids (runs of different code); with `hostile`
    the first mutant's function, diff and op carry HTML. Returns the local run id."""
    store = ServeStore(db)
    run_id = store.start_run(target, list(PROFILES), list(OPERATORS), {"commit": commit, "dirty": 0,
                                                                       "versions": {"teeth": "0.1.0"}})
    records, outcomes = [], []
    for n in range(mutants):
        op = "take_rows" if n % 2 == 0 else "total"
        mark = HOSTILE if hostile and n == 0 else ""
        function = f"{op}{mark}"
        records.append(SimpleNamespace(
            id=f"{target}-{seed}{n:05d}", target=target, file="rows.py", line=10 + n, end_line=10 + n,
            function=function, op=op + mark, operator=OPERATORS[n % len(OPERATORS)], original=f"x[{n}:]",
            replacement="x[0:]", skip=None,
            diff=f"--- a/rows.py\n+++ b/rows.py\n@@ -{10 + n} +{10 + n} @@\n-    return x[{n}:]{mark}\n"
                 f"+    return x[0:]{mark}\n"))
        for profile in PROFILES:
            status = "survived" if n < survivors and profile == "cpu" else "killed"
            outcomes.append({"mutant_id": records[-1].id, "profile": profile, "status": status,
                             "killed_by": None if status == "survived" else "tests/test_rows.py::test_rows",
                             "check": None if status == "survived" else "behaviour", "duration": 0.01,
                             "tests_run": 1, "test_seconds": 0.005, "detail": None})
    store.record_mutants(records)
    record_outcome_rows(store, run_id, outcomes)
    for profile in PROFILES:
        store.record_tests(run_id, profile, {"tests/test_rows.py::test_rows": {"duration": 0.01, "failure": None}},
                           covers={"tests/test_rows.py::test_rows": {"rows.py::take_rows": "f00d"}},
                           test_keys={"tests/test_rows.py::test_rows": "k1"}, profile_key=f"p-{profile}")
    store.finish_run(run_id, "completed", {"total": 1.0}, {"killed": 2 * mutants - survivors,
                                                           "survived": survivors})
    return run_id


@contextmanager
def live_server(db: Path, *options: str):
    """`teeth serve --db DB --port 0` in a subprocess on loopback; yields its base URL, stops it after."""
    process = subprocess.Popen([sys.executable, "-m", "teeth.cli", "serve", "--db", str(db), "--port", "0", *options],
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert found, f"teeth serve did not start: {line}{process.stderr.read() if process.poll() is not None else ''}"
        yield found.group(0)
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stderr.close()
