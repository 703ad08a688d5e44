"""A target whose tests import another copy of its modules stops after the baseline, naming both paths (exit 4)."""

from __future__ import annotations

from types import SimpleNamespace

from click.testing import CliRunner

from teeth.cli import main


def test_a_shadowed_target_stops_naming_both_paths(project, tmp_path):
    root = project("shadowed_target")
    done = CliRunner().invoke(main, ["run", "--target", "rows", "--config", str(root / "pyproject.toml"),
                                     "--db", str(tmp_path / "teeth.db")])
    assert done.exit_code == 4, (done.exit_code, done.output, done.exception)
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.output and isinstance(done.exception, SystemExit)
    assert str(root / "installed" / "shadowed_rows" / "rows.py") in lines[-1]
    assert str(root / "shadowed_rows" / "rows.py") in lines[-1]


def module(path):
    return SimpleNamespace(__file__=str(path))


def shadowing(files, modules):
    from teeth.workers.shadowing import shadowing

    return shadowing(files, modules)


def test_a_target_imported_from_its_own_files_is_not_shadowed(tmp_path):
    own, other = tmp_path / "repo" / "pkg" / "a.py", tmp_path / "site" / "pkg" / "b.py"
    modules = {"pkg.a": module(own), "pkg.b": module(other)}
    assert shadowing([str(own), str(tmp_path / "repo" / "pkg" / "b.py")], modules) is None


def test_a_module_of_the_same_name_from_elsewhere_is_found(tmp_path):
    own, other = tmp_path / "repo" / "src" / "pkg" / "a.py", tmp_path / "site" / "pkg" / "a.py"
    assert shadowing([str(own)], {"pkg.a": module(other)}) == (str(own), str(other))
    assert shadowing([str(own)], {"a": module(tmp_path / "elsewhere" / "b.py")}) is None
