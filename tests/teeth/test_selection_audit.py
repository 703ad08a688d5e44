"""The selection audit: `teeth run --audit N|all` runs survived and no_coverage mutants against the whole suite and
reports each disagreement with the verdict that coverage-based test selection gave."""

from __future__ import annotations

from tests.helpers.cli import assert_one_line_error, results_of, teeth_in_process

ESCAPED = "tests/test_clip.py::test_scale_under_its_own_tracer"


def test_a_test_that_coverage_cannot_see_is_found_escaping_selection(project, teeth):
    root = project("untraced_test")
    done = teeth("run", "--target", "untraced", "--audit", "all", cwd=root)
    assert done.returncode == 0, done.stderr
    uncovered = [r for r in results_of(teeth, root) if r["function"] == "scale"]
    assert uncovered and {r["status"] for r in uncovered} == {"no_coverage"}  # what selection says
    lines = done.stdout.splitlines()
    disagreeing = [line for line in lines if "selection no_coverage, whole suite killed by " + ESCAPED in line]
    assert {line.split()[0] for line in disagreeing} == {r["mutant"] for r in uncovered}
    assert f"audit (cpu): {len(uncovered)} survived or no_coverage mutant(s)" in done.stdout
    assert f"{len(uncovered)} disagreement(s)" in done.stdout
    assert "coverage-based selection is unsound for this suite: " + ESCAPED + " escaped it" in done.stdout


def test_what_an_audit_found_is_stored_with_its_run_and_shown_by_results(project, teeth):
    root = project("untraced_test")
    done = teeth("run", "--target", "untraced", "--audit", "all", cwd=root)
    assert done.returncode == 0, done.stderr
    found = [line for line in done.stdout.splitlines() if "disagreement(s)" in line or "unsound" in line]
    assert len(found) == 2, done.stdout
    table = teeth("results", cwd=root)
    assert table.returncode == 0 and all(line in table.stdout for line in found), table.stdout
    as_json = teeth("results", "--format", "json", cwd=root)  # the notes go to stderr: stdout stays JSON
    assert all(line in as_json.stderr for line in found) and not any(line in as_json.stdout for line in found)


def test_an_audit_of_a_sound_selection_reports_no_disagreement(project, teeth):
    root = project("weak_suite")
    done = teeth("run", "--target", "rows", "--audit", "1", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "audit (cpu): 1 survived or no_coverage mutant(s) run against the whole suite: 0 disagreement(s)" \
        in done.stdout
    assert "unsound" not in done.stdout


def test_an_audit_with_nothing_to_audit_says_so(project, teeth):
    root = project("memoised_when_mutated")  # every mutant killed
    done = teeth("run", "--target", "memo", "--audit", "all", cwd=root)
    assert done.returncode == 0, done.stderr
    assert {r["status"] for r in results_of(teeth, root)} == {"killed"}
    assert "audit (cpu): 0 survived or no_coverage mutant(s) run against the whole suite: 0 disagreement(s)" \
        in done.stdout


def test_an_audit_count_that_is_not_a_number_is_refused_in_one_line(project):
    root = project("weak_suite")
    assert_one_line_error(teeth_in_process("run", "--target", "rows", "--audit", "some", cwd=root), "--audit",
                          "'all'")
