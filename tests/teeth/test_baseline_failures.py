"""A baseline failure says why: each failing test with the first line of its failure; a test that crashes or ends
the process, named; a conftest's import error; a write the sandbox refused, with the path and the two ways out."""

from __future__ import annotations

from tests.helpers.cli import results_of


def test_each_failing_test_is_named_with_the_first_line_of_its_failure(project, teeth):
    root = project("failing_baseline")
    done = teeth("run", "--target", "span", cwd=root)
    assert done.returncode == 3
    line = done.stderr.strip().splitlines()[-1]
    assert "tests/test_span.py::test_span_is_wrong_already (AssertionError: assert 3 == 4" in line


def test_a_test_that_ends_the_process_is_named(project, teeth):
    root = project("baseline_crashes")
    done = teeth("run", "--target", "exits", cwd=root)
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "tests/test_exits.py::test_exits_the_process" in line and "exited with code 0" in line
    assert results_of(teeth, root) == []


def test_a_test_that_crashes_the_process_is_named_with_the_signal(project, teeth):
    root = project("baseline_crashes")
    done = teeth("run", "--target", "segfaults", cwd=root)
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "tests/test_segfaults.py::test_dereferences_null" in line and "SIGSEGV" in line


def test_a_conftest_that_fails_to_import_is_reported_with_its_error(project, teeth):
    root = project("broken_conftest")
    done = teeth("run", "--target", "broken", cwd=root)
    assert done.returncode == 4, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "conftest" in line
    assert "ModuleNotFoundError: No module named 'teeth_fixture_module_that_does_not_exist'" in line


def test_a_write_the_sandbox_refuses_is_named_with_the_path_and_the_two_ways_out(project, teeth, tmp_path,
                                                                                 monkeypatch):
    root = project("sandbox_denied_write")
    outside = tmp_path / "outside" / "report.txt"
    outside.parent.mkdir()
    monkeypatch.setenv("TEETH_FIXTURE_OUTSIDE", str(outside))
    done = teeth("run", "--target", "writer", cwd=root)
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "PermissionError" in line and "sandbox" in line and str(outside) in line
    assert "tmp_path" in line and "sandbox = false" in line
    assert not outside.exists()
    config = root / "pyproject.toml"
    config.write_text(config.read_text().replace('tests = ["tests"]\n', 'tests = ["tests"]\nsandbox = false\n'))
    done = teeth("run", "--target", "writer", cwd=root)
    assert done.returncode == 0, done.stderr
    assert outside.read_text() == "positive\n"  # the second way out works
