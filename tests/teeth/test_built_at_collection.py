"""Code the tests run while pytest collects them (objects built for a `parametrize` list, a test module's top): no
test's coverage holds it, and a mutant forked after collection would find those objects made by the unmutated code.
Such a mutant runs in a new pytest session in its child, which imports the test modules again with it in place: its
verdict is the one by hand, killed or survived."""

from __future__ import annotations

from tests.helpers.cli import results_of, verdict_by_hand
from tests.helpers.git_projects import git_repo


def test_mutants_of_code_run_while_collecting_get_the_verdict_by_hand(project, teeth):
    root = git_repo(project("built_at_collection"))
    done = teeth("run", "--target", "scales", "--no-cache", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    rows = {row["mutant"]: row for row in results_of(teeth, root)}
    statuses = {row["status"] for row in rows.values()}
    assert {"killed", "survived"} <= statuses, statuses  # both ways: a collected object shows it, or not
    assert "no_coverage" not in statuses and "error" not in statuses, rows
    for mutant, row in rows.items():
        assert row["status"] == verdict_by_hand(teeth, root, mutant), row
