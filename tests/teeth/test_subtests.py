"""A test that loops over cases in subtests (unittest's `subTest`, pytest's `subtests`) fails when one case fails:
pytest reports the failing case as a subtest of its own while the test's own report says passed, and a plain run
exits non-zero. A mutant that only such a case catches is killed, as by hand."""

from __future__ import annotations


from tests.helpers.cli import results_of, verdict_by_hand
from tests.helpers.git_projects import git_repo


def test_a_mutant_only_a_failing_subtest_catches_is_killed_as_by_hand(project, teeth):
    root = git_repo(project("subtest_failures"))
    done = teeth("run", "--target", "halves", "--no-cache", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    rows = {row["mutant"]: row for row in results_of(teeth, root)}
    assert rows
    swapped = [m for m, row in rows.items() if row["operator"] == "generic.swap_op"]
    assert swapped, {m: row["operator"] for m, row in rows.items()}
    for mutant in swapped:
        assert rows[mutant]["status"] == "killed" == verdict_by_hand(teeth, root, mutant), rows[mutant]
