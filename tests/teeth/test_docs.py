"""README holds to the code: its operator table names every registered operator and no other, and its command list
(the block under "Using it") shows every `teeth` command and subcommand, and no other, each line parsing as written."""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

import click
import pytest

from teeth.cli import main
from teeth.operators import BUILTIN_PROVIDERS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def section(text: str, heading: str) -> str:
    """The body of a `## heading` section, up to the next heading of level 2."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def operator_rows(text: str) -> list[str]:
    """The names in the first column of the README's operator table (`generic.*` stands for a family)."""
    return re.findall(r"^\| `([^`]+)` \|", section(text, "Operators"), flags=re.M)


def command_lines(text: str) -> list[str]:
    """The `teeth ...` lines of the first code block under "Using it", comments cut."""
    block = re.search(r"```\n(.*?)```", section(text, "Using it"), re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.startswith("teeth ")]


def command_path(words: list[str]) -> tuple[str, ...]:
    """The command and subcommands a command line's leading words name (`serve token create NAME`: three)."""
    path, command = [], main
    for word in words:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
        path.append(word)
    return tuple(path)


def commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every command a user can run: each leaf command, and each group that does something without a subcommand."""
    found = set()
    for name, command in group.commands.items():
        path = (*prefix, name)
        if isinstance(command, click.Group):
            found |= commands(command, path)
            if not command.invoke_without_command:
                continue
        found.add(path)
    return found


def teeths_operators() -> set[str]:
    """The operators teeth registers itself (its entry-point providers); a plug-in's are its own package's to
    document."""
    return {op.name for provider in BUILTIN_PROVIDERS for op in provider.load()()}


def operator_mismatch(text: str) -> tuple[set[str], set[str]]:
    """(registered operators the table lacks, table rows that match no registered operator)."""
    names = teeths_operators()
    rows = operator_rows(text)
    covered = {name for name in names if any(fnmatch.fnmatchcase(name, row) for row in rows)}
    return names - covered, {row for row in rows if not fnmatch.filter(names, row)}


def command_mismatch(text: str) -> tuple[set[tuple[str, ...]], set[str]]:
    """(commands the list lacks, lines of the list that name no command)."""
    shown = {line: command_path(shlex.split(line)[1:]) for line in command_lines(text)}
    return commands() - set(shown.values()), {line for line, path in shown.items() if not path}


def test_every_registered_operator_has_a_row_in_the_readme_table_and_every_row_an_operator():
    assert operator_mismatch(README) == (set(), set())


def test_every_command_is_in_the_readme_command_list_and_every_line_names_a_command():
    assert command_mismatch(README) == (set(), set())


@pytest.mark.parametrize("line", command_lines(README))
def test_every_line_of_the_readme_command_list_parses_as_written(line):
    words = shlex.split(line)[1:]
    path = command_path(words)
    command = main
    for name in path:
        command = command.commands[name]
    try:
        command.make_context(" ".join(path), words[len(path):])
    except click.ClickException as exc:
        pytest.fail(f"{line}: {exc.format_message()}")


def test_a_readme_without_an_operator_row_or_a_command_line_fails_the_checks():
    without_row = re.sub(r"^\| `dropped_store` \|.*\n", "", README, flags=re.M)
    assert operator_mismatch(without_row) == ({"dropped_store"}, set())
    without_generic = re.sub(r"^\| `generic\.\*` \|.*\n", "", README, flags=re.M)
    assert "generic.number" in operator_mismatch(without_generic)[0]
    with_stranger = README.replace("| `dropped_store` |", "| `dropped_stores` |")
    assert operator_mismatch(with_stranger) == ({"dropped_store"}, {"dropped_stores"})
    without_badge = re.sub(r"^teeth badge .*\n", "", README, flags=re.M)
    assert command_mismatch(without_badge) == ({("badge",)}, set())
    with_stranger = README.replace("teeth operators ", "teeth operator ")
    assert command_mismatch(with_stranger) == ({("operators",)}, {"teeth operator"})


def test_ci_runs_the_readmes_test_command_after_building_a_fresh_environment():
    """The README's second line (`bash scripts/setup.sh && python -m pytest ...`) is what .ci/run runs, in a virtual
    environment it has just made: a newcomer's command, not one CI's machine happens to pass."""
    command = next(line.split("#")[0].strip() for line in README.splitlines() if "python -m pytest" in line)
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text().splitlines()
    assert command in ci
    assert any(line.startswith("python3 -m venv ") for line in ci[:ci.index(command)])
