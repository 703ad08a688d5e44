"""`teeth check --format github|json`: workflow annotations, the job summary, and Stryker's report schema."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from tests.helpers.cli import FIXTURES, assert_one_line_error, teeth_in_process
from tests.helpers.git_projects import TAKE_ROWS, TAKE_ROWS_CHANGED, check, edit, git_repo
from tests.helpers.mutants import result

from teeth.report import github
from teeth.report.stryker import REQUIRED_MUTANT_KEYS, STATUS_ENUM

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "mutation-testing-report-schema.json").read_text())
UNTESTED = "\n\ndef offset(row):\n    return row + 1\n"  # no test calls it: its mutants have no coverage


def assert_valid_stryker_report(report: dict) -> None:
    """Valid against the official schema, and every test id a mutant names is a test of testFiles."""
    jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(report)
    tests = {t["id"] for f in report["testFiles"].values() for t in f["tests"]}
    for file in report["files"].values():
        for mutant in file["mutants"]:
            assert set(mutant.get("coveredBy", [])) <= tests and set(mutant.get("killedBy", [])) <= tests, mutant


def test_github_format_annotates_each_survivor_and_appends_the_step_summary(project, teeth, monkeypatch, tmp_path):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    done = check(teeth, root, "--format", "github")
    assert done.returncode == 1, done.stdout + done.stderr
    annotations = [line for line in done.stdout.splitlines() if line.startswith(("::error ", "::warning "))]
    assert len(annotations) == 2  # the two survivors of take_rows
    assert all(a.startswith(("::error file=rows.py,line=", "::warning file=rows.py,line=")) and "::mutant " in a
               for a in annotations)
    errors = [a for a in annotations if a.startswith("::error ")]  # only a gating survivor is an error
    assert len(errors) == 1 and "wrong_slice_start" in errors[0] and "required bug class" in errors[0]
    text = summary.read_text()
    assert text.startswith("earlier step\n## teeth check: FAILED")
    assert "| rows | 7 |" in text and "### Survivors" in text


def test_github_format_without_step_summary_only_prints(project, teeth, monkeypatch):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    done = check(teeth, root, "--format", "github")
    assert done.returncode == 1 and "::error file=rows.py" in done.stdout


def test_annotation_text_is_escaped_as_workflow_commands_require(tmp_path):
    row = result("abc123", file="a:b,c.py", line=4, operator="whole_batch", original="x = '50%'", replacement="x")
    verdict = SimpleNamespace(survivors=[row], required=lambda r: False)
    check = SimpleNamespace(verdict=verdict, target=SimpleNamespace(root=tmp_path),
                            changes=SimpleNamespace(toplevel=str(tmp_path)))
    (line,) = github.annotations([check])
    assert "\n" not in line and line.startswith("::warning file=a%3Ab%2Cc.py,line=4,title=teeth%3A whole_batch mutant")
    message = line.split("::", 2)[2]
    assert message == ("mutant abc123 (whole_batch, profile cpu) survived: x = '50%25' -> x"
                       "%0Ano test caught it; see: teeth show abc123")


def test_json_format_follows_the_mutation_testing_report_schema(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    done = check(teeth, root, "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert_valid_stryker_report(report)
    assert report["schemaVersion"] == "2"
    assert set(report["thresholds"]) == {"high", "low"}
    (name, file), = report["files"].items()
    assert name == "rows.py" and file["language"] == "python"
    assert file["source"] == (root / "rows.py").read_text()
    assert len(file["mutants"]) == 7
    for mutant in file["mutants"]:
        assert set(REQUIRED_MUTANT_KEYS) <= set(mutant) and mutant["status"] in STATUS_ENUM
        start, end = mutant["location"]["start"], mutant["location"]["end"]
        assert start["line"] >= 1 and start["column"] >= 1 and (end["line"], end["column"]) > (start["line"], start["column"])
        if mutant["status"] == "Killed":
            assert mutant["killedBy"] and mutant["killedBy"][0].startswith("tests/test_rows.py::")
    statuses = sorted(m["status"] for m in file["mutants"])
    assert statuses.count("Survived") == 2 and statuses.count("Killed") == 5
    slice_mutant = next(m for m in file["mutants"] if m["mutatorName"] == "wrong_slice_start")
    line = file["source"].splitlines()[slice_mutant["location"]["start"]["line"] - 1]
    loc = slice_mutant["location"]
    assert line[loc["start"]["column"] - 1: loc["end"]["column"] - 1] == "batch[start:end]"


def teeth_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "teeth.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def weak_run(tmp_path_factory):
    """weak_suite with an untested function, run once: (project root, database)."""
    base = tmp_path_factory.mktemp("formats")
    root, db = base / "weak_suite", base / "state" / "teeth.db"
    shutil.copytree(FIXTURES / "weak_suite", root, ignore=shutil.ignore_patterns("__pycache__"))
    with open(root / "rows.py", "a") as source:
        source.write(UNTESTED)
    done = teeth_cli("run", "--target", "rows", "--db", str(db), cwd=root)
    assert done.returncode == 0, done.stderr
    return root, db


def results(weak_run, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    root, db = weak_run
    return teeth_cli("results", "--db", str(db), *args, cwd=cwd or root)


def test_results_stryker_format_validates_against_the_official_schema(weak_run):
    done = results(weak_run, "--format", "stryker")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert_valid_stryker_report(report)
    (name, file), = report["files"].items()
    assert name == "rows.py" and file["source"] == (weak_run[0] / "rows.py").read_text()
    statuses = [m["status"] for m in file["mutants"]]
    assert statuses.count("Killed") == 8 and statuses.count("Survived") == 2 and statuses.count("NoCoverage") >= 1


def test_results_stryker_format_has_the_runs_tests_coverage_and_tests_completed(weak_run):
    report = json.loads(results(weak_run, "--format", "stryker").stdout)
    first, total = "tests/test_rows.py::test_first_rows_are_taken", "tests/test_rows.py::test_total_of_a_batch"
    (test_file, entry), = report["testFiles"].items()
    assert test_file == "tests/test_rows.py" and entry["source"] == (weak_run[0] / test_file).read_text()
    assert [(t["id"], t["name"]) for t in entry["tests"]] == [(first, "test_first_rows_are_taken"),
                                                             (total, "test_total_of_a_batch")]
    mutants = report["files"]["rows.py"]["mutants"]
    for mutant in mutants:
        function = mutant["description"].split(" in ")[1].split(" ")[0]
        if mutant["status"] == "NoCoverage":
            assert function == "offset" and mutant["coveredBy"] == [] and mutant["testsCompleted"] == 0
        else:  # each function is executed by exactly one test, which is the one that ran against the mutant
            assert mutant["coveredBy"] == [{"take_rows": first, "total": total}[function]], mutant
            assert mutant["testsCompleted"] == 1
        if mutant["status"] == "Killed":
            assert mutant["killedBy"] == mutant["coveredBy"]
        else:
            assert "killedBy" not in mutant


def test_results_stryker_format_keeps_coverage_when_every_outcome_was_reused(project, teeth):
    root = project("weak_suite")
    for _ in range(2):  # the second run reuses every outcome: no baseline runs, the first one's coverage counts
        assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    done = teeth("results", "--format", "stryker", cwd=root)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert_valid_stryker_report(report)
    assert len(report["testFiles"]["tests/test_rows.py"]["tests"]) == 2
    assert all(m["coveredBy"] for m in report["files"]["rows.py"]["mutants"])


def test_results_stryker_format_takes_its_low_threshold_from_fail_under(weak_run, tmp_path):
    root, _ = weak_run
    config = tmp_path / "teeth.toml"
    config.write_text(f'[targets.rows]\nroot = "{root.as_posix()}"\nfiles = ["rows.py"]\ntests = ["tests"]\n'
                      "fail_under = 0.7\n")
    report = json.loads(results(weak_run, "--format", "stryker", "--config", str(config), cwd=tmp_path).stdout)
    assert report["thresholds"] == {"high": 80, "low": 70}
    assert report["files"]["rows.py"]["source"] == (root / "rows.py").read_text()


def test_results_lines_format_is_one_line_per_survivor_with_its_mutant_id(weak_run):
    done = results(weak_run, "--format", "lines")
    assert done.returncode == 0, done.stderr
    offset_line = 1 + (weak_run[0] / "rows.py").read_text().splitlines().index("def offset(row):")
    rows = {r["mutant"]: r for r in json.loads(results(weak_run, "--format", "json").stdout)}
    lines, ids = [], []
    for line in done.stdout.splitlines():
        text, mark, mutant = line.rpartition(" (mutant ")
        assert mark and mutant.endswith(")"), line
        lines.append(text)
        ids.append(mutant[:-1])
    assert lines[:2] == ["rows.py:5:12: survived (not_propagated) wrong_slice_start: batch[start:start + size] -> "
                         "batch[0:start + size]",
                         "rows.py:5:24: survived (not_propagated) generic.swap_op: start + size -> start - size"]
    assert lines[2:] == [f"rows.py:{offset_line + 1}:12: no_coverage generic.swap_op: row + 1 -> row - 1",
                         f"rows.py:{offset_line + 1}:18: no_coverage generic.number: 1 -> 2"]
    assert len(set(ids)) == 4
    for text, mutant in zip(lines, ids):  # each id is the mutant the line describes
        why = f" ({rows[mutant]['why']})" if rows[mutant].get("why") else ""  # a survivor says why it survived
        assert f": {rows[mutant]['status']}{why} {rows[mutant]['operator']}: " in text
        assert text.split(":")[1] == str(rows[mutant]["line"])


def test_results_through_a_pipe_print_every_row_whole_on_one_line(weak_run):
    rows = json.loads(results(weak_run, "--format", "json").stdout)
    done = results(weak_run)  # stdout is a pipe, as in CI logs, `| less` and `| grep`
    assert done.returncode == 0, done.stderr
    for row in rows:
        found = [line for line in done.stdout.splitlines() if row["mutant"] in line]
        assert len(found) == 1, (row["mutant"], done.stdout)  # the id whole, its row on one line
        for cell in (f"{row['file']}:{row['line']}", row["operator"], row["profile"], row["status"],
                     row["killed_by"] or "", row["check"] or ""):
            assert cell in found[0], (cell, found[0])
    assert any(len(line) > 120 for line in done.stdout.splitlines())  # wider than any window: nothing was cut


def test_results_narrow_by_op_operator_and_file(weak_run):
    every = json.loads(results(weak_run, "--format", "json").stdout)
    ops = {r["op"] for r in every}
    assert len(ops) > 1
    op = sorted(ops)[0]
    by_op = json.loads(results(weak_run, "--format", "json", "--op", op).stdout)
    assert by_op == [r for r in every if r["op"] == op]
    by_operator = json.loads(results(weak_run, "--format", "json", "--operator", "generic.swap_op").stdout)
    assert by_operator and by_operator == [r for r in every if r["operator"] == "generic.swap_op"]
    assert json.loads(results(weak_run, "--format", "json", "--file", "rows.py").stdout) == every
    assert json.loads(results(weak_run, "--format", "json", "--file", "other/*").stdout) == []
    lines = results(weak_run, "--format", "lines", "--operator", "generic.number").stdout.splitlines()
    assert len(lines) == 1 and " generic.number: " in lines[0]
    root, db = weak_run
    assert_one_line_error(teeth_in_process("results", "--db", db, "--op", "nope", cwd=root), "no op 'nope'", op)


def test_results_lines_format_narrows_by_status_and_names_files_from_the_working_directory(weak_run, tmp_path):
    root, _ = weak_run
    killed = results(weak_run, "--format", "lines", "--status", "killed").stdout.splitlines()
    assert len(killed) == 8 and all(": killed " in line for line in killed)
    elsewhere = results(weak_run, "--format", "lines", "--root", str(root), cwd=tmp_path).stdout.splitlines()
    assert elsewhere[0].startswith(f"{(root / 'rows.py').resolve().as_posix()}:5:12: survived (not_propagated) "
                                   "wrong_slice_start: ")


def test_results_stryker_format_with_status_is_one_line_and_exit_2(weak_run):
    root, db = weak_run
    done = teeth_in_process("results", "--db", db, "--format", "stryker", "--status", "survived", cwd=root)
    assert_one_line_error(done, "--status")


def test_stryker_report_of_two_profiles_has_one_mutant_per_profile_and_no_coverage_for_skipped(tmp_path):
    from teeth.core import Outcome, Status
    from teeth.store.records import Mutant, Result, TestRecord
    from teeth.report.stryker import RunPart, report

    (tmp_path / "k.py").write_text("def scale(x):\n    return x * 2\n")

    def row(profile, status, killed_by=None):
        mutant = Mutant(id="abc123", target="k", file="k.py", line=2, function="scale", op="scale",
                        operator="generic.swap_op", original="x * 2", replacement="x / 2")
        return Result(mutant, profile, Outcome("abc123", Status(status), killed_by=killed_by, duration=0.5,
                                               tests_run=1 if killed_by else None))

    tests = [TestRecord(profile="fp32", test="tests/test_k.py::test_scale", covers={"k.py::scale": "f"})]
    found = report([RunPart([row("fp32", "killed", "tests/test_k.py::test_scale"), row("bf16", "skipped")],
                            tests, tmp_path)])
    assert_valid_stryker_report(found)
    killed, skipped = found["files"]["k.py"]["mutants"]
    assert (killed["id"], skipped["id"]) == ("abc123@fp32", "abc123@bf16")
    assert killed["coveredBy"] == killed["killedBy"] == ["tests/test_k.py::test_scale"]
    assert skipped["status"] == "Ignored" and "coveredBy" not in skipped and "testsCompleted" not in skipped
    assert killed["location"] == {"start": {"line": 2, "column": 12}, "end": {"line": 2, "column": 17}}
