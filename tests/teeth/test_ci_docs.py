"""docs/ci.md: its GitHub workflow is .github/workflows/teeth.yml, and every `teeth` command in its examples
parses with the CLI as it is (an option renamed or removed breaks this test, not a user's pipeline)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from teeth.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "ci.md").read_text()
BLOCKS = re.findall(r"```yaml\n(.*?)```", DOC, re.S)


def teeth_lines(workflow: str) -> list[str]:
    """Every `teeth ...` command line in a workflow's run/script/after_script steps."""
    found = []
    for line in workflow.splitlines():
        text = line.strip().removeprefix("- ").removeprefix("run: ").strip()
        if text.startswith("teeth "):
            found.append(text)
    return found


def test_the_github_workflow_is_the_one_in_the_docs():
    assert BLOCKS[0] == (ROOT / ".github" / "workflows" / "teeth.yml").read_text()


def test_both_examples_are_yaml_with_the_whole_loop():
    github, gitlab = (yaml.safe_load(block) for block in BLOCKS)
    assert set(github["jobs"]) == {"base", "check", "nightly-shard", "nightly", "pages"}
    assert {"teeth-base", "teeth-check", "teeth-nightly-shard", "teeth-nightly"} <= set(gitlab)
    for block in BLOCKS:
        used = {shlex.split(line)[1] for line in teeth_lines(block)}
        assert used == {"run", "check", "merge", "results", "report", "badge"}, used


@pytest.mark.parametrize("line", [line for block in BLOCKS for line in teeth_lines(block)])
def test_every_teeth_command_in_the_examples_parses(line):
    args = shlex.split(re.sub(r"\$\{\{[^}]*\}\}", "1", line.split(" > ")[0]))[1:]  # ${{ matrix.shard }} -> 1
    command = main.commands[args[0]]
    try:
        command.make_context(args[0], args[1:])
    except click.ClickException as exc:
        pytest.fail(f"{line}: {exc.format_message()}")


def test_the_problem_matcher_reads_the_lines_format():
    import json

    from teeth.report.lines import survivor_lines

    matcher = json.loads((ROOT / ".github" / "teeth-problem-matcher.json").read_text())["problemMatcher"][0]
    pattern = matcher["pattern"][0]
    from tests.helpers.mutants import result

    row = result("m1", line=2, operator="wrong_slice_start", original="batch[a:b]", replacement="batch[0:b]")
    (line,) = survivor_lines([row], ROOT / "nowhere")
    found = re.match(pattern["regexp"], line)
    assert found, line
    assert [found.group(pattern[k]) for k in ("line", "column", "message")] == [
        "2", "1", "survived wrong_slice_start: batch[a:b] -> batch[0:b] (mutant m1)"]
    assert found.group(pattern["file"]).endswith("nowhere/rows.py")
