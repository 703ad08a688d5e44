"""`teeth check --format github|json`: workflow annotations, the job summary, and Stryker's report schema."""

from __future__ import annotations

import json

from test_check import TAKE_ROWS, TAKE_ROWS_CHANGED, check, edit, git_repo

from teeth.report.github import _escape_data, _escape_property
from teeth.report.stryker import REQUIRED_MUTANT_KEYS, STATUS_ENUM


def test_github_format_annotates_each_survivor_and_appends_the_step_summary(project, teeth, monkeypatch, tmp_path):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    done = check(teeth, root, "--format", "github")
    assert done.returncode == 1, done.stdout + done.stderr
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 2  # the two survivors of take_rows
    assert all(a.startswith("::error file=rows.py,line=") and "::mutant " in a for a in annotations)
    assert any("wrong_slice_start" in a and "required bug class" in a for a in annotations)
    text = summary.read_text()
    assert text.startswith("earlier step\n## teeth check: FAILED")
    assert "| rows | 7 |" in text and "### Survivors" in text


def test_github_format_without_step_summary_only_prints(project, teeth, monkeypatch):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    done = check(teeth, root, "--format", "github")
    assert done.returncode == 1 and "::error file=rows.py" in done.stdout


def test_annotation_text_is_escaped_as_workflow_commands_require():
    assert _escape_data("50% a\nb") == "50%25 a%0Ab"
    assert _escape_property("a:b,c") == "a%3Ab%2Cc"


def test_json_format_follows_the_mutation_testing_report_schema(project, teeth):
    root = git_repo(project("weak_suite"))
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)
    done = check(teeth, root, "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
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
