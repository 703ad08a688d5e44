"""Lookups take what the user typed literally: mutant id prefixes, huge run ids, file names with glob characters, test ids."""

from __future__ import annotations

import importlib.util
import io
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from rich.console import Console

from teeth.cli import main
from teeth.workers.coverage import measure
from teeth.report.terminal import kill_rate_table
from teeth.store.db import Store
from tests.helpers.mutants import record_outcome_rows

HUGE = "99999999999999999999999"


def one_line(result, code, *fragments):
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def store(tmp_path):
    """One completed run with one mutant (id 4ae123) whose every outcome is `error`."""
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("rows", ["cpu", "fast"], [], {})
    store.record_mutants([SimpleNamespace(id="4ae123", target="rows", file="rows.py", line=1, end_line=1,
                                          function="take", op="take", operator="whole_batch", original="x[1:]",
                                          replacement="x", diff="", skip=None)])
    record_outcome_rows(store, run_id, [{"mutant_id": "4ae123", "profile": p, "status": "error", "detail": "crashed"}
                                   for p in ("cpu", "fast")])
    store.finish_run(run_id, "completed", {}, {})
    store.run_id = run_id
    return store


@pytest.mark.parametrize("prefix", ["4_e", "%", "4%", "_ae"])
def test_a_mutant_id_prefix_is_a_literal_prefix_not_a_like_pattern(store, prefix):
    one_line(CliRunner().invoke(main, ["show", prefix, "--db", str(store.path)]), 2, f"no mutant {prefix!r}")


def test_a_real_prefix_still_finds_the_mutant(store):
    result = CliRunner().invoke(main, ["show", "4ae", "--db", str(store.path)])
    assert result.exit_code == 0 and "4ae123" in result.output, result.output


@pytest.mark.parametrize("args", [["results", "--run", HUGE], ["history", "--since", HUGE],
                                  ["report", "--html", "REPORT", "--run", HUGE]])
def test_a_run_id_past_sqlites_integers_is_one_line(store, tmp_path, args):
    args = [str(tmp_path / "html") if a == "REPORT" else a for a in args]
    one_line(CliRunner().invoke(main, [*args, "--db", str(store.path)]), 2, f"no run {HUGE}")


def test_an_op_whose_outcomes_are_all_error_says_so(store):
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(kill_rate_table(store, store.run_id))
    assert "- (1 error)" in out.getvalue()
    assert "0 skipped" not in out.getvalue()


def test_a_target_file_named_with_glob_characters_gets_coverage(tmp_path):
    path = tmp_path / "a[1].py"
    path.write_text("def double(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("a_1", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    item = SimpleNamespace(nodeid="tests/test_a.py::test_double")
    tests = measure([item], [str(path)], lambda _: None if module.double(2) == 4 else "wrong")
    assert tests[item.nodeid]["lines"] == {str(path.resolve()): [2]}


def test_a_test_id_that_matches_nothing_is_named(project, tmp_path):
    root = project("weak_suite")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]',
                                                      'tests = ["tests/test_rows.py::test_missing"]'))
    done = CliRunner().invoke(main, ["run", "--target", "rows", "--config", str(pyproject),
                                     "--db", str(tmp_path / "teeth.db")])
    assert done.exit_code == 4, (done.output, done.exception)
    lines = done.stderr.strip().splitlines()
    assert "not found" in lines[-1] and "tests/test_rows.py::test_missing" in lines[-1], done.stderr
    assert "Traceback" not in done.output
