"""README's exit-code table and the codes teeth's errors carry are the same set."""

from __future__ import annotations

import re
from pathlib import Path

from teeth import cli, errors  # noqa: F401 - cli imports the modules that define errors
from teeth.workers.shadowing import TargetShadowed

README = Path(__file__).resolve().parents[2] / "README.md"


def documented_codes() -> set[int]:
    text = README.read_text()
    table = text[text.index("### Exit codes"):text.index("## Vocabulary")]
    return {int(code) for code in re.findall(r"^\| (\d+) \|", table, flags=re.M)}


def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)


def test_every_exit_code_teeth_uses_is_in_the_readme_table_and_no_other():
    constants = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    assert documented_codes() == constants
    assert {cls.exit_code for cls in subclasses(errors.TeethError)} <= constants
    assert TargetShadowed.exit_code == errors.EXIT_WORKER_FAILED
