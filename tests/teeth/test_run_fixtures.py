"""End to end on fixture targets named by behaviour: every outcome the runner can record."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.helpers.cli import FIXTURES, results_of


def test_weak_suite_survivors_are_reported(weak_suite_run):
    assert "survivors" in weak_suite_run.done.stdout
    rows = weak_suite_run.rows()
    survived = {(r["function"], r["operator"]) for r in rows if r["status"] == "survived"}
    assert ("take_rows", "wrong_slice_start") in survived  # the suite only ever reads from row 0
    assert {r["status"] for r in rows} <= {"killed", "survived"}
    killed = [r for r in rows if r["status"] == "killed"]
    assert killed and all(r["killed_by"].startswith("tests/test_rows.py::") and r["check"] == "behaviour"
                          for r in killed)


def test_results_json_has_the_documented_fields(weak_suite_run):
    rows = weak_suite_run.rows()
    assert rows
    for field in ("mutant", "target", "file", "line", "function", "op", "operator", "profile", "status",
                  "killed_by", "check"):
        assert field in rows[0]
    assert {r["target"] for r in rows} == {"rows"} and {r["file"] for r in rows} == {"rows.py"}


def test_mutant_that_hangs_is_a_timeout_and_the_run_goes_on(project, teeth):
    root = project("hang_when_mutated")
    done = teeth("run", "--target", "loop", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    statuses = {r["operator"] + ":" + r["status"] for r in rows}
    assert "generic.augmented_assignment:timeout" in statuses
    timeout = next(r for r in rows if r["status"] == "timeout")
    assert "(running tests/" in timeout["detail"] and "; its budget was " in timeout["detail"]  # the test, the budget
    assert "generic.swap_op:killed" in statuses


def test_mutant_whose_tests_crash_the_process_is_killed_by_check_crash_with_its_signal(project, teeth):
    root = project("segfault_when_mutated")
    done = teeth("run", "--target", "guard", cwd=root)
    assert done.returncode == 0, done.stderr
    (row,) = results_of(teeth, root)
    assert (row["status"], row["check"]) == ("killed", "crash")
    assert row["killed_by"] == "tests/test_guard.py::test_a_value_passes_the_guard"  # the test that crashed it
    assert row["signal"] == 11 and row["failure"] is None and "SIGSEGV" in row["detail"]  # a kill, not a failure
    assert "kill rate" in done.stdout and "100.0% (1/1)" in done.stdout  # counted, not an uncounted error


def test_an_interpreter_profile_bounds_checks_every_launch_and_runs_third_party_kernels_unpatched(project, teeth):
    """The kernel uses a float argument's .to() and libdevice.tanh; widening a mask by one reads or writes past
    the tensor, which the values never show: the bounds check kills it, and without the check a read survives."""
    root = project("kernel_reads_past_its_tensor_when_mutated")
    done = teeth("run", "--target", "softclip", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    assert len(rows) == 2 and {(r["status"], r["check"]) for r in rows} == {("killed", "bounds")}
    assert {"OutOfBounds('masked_load", "OutOfBounds('masked_store"} == {
        r["detail"].split(" outside")[0].split(": ", 1)[1] for r in rows}
    done = teeth("run", "--target", "softclip_unchecked", cwd=root)
    assert done.returncode == 0, done.stderr
    unchecked = {r["line"]: r for r in results_of(teeth, root) if r["target"] == "softclip_unchecked"}
    assert unchecked[12]["status"] == "survived"  # the widened load's extra lane is never stored
    assert "bounds" not in {r["check"] for r in unchecked.values()}  # the widened store may corrupt the heap


def test_mutant_that_breaks_the_import_is_an_error(project, teeth):
    root = project("fail_to_import_when_mutated")
    done = teeth("run", "--target", "limits", cwd=root)
    assert done.returncode == 0, done.stderr
    (row,) = results_of(teeth, root)
    assert row["status"] == "error" and "fails to import" in row["detail"]


def test_failing_baseline_exits_3_with_the_failing_tests_and_kills_nothing(project, teeth):
    root = project("failing_baseline")
    done = teeth("run", "--target", "span", cwd=root)
    assert done.returncode == 3
    assert "tests/test_span.py::test_span_is_wrong_already" in done.stderr
    assert "test_span_passes" not in done.stderr
    assert "Traceback" not in done.stderr
    assert results_of(teeth, root) == []


def test_show_prints_the_diff_and_outcomes(weak_suite_run):
    survivor = next(r for r in weak_suite_run.rows() if r["status"] == "survived")
    done = weak_suite_run.teeth("show", survivor["mutant"][:8])
    assert done.returncode == 0, done.stderr
    assert "--- a/rows.py" in done.stdout and "+++ b/rows.py" in done.stdout
    assert "survived" in done.stdout


def test_show_says_what_a_surviving_domain_mutants_bug_class_means_and_the_test_that_kills_it(weak_suite_run):
    from teeth.operators import select_operators

    teeth = weak_suite_run.teeth
    rows = weak_suite_run.rows()
    survivor = next(r for r in rows if r["status"] == "survived" and r["operator"] == "wrong_slice_start")
    (operator,) = select_operators(["wrong_slice_start"])
    shown = json.loads(teeth("show", survivor["mutant"], "--format", "json").stdout)
    assert shown["bug_class"] == {
        "operator": "wrong_slice_start", "change": f"{shown['original']} -> {shown['replacement']}",
        "summary": operator.summary, "means": operator.bug, "killing_test": operator.killing_test,
        "kills": list(operator.kills)}
    assert shown["tests"]  # the tests that executed the line, as before
    text = teeth("show", survivor["mutant"]).stdout
    assert "bug class wrong_slice_start on this line:" in text
    assert "a test that kills it:" in text and "what it means:" in text
    killed = next(r for r in rows if r["status"] == "killed")
    assert json.loads(teeth("show", killed["mutant"], "--format", "json").stdout)["bug_class"] is None


def test_op_and_operator_filters_limit_the_run(project, teeth):
    root = project("weak_suite")
    done = teeth("run", "--target", "rows", "--op", "total", "--operator", "generic.swap_op", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    assert rows and {(r["op"], r["operator"]) for r in rows} == {("total", "generic.swap_op")}


def test_a_mutated_triton_kernel_is_the_kernel_that_runs(project, teeth):
    root = project("triton_kernel")
    done = teeth("run", "--target", "shift", "--operator", "generic.number", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    shifted = [r for r in rows if r["function"] == "shift_kernel" and r["line"] == 17]
    assert len(shifted) == 1  # x + 1.5 -> x + 2.5 inside the @triton.jit body
    assert shifted[0]["status"] == "killed" and "AssertionError" in shifted[0]["detail"]


@pytest.fixture(scope="module")
def installed_run(tmp_path_factory):
    """installed_module's package, importable from its own site-packages only, run once: `.teeth(ARGS)` runs a
    command there (asserting it passes), `.run` is the run's output, `.before` the package's file hashes before it."""
    root = tmp_path_factory.mktemp("installed") / "installed_module"
    shutil.copytree(FIXTURES / "installed_module", root, ignore=shutil.ignore_patterns("__pycache__"))
    site = root / "site-packages"
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in site.rglob("*") if p.is_file()}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    db = str(root.parent / "teeth.db")

    def teeth(*args):
        done = subprocess.run([sys.executable, "-m", "teeth.cli", *args, "--db", db], cwd=root / "project", env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return SimpleNamespace(site=site, db=db, before=before, teeth=teeth, run=teeth("run", "--target", "installed"))


def test_an_installed_module_is_mutated_in_memory_and_never_written(installed_run):
    rows = json.loads(installed_run.teeth("results", "--format", "json"))
    assert rows and {r["file"] for r in rows} == {"rowspkg/rows.py"}  # from its import root, not site-packages
    assert {r["status"] for r in rows} == {"killed"}
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in installed_run.site.rglob("*") if p.is_file()}
    assert after == installed_run.before


def test_an_installed_module_is_shown_from_its_import_root_in_every_output(installed_run, tmp_path):
    teeth, site, db = installed_run.teeth, installed_run.site, installed_run.db
    outputs = {"run": installed_run.run,
               "lines": teeth("results", "--format", "lines", "--status", "killed"),
               "table": teeth("results", "--status", "killed"),
               "show": teeth("show", json.loads(teeth("results", "--format", "json"))[0]["mutant"])}
    teeth("report", "--html", str(tmp_path / "html"))
    outputs["html"] = "".join(p.read_text() for p in (tmp_path / "html").rglob("*.html"))
    assert outputs["lines"].startswith("rowspkg/rows.py:5:")
    assert "a/rowspkg/rows.py" in outputs["show"] and "could not be read" not in outputs["html"]
    for name, text in outputs.items():
        assert "site-packages" not in text, name
    with sqlite3.connect(db) as connection:  # the absolute path stays in the database
        paths = {row[0] for row in connection.execute("select path from mutants")}
    assert paths == {str((site / "rowspkg" / "rows.py").resolve())}

