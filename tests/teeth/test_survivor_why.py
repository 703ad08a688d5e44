"""Why a survivor survived, shown everywhere: results (table, JSON, lines, Stryker's statusReason), show, the HTML
report (survivors grouped by why)."""

from __future__ import annotations

import json

from tests.helpers.cli import results_of


def test_every_output_says_why_a_survivor_survived(project, teeth, tmp_path):
    root = project("fresh_batches_only")
    assert teeth("run", "--target", "rows", cwd=root).returncode == 0
    rows = results_of(teeth, root)
    offset = next(r for r in rows if r["operator"] == "zero_storage_offset")
    assert offset["why"] == "not_infected" and all(r["why"] is None for r in rows if r["status"] == "killed")

    table = teeth("results", cwd=root).stdout
    assert "not_infected" in table
    lines = teeth("results", "--format", "lines", cwd=root).stdout.splitlines()
    assert any(line.endswith(f"(mutant {offset['mutant']})") and "survived (not_infected) zero_storage_offset" in line
               for line in lines)
    stryker = json.loads(teeth("results", "--format", "stryker", cwd=root).stdout)
    reasons = {m["id"]: m.get("statusReason") for f in stryker["files"].values() for m in f["mutants"]}
    assert reasons[offset["mutant"]].startswith("not_infected: batch.storage_offset() was 0 in all 2 evaluations")

    shown = teeth("show", offset["mutant"], cwd=root).stdout
    assert "survived (not_infected) - batch.storage_offset() was 0" in shown
    assert "why it survived: no test builds a state where the mutant computes another value" in shown
    assert "a test that would kill it: a new input" in shown

    out = tmp_path / "html"
    done = teeth("report", "--html", str(out), "--db", str(teeth.db), cwd=root, use_db=False)
    assert done.returncode == 0, done.stderr
    page = (out / "index.html").read_text()
    grouped = page.index('id="survived-not_infected"')
    assert offset["mutant"] in page[grouped:page.index("<h2", grouped + 1)]
    assert grouped < page.index('id="survived-not_checked"')  # in the order of reach, infect, propagate, check
    assert 'id="survived"' not in page  # every survivor carries a why
