"""benchmarks/field_bugs.py on a small package of its own: a bug model applied to a copy (never the original), its
verdict from the package's tests, the text-keyed stores it counts, and the configs it refuses."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field_bugs.py"

ROWS = '''\
def add_rows(out, idx, y):
    for i, v in zip(idx, y):
        out[i] += v
    return out


def names(d, k, v):
    d["offsets"] = v
    cache = {}
    cache[k] = v
    out = [0, 0, 0]
    out[k] = v
    return d, cache, out
'''

TEST = '''\
from grouppkg.rows import add_rows


def test_each_row_gets_its_delta():
    assert add_rows([1, 1, 1], [0, 2], [1, 2]) == [2, 1, 3]
'''

CONFIG = '''
[package]
install = ["grouppkg==1.0"]
tests_repo = "someone/grouppkg"
tests_ref = "v1"
tests = ["test"]
import = "grouppkg"

[tool.teeth.targets.grouppkg]
modules = ["grouppkg.rows"]
tests = ["tests/test_rows.py"]
pytest_args = ["-p", "no:cacheprovider"]
'''


@pytest.fixture
def field_bugs():
    spec = importlib.util.spec_from_file_location("field_bugs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """grouppkg "installed" under tmp_path/site, its tests in tmp_path/project/tests."""
    package = tmp_path / "site" / "grouppkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rows.py").write_text(ROWS)
    project = tmp_path / "project" / "tests"
    project.mkdir(parents=True)
    (project / "test_rows.py").write_text(TEST)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    importlib.invalidate_caches()
    yield tmp_path
    sys.modules.pop("grouppkg", None)
    sys.modules.pop("grouppkg.rows", None)


def bug(old: str, new: str) -> dict:
    return {"bug": "a bug", "module": "grouppkg.rows", "old": old, "new": new}


def test_a_bug_model_is_applied_to_a_copy_and_judged_by_the_packages_tests(field_bugs, installed, tmp_path):
    target = {"tests": ["tests/test_rows.py"], "pytest_args": ["-p", "no:cacheprovider"]}
    project = installed / "project"
    assert field_bugs.run_tests(project, target, {}, None)[0] == "survived"
    for model, verdict in ((bug("out[i] += v", "pass"), "killed"),
                           (bug("cache[k] = v", "pass"), "survived")):
        copy = tmp_path / f"copy-{verdict}"
        copy.mkdir()
        original, text, line = field_bugs.hand_made({"import": "grouppkg"}, model, copy)
        assert original == installed / "site" / "grouppkg" / "rows.py"
        assert original.read_text() == ROWS  # the install is never written
        assert (copy / "grouppkg" / "rows.py").read_text() == text
        assert line == ROWS[:ROWS.index(model["old"])].count("\n") + 1
        assert field_bugs.run_tests(project, target, {}, str(copy))[0] == verdict


def test_a_pattern_that_is_not_found_once_is_refused(field_bugs, installed, tmp_path):
    with pytest.raises(field_bugs.BugsError, match="occurs 0 times"):
        field_bugs.hand_made({"import": "grouppkg"}, bug("out[i] -= v", "pass"), tmp_path / "a")
    with pytest.raises(field_bugs.BugsError, match="occurs 2 times"):
        field_bugs.hand_made({"import": "grouppkg"}, bug("return", "pass"), tmp_path / "b")


def test_text_keyed_stores_are_counted_and_row_stores_are_not(field_bugs, installed):
    lines = field_bugs.text_keyed_lines(installed / "site" / "grouppkg" / "rows.py")
    source = ROWS.splitlines()
    assert sorted(source[n - 1].strip() for n in lines) == ['cache[k] = v', 'd["offsets"] = v']


def test_the_same_change_is_recognised_whatever_its_layout(field_bugs):
    assert field_bugs.same_code("x = f(a,\n      b)\n", "x = f(a, b)")
    assert not field_bugs.same_code("x = f(a, b)", "x = f(b, a)")


def test_a_config_without_bug_models_is_one_line_and_exit_2(field_bugs, tmp_path, capsys):
    (tmp_path / "grouppkg.toml").write_text(CONFIG)
    assert field_bugs.main(["--package", "grouppkg", "--field", str(tmp_path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no [[bug_models]]" in err[0]
