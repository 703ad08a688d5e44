"""docs/internals.md's module table holds to src/teeth: every module of teeth is in the table (by name, or by its
folder as `folder/*` or `folder/`), and every module or folder the table names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "teeth"
INTERNALS = (ROOT / "docs" / "internals.md").read_text(encoding="utf-8")


def table_names(text: str) -> set[str]:
    """The modules (`store.py`, `workers/base.py`) and folders (`report/*`, `equivalence/`) that the "modules" column
    of the table under "Modules and what each may touch" names."""
    start = text.index("\n## Modules and what each may touch\n")
    end = text.find("\n## ", start + 1)
    rows = [line for line in text[start:end].splitlines() if line.startswith("|")]
    column = [cell.strip() for cell in rows[0].strip("|").split("|")].index("modules")
    names = set()
    for row in rows[2:]:  # after the header and its rule
        cell = row.strip("|").split("|")[column]
        names |= {name for name in re.findall(r"`([^`\s]+)`", cell) if name.endswith((".py", "/*", "/"))}
    return names


def teeths_modules() -> set[str]:
    """Every module of src/teeth, as a path from the package (a package's `__init__.py` is its folder's)."""
    return {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"}


def mismatch(names: set[str], modules: set[str]) -> tuple[set[str], set[str]]:
    """(modules the table lacks, names in the table that are no module or folder of teeth)."""
    folders = {name.rstrip("/*") for name in names if not name.endswith(".py")}
    missing = {m for m in modules if m not in names and not any(m.startswith(f + "/") for f in folders)}
    stray = {n for n in names if (n.endswith(".py") and n not in modules and not (PACKAGE / n).is_file())
             or (not n.endswith(".py") and not (PACKAGE / n.rstrip("/*")).is_dir())}
    return missing, stray


def test_every_module_of_teeth_is_in_the_internals_table_and_every_name_there_exists():
    assert mismatch(table_names(INTERNALS), teeths_modules()) == (set(), set())


def test_a_table_without_a_module_or_with_a_stranger_fails_the_check():
    without_gate = INTERNALS.replace("`gate/policy.py`", "gate")
    assert mismatch(table_names(without_gate), teeths_modules()) == ({"gate/policy.py"}, set())
    without_reports = INTERNALS.replace("`report/*`", "reports")
    assert "report/html.py" in mismatch(table_names(without_reports), teeths_modules())[0]
    with_stranger = INTERNALS.replace("`gate/policy.py`", "`gate/policies.py`")
    assert mismatch(table_names(with_stranger), teeths_modules()) == ({"gate/policy.py"}, {"gate/policies.py"})
    with_gone_folder = INTERNALS.replace("`serve/*`", "`serving/*`")
    assert "serving/*" in mismatch(table_names(with_gone_folder), teeths_modules())[1]
