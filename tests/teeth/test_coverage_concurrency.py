"""Coverage that follows the code: coverage.py's concurrency models follow what the tests import (or the target's
`concurrency`), and recorded lines a file does not have are an error naming the test, never data."""

from __future__ import annotations

import re

import pytest
from tests.helpers.cli import results_of

from teeth.run.coverage_map import LinesPastTheEnd, check_lines
from teeth.workers.coverage import concurrency_of


def test_the_concurrency_models_follow_the_light_threads_the_tests_imported():
    assert concurrency_of({"os": None}) == ["thread"]
    assert concurrency_of({"greenlet": None}) == ["thread", "greenlet"]
    assert concurrency_of({"greenlet": None, "gevent": None}) == ["thread", "gevent"]


def test_lines_past_the_end_of_a_file_are_an_error_naming_the_test(tmp_path):
    tests = {"tests/test_a.py::test_ok": {"lines": {"/x/a.py": [1, 3]}},
             "tests/test_a.py::test_odd": {"lines": {"/x/a.py": [2, 717]}}}
    with pytest.raises(LinesPastTheEnd, match=r"line 717 of /x/a.py, which has 265 lines, for tests/test_a.py::"
                                              r"test_odd"):
        check_lines(tests, {"/x/a.py": 265})
    check_lines(tests, {"/x/a.py": 717})  # every line exists: nothing to say


def test_a_hook_run_inside_a_greenlet_is_covered_and_its_mutants_killed(project, teeth):
    pytest.importorskip("greenlet")
    root = project("hook_in_greenlet")
    done = teeth("run", "--target", "hooks", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    resumed = [r for r in rows if r["line"] in (6, 7)]  # run only after the paused greenlet is switched into again
    assert resumed and {r["status"] for r in resumed} == {"killed"}, rows
    assert {r["killed_by"] for r in resumed} == {"tests/test_hooks.py::test_a_hook_run_in_a_greenlet_scales_its_input"}


def test_a_greenlet_that_switches_out_by_itself_is_refused_naming_the_test(project, teeth):
    pytest.importorskip("greenlet")
    root = project("hook_in_greenlet")
    done = teeth("run", "--target", "inline", cwd=root)
    assert done.returncode == 4, done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("teeth: error:")]
    assert len(error) == 1 and "Traceback" not in done.stderr, done.stderr
    assert re.search(r"coverage recorded line \d+ of \S+inline\.py, which has 6 lines, for tests/test_hooks\.py::"
                     r"test_a_hook_that_switches_out_by_itself_shifts_its_input", error[0]), error[0]
