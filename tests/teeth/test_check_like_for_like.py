"""The drop gate of `teeth check` is like for like: the changed functions against the same functions' mutants under
the base run; a function new since the base has no base (fail_under and required bug classes only); survivors that do
not gate are annotated as warnings."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.helpers.git_projects import TAKE_ROWS, TAKE_ROWS_CHANGED, check, edit, git, git_repo

from teeth.gate.policy import Policy, Verdict
from teeth.store.records import Result
from teeth.report.github import annotations
from tests.helpers.mutants import result

TOTAL = "    return result\n"
TOTAL_WITH_UNCAUGHT_CODE = "    if result > 1000:\n        result = result - 1000\n    return result\n"
NEW_FUNCTION = "\n\ndef first_rows(batch, size):\n    return batch[0:size]\n"


def based(project, teeth, **config):
    """weak_suite on branch feature, with a whole `teeth run` at the base (run 1: the target's rate is 8/10)."""
    root = git_repo(project("weak_suite"), required_operators="[]", **config)
    git(root, "checkout", "-q", "main")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    git(root, "checkout", "-q", "feature")
    return root


def test_an_edit_that_adds_kills_passes_though_its_rate_is_under_the_whole_targets(project, teeth):
    root = based(project, teeth, tolerance="0.05")
    edit(root, TAKE_ROWS, TAKE_ROWS_CHANGED)  # take_rows: 4/6 under the base, 5/7 now; the target: 8/10
    done = check(teeth, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "same functions 71.4% now, 66.7% under the base (run 1)" in done.stdout


def test_a_drop_of_the_changed_function_against_its_own_base_fails_though_it_beats_the_whole_target(project, teeth):
    root = based(project, teeth, tolerance="0.05")
    edit(root, TOTAL, TOTAL_WITH_UNCAUGHT_CODE)  # total: every mutant killed at the base; now some survive
    done = check(teeth, root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "of the changed functions dropped below the same functions' 100.0% under the base (run 1)" in done.stdout


def test_a_new_function_has_no_base_and_is_not_drop_checked(project, teeth):
    root = based(project, teeth, tolerance="0.05")
    path = root / "rows.py"
    path.write_text(path.read_text() + NEW_FUNCTION)  # untested: its mutants have no coverage
    git(root, "commit", "-q", "-am", "a new function")
    done = check(teeth, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "new since the base (no drop check; fail_under and required bug classes only): rows.py: first_rows" \
        in done.stdout
    fenced = root / "pyproject.toml"
    fenced.write_text(fenced.read_text().replace("tolerance = 0.05", "tolerance = 0.05\nfail_under = 0.5"))
    assert check(teeth, root).returncode == 1  # fail_under still judges it


def survivor(operator: str) -> Result:
    return result("abc123abc123", line=3, operator=operator, original="start", replacement="0")


def test_a_survivor_that_does_not_gate_is_a_warning_and_a_required_one_an_error(tmp_path):
    rows = [survivor("generic.number"), survivor("wrong_slice_start")]
    verdict = Verdict("rows", 1, rows, Policy(None, 0.0, {"wrong_slice_start"}), "0" * 40)
    check_ = SimpleNamespace(verdict=verdict, target=SimpleNamespace(root=tmp_path),
                             changes=SimpleNamespace(toplevel=Path(tmp_path)))
    warning, error = annotations([check_])
    assert warning.startswith("::warning file=rows.py,line=3,") and "not gating" in warning
    assert error.startswith("::error file=rows.py,line=3,") and "required bug class" in error
