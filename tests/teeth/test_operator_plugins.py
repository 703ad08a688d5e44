"""Operators from other packages: a distribution's `teeth.operators` entry point adds a bug class, no teeth edit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.helpers.cli import results_of
from teeth.cli import main
from teeth.config.targets import Target
from teeth.discovery.cache import DiscoveryCache
from teeth.errors import ConfigError
from teeth.operators import all_operators, providers, select_operators
from teeth.discovery.testing import mutants_of

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_blocks(language: str) -> list[str]:
    """The README's `language` code blocks in its "Add an operator" section."""
    text = README.read_text().split("### Add an operator", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


# The plug-in the README's "Add an operator" section shows, as it shows it.
SKIPPED_FIRST_ROW = readme_blocks("python")[0]


def install(folder: Path, module: str, code: str, entry: str) -> Path:
    """A distribution on `folder`: the module, and a dist-info whose entry_points.txt registers `entry`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(code)
    info = folder / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[teeth.operators]\n{entry}\n")
    return folder


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """Install a fake distribution on sys.path (a fresh module name per test)."""

    def add(code: str, entry: str, module: str) -> Path:
        folder = install(tmp_path / "site", module, code, entry.format(module=module))
        monkeypatch.syspath_prepend(str(folder))
        monkeypatch.delitem(sys.modules, module, raising=False)
        return folder

    return add


def test_a_plugin_operator_is_registered_after_the_builtin_ones(plugin):
    plugin(SKIPPED_FIRST_ROW, "rows = {module}:SkippedFirstRow", "rows_plugin")
    names = [o.name for o in all_operators()]
    assert names[-1] == "skipped_first_row"
    assert names.index("zero_storage_offset") < names.index("generic.swap_op") < names.index("skipped_first_row")
    assert [p.name for p in providers()][:2] == ["domain", "generic"]
    assert select_operators(["domain"])[-1].name == "skipped_first_row"  # a bug class, not a generic mutation


def test_a_plugin_operator_mutates_through_discovery(plugin):
    plugin(SKIPPED_FIRST_ROW, "rows = {module}:SkippedFirstRow", "rows_mutating")
    (operator,) = select_operators(["skipped_first_row"])
    for example in operator.examples():
        assert mutants_of(operator, example.before) == list(example.after)
    kernel = "@triton.jit\ndef k(batch):\n    for row in batch:\n        pass\n"
    assert mutants_of(operator, kernel) == []  # its context says it is inside a kernel


def test_a_provider_function_may_register_several_operators(plugin):
    code = SKIPPED_FIRST_ROW + "\n\ndef provide():\n    return [SkippedFirstRow()]\n"
    plugin(code, "rows = {module}:provide", "rows_provider")
    assert "skipped_first_row" in {o.name for o in all_operators()}


def test_a_provider_that_fails_to_load_is_one_line_config_error(plugin):
    plugin("raise ImportError('needs numpy')\n", "broken = {module}:nothing", "broken_plugin")
    with pytest.raises(ConfigError, match=r"operator provider 'broken' \(broken_plugin:nothing\) cannot be loaded: "
                                          r"ImportError: needs numpy"):
        all_operators()
    done = CliRunner().invoke(main, ["operators"])
    assert done.exit_code == 2
    assert done.output.strip().splitlines() == [
        "teeth: error: operator provider 'broken' (broken_plugin:nothing) cannot be loaded: ImportError: needs numpy"]


def test_an_operator_name_registered_twice_is_a_config_error(plugin):
    code = SKIPPED_FIRST_ROW + "\n\nclass Clash(SkippedFirstRow):\n    name = 'whole_batch'\n"
    plugin(code, "clash = {module}:Clash", "clash_plugin")
    with pytest.raises(ConfigError, match="operator 'whole_batch' is registered twice: by operator provider "
                                          "'domain' and by 'clash'"):
        all_operators()


def test_a_plugin_operator_runs_and_its_mutant_is_killed(tmp_path, project):
    site = install(tmp_path / "site", "rows_e2e", SKIPPED_FIRST_ROW, "rows = rows_e2e:SkippedFirstRow")
    root = project("weak_suite")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def teeth(*args: str, cwd: Path) -> subprocess.CompletedProcess:
        db = ["--db", str(tmp_path / "teeth.db")]
        return subprocess.run([sys.executable, "-m", "teeth.cli", *args, *db], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=300)

    done = teeth("run", "--target", "rows", "--operator", "skipped_first_row", cwd=root)
    assert done.returncode == 0, done.stderr
    (row,) = results_of(teeth, root)
    assert (row["operator"], row["function"], row["status"]) == ("skipped_first_row", "total", "killed")
    assert row["killed_by"] == "tests/test_rows.py::test_total_of_a_batch"


def test_an_edited_plugin_operator_is_discovered_again_not_read_from_the_cache(plugin, tmp_path):
    folder = plugin(SKIPPED_FIRST_ROW, "rows = {module}:SkippedFirstRow", "rows_cached")
    source = tmp_path / "loop.py"
    source.write_text("def total(batch):\n    for row in batch:\n        pass\n")
    target = Target(name="loop", root=tmp_path, files=[source], tests=["tests"])
    cache = DiscoveryCache(tmp_path / "cache")
    operators = select_operators(["skipped_first_row"])
    first = cache.discover(target, operators).mutants
    (folder / "rows_cached.py").write_text(SKIPPED_FIRST_ROW.replace("[1:]", "[2:]"))
    sys.modules.pop("rows_cached")
    edited = select_operators(["skipped_first_row"])
    second = cache.discover(target, edited).mutants
    assert (cache.misses, cache.hits) == (2, 0)
    assert [m.replacement for m in first] != [m.replacement for m in second]


def test_the_readme_registers_and_tests_its_operator_as_these_tests_do(plugin):
    (entry,) = re.findall(r'^(\w+ = "[\w.:]+")$', readme_blocks("toml")[0], re.M)
    name, value = entry.replace('"', "").split(" = ")
    plugin(SKIPPED_FIRST_ROW, f"{name} = {value.replace('rows_operators', '{module}')}", "rows_operators")
    namespace: dict = {}
    exec(readme_blocks("python")[1], namespace)
    namespace["test_skipped_first_row_makes_its_examples"]()
