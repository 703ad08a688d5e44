"""Strings from the user's code, tests and paths are printed as text: never rich markup, never markdown or HTML."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt
from rich.console import Console

from teeth.cli import main
from teeth.report import github
from teeth.report.terminal import print_run_report
from teeth.core import Outcome, Status
from teeth.store.records import Mutant, Result
from teeth.store.db import Store
from tests.helpers.mutants import record_outcome_rows
from tests.helpers.html import parse

FILE = "f[bold red]x.py"
TEST = "tests/test_x.py::test_[/]"
DETAIL = "[blink]boom[/blink]"
PROFILE = "[bold]cpu"
TARGET = "[red]rows"


def mutant(ident: str, **fields):
    base = dict(id=ident, target=TARGET, file=FILE, line=2, end_line=2, function="take[/]", op="take[/]",
                operator="whole_batch", original="x[1:]", replacement="x", diff="", skip=None)
    return SimpleNamespace(**{**base, **fields})


@pytest.fixture
def store(tmp_path):
    """A database whose mutant, test id, detail, profile and target names all look like rich markup."""
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run(TARGET, [PROFILE], [], {})
    store.record_mutants([mutant("aaa111"), mutant("bbb222", line=3, original="y", replacement="z")])
    record_outcome_rows(store, run_id, [
        {"mutant_id": "aaa111", "profile": PROFILE, "status": "killed", "killed_by": TEST, "check": "behaviour",
         "detail": DETAIL},
        {"mutant_id": "bbb222", "profile": PROFILE, "status": "survived"},
    ])
    store.finish_run(run_id, "completed", {}, {})
    store.run_id = run_id
    return store


def test_show_prints_test_ids_paths_and_details_as_text(store):
    result = CliRunner().invoke(main, ["show", "aaa", "--db", str(store.path)])
    assert result.exit_code == 0, (result.output, result.exception)
    text = " ".join(result.output.split())
    assert f"{FILE}:2 take[/]" in text
    assert f"run {store.run_id} {PROFILE}: killed by {TEST} (behaviour) - {DETAIL}" in text


def test_the_run_report_prints_profiles_files_and_survivors_as_text(store):
    out = io.StringIO()
    print_run_report(Console(file=out, width=300, color_system=None), store, store.run_id)
    text = out.getvalue()
    assert PROFILE in text and f"{FILE}:3" in text


def test_history_prints_target_and_profile_names_as_text(store):
    result = CliRunner().invoke(main, ["history", "--db", str(store.path)], terminal_width=300)
    assert result.exit_code == 0, (result.output, result.exception)
    assert TARGET in result.output and PROFILE in result.output, result.output


def rendered(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


@pytest.mark.parametrize("source", ["a `<img src=x onerror=alert(1)>` b", "``` **x** ```", "`", "a | b"])
def test_a_code_span_holds_any_text_whatever_its_backticks(source):
    page = parse(rendered(f"x {github.code_span(source)} y"))
    assert not page.tags() & {"img", "strong"}
    (code,) = page.find("code")
    assert code.text.replace("\\|", "|") == source


def test_a_backtick_in_a_survivor_cannot_break_out_of_the_step_summary(tmp_path):
    row = Result(Mutant(id="abc123", target="rows", file="rows.py", line=4, op="f", operator="whole_batch",
                        original="s = '`' + '<img src=x onerror=alert(1)>'", replacement="s"), "cpu",
                 Outcome("abc123", Status.SURVIVED))
    verdict = SimpleNamespace(target="rows", results=[row], base_run=None, rate=0.0, base_rate=None,
                              policy=SimpleNamespace(fail_under=None), passed=False, failures=["x"],
                              survivors=[row], required=lambda r: False, notes=[])
    check = SimpleNamespace(verdict=verdict, executed=1, reused=0, target=SimpleNamespace(root=tmp_path),
                            changes=SimpleNamespace(toplevel=str(tmp_path)))
    page = parse(rendered(github.summary_markdown([check], False)))
    assert "img" not in page.tags()
    assert "<img src=x onerror=alert(1)>" in page.text
