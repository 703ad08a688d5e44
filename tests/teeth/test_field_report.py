"""benchmarks/field_report.py without the network or the real mirrors: its config, mirror checks, test extraction and
the survivors it lists from a teeth database."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from teeth.store.db import Store
from tests.helpers.mutants import record_outcome_rows

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field_report.py"


@pytest.fixture(scope="module")
def field_report():
    spec = importlib.util.spec_from_file_location("field_report", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["field_report"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


CONFIG = """
[package]
install = ["rowpkg==1.0"]
tests_repo = "someone/rowpkg"
tests_ref = "{tag}"
tests = ["test/unit/test_rows.py"]
import = "rowpkg"

[tool.teeth.targets.rowpkg]
modules = ["rowpkg.rows"]
tests = ["tests/test/unit/test_rows.py"]
"""


def field_dir(tmp_path: Path, tag: str = "v1.0") -> Path:
    field = tmp_path / "field"
    field.mkdir()
    (field / "rowpkg.toml").write_text(CONFIG.format(tag=tag))
    return field


def upstream(mirror_root: Path, work: Path) -> Path:
    """A bare mirror someone+rowpkg/repo with tag v1.0: test/conftest.py, test/unit/{conftest,test_rows,test_other}.py."""
    for path in ("test/conftest.py", "test/unit/conftest.py", "test/unit/test_rows.py", "test/unit/test_other.py",
                 "src/rowpkg/rows.py"):
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(f"# {path}\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "release"], check=True)
    subprocess.run([*git, "tag", "v1.0"], check=True)
    bare = mirror_root / "someone+rowpkg" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def assert_one_line(done: subprocess.CompletedProcess, code: int, *fragments: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_a_missing_mirror_is_one_line_saying_what_to_fetch(tmp_path):
    done = run_script("--field", str(field_dir(tmp_path)), "--mirror-root", str(tmp_path / "mirrors"),
                      "--out", str(tmp_path / "out"))
    assert_one_line(done, 2, "no mirror of someone/rowpkg", "fetch github:someone/rowpkg")
    assert not (tmp_path / "out").exists()


def test_a_tag_missing_from_the_mirror_is_one_line_naming_the_tag(tmp_path):
    upstream(tmp_path / "mirrors", tmp_path / "work")
    done = run_script("--field", str(field_dir(tmp_path, tag="v2.0")), "--mirror-root", str(tmp_path / "mirrors"),
                      "--out", str(tmp_path / "out"))
    assert_one_line(done, 2, "tag v2.0 not in the mirror", "fetch github:someone/rowpkg")


def test_a_config_without_its_package_table_is_one_line(tmp_path):
    field = tmp_path / "field"
    field.mkdir()
    (field / "rowpkg.toml").write_text("[tool.teeth.targets.rowpkg]\nmodules = ['rowpkg.rows']\n")
    done = run_script("--field", str(field), "--mirror-root", str(tmp_path))
    assert_one_line(done, 2, "no [package] table")


def test_a_package_key_missing_or_unknown_is_named(field_report, tmp_path):
    config = tmp_path / "rowpkg.toml"
    config.write_text(CONFIG.format(tag="v1.0").replace('import = "rowpkg"', 'imports = "rowpkg"'))
    with pytest.raises(field_report.FieldError, match="missing import; unknown imports"):
        field_report.load_package(config)


def test_a_package_env_must_be_a_table_of_strings(field_report, tmp_path):
    config = tmp_path / "rowpkg.toml"
    config.write_text(CONFIG.format(tag="v1.0").replace('import = "rowpkg"', 'import = "rowpkg"\nenv = { N = 1 }'))
    with pytest.raises(field_report.FieldError, match="env must be a table of strings"):
        field_report.load_package(config)
    config.write_text(CONFIG.format(tag="v1.0").replace('import = "rowpkg"', 'import = "rowpkg"\nenv = { N = "1" }'))
    assert field_report.load_package(config).env == {"N": "1"}


def test_the_tests_are_extracted_at_the_tag_with_the_conftests_above_them_and_nothing_else(field_report, tmp_path):
    bare = upstream(tmp_path / "mirrors", tmp_path / "work")
    package = field_report.load_package(field_dir(tmp_path) / "rowpkg.toml")
    assert field_report.mirror(package, tmp_path / "mirrors") == bare
    field_report.extract_tests(package, bare, tmp_path / "tests")
    found = sorted(p.relative_to(tmp_path / "tests").as_posix() for p in (tmp_path / "tests").rglob("*.py"))
    assert found == ["test/conftest.py", "test/unit/conftest.py", "test/unit/test_rows.py"]
    assert (tmp_path / "tests" / "test/unit/test_rows.py").read_text() == "# test/unit/test_rows.py\n"


def test_a_test_path_not_in_the_repository_at_the_tag_is_named(field_report, tmp_path):
    bare = upstream(tmp_path / "mirrors", tmp_path / "work")
    config = field_dir(tmp_path) / "rowpkg.toml"
    config.write_text(config.read_text().replace('"test/unit/test_rows.py"]', '"test/unit/test_gone.py"]'))
    with pytest.raises(field_report.FieldError, match="test/unit/test_gone.py is not in someone/rowpkg at v1.0"):
        field_report.extract_tests(field_report.load_package(config), bare, tmp_path / "tests")


def test_the_figures_list_surviving_domain_mutants_only_and_split_kill_rates_by_group(field_report, tmp_path):
    store = Store(tmp_path / "t.db")
    run_id = store.start_run("rowpkg", ["cpu"], [], {})
    mutants = [("a1", "whole_batch", "survived", None), ("a2", "view_to_copy", "skipped", "equivalent: only read"),
               ("a3", "generic.number", "survived", None), ("a4", "wrong_slice_start", "killed", None),
               ("a5", "dropped_replacement", "no_coverage", None), ("a6", "generic.string", "killed", None)]
    store.record_mutants([SimpleNamespace(id=i, target="rowpkg", file="rowpkg/rows.py", line=n + 1, end_line=n + 1,
                                          function="take", op="take", operator=op, original="x[1:]", replacement="x",
                                          diff="", skip=skip) for n, (i, op, _, skip) in enumerate(mutants)])
    record_outcome_rows(store, run_id, [{"mutant_id": i, "profile": "cpu", "status": status, "detail": skip}
                                   for i, _, status, skip in mutants])
    store.finish_run(run_id, "completed", {}, {})
    figures = field_report.teeth_figures(tmp_path / "t.db")
    assert [(s["id"], s["status"], s["where"]) for s in figures["domain_survivors"]] == [
        ("a1", "survived", "rowpkg/rows.py:1"), ("a5", "no_coverage", "rowpkg/rows.py:5")]
    assert figures["domain_survivors"][0]["change"] == "x[1:] -> x"
    assert figures["groups"]["domain"]["kill_rate"] == pytest.approx(1 / 3)
    assert figures["groups"]["generic"]["kill_rate"] == pytest.approx(1 / 2)
    assert figures["skipped"] == {"equivalent: only read": 1}


def test_a_mutmut_diff_becomes_one_line_of_its_changed_lines(field_report):
    diff = "--- a.py\n+++ a.py\n@@ -1,3 +1,3 @@\n def f(x):\n-    return x[1:]\n+    return x[2:]\n"
    assert field_report.changed_lines(diff) == "- return x[1:]  + return x[2:]"


def test_a_commit_stands_for_a_tag_where_the_repository_tags_no_release(field_report, tmp_path):
    bare = upstream(tmp_path / "mirrors", tmp_path / "work")
    commit = subprocess.run(["git", "--git-dir", str(bare), "rev-parse", "v1.0^{commit}"], capture_output=True,
                            text=True, check=True).stdout.strip()
    package = field_report.load_package(field_dir(tmp_path, tag=commit[:7]) / "rowpkg.toml")
    assert field_report.mirror(package, tmp_path / "mirrors") == bare
    field_report.extract_tests(package, bare, tmp_path / "out")
    assert (tmp_path / "out" / "test" / "unit" / "test_rows.py").is_file()
