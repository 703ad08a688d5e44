"""Target files are read as Python reads them: a PEP 263 coding line, a UTF-8 byte order mark; mutants keep the text."""

from __future__ import annotations

import json

from click.testing import CliRunner

from teeth.cli import main
from teeth.config.targets import Target
from teeth.discovery.discover import discover_file
from teeth.operators import all_operators

LATIN = "# -*- coding: latin-1 -*-\n\n\ndef shout(x):\n    return x + 1  # café\n"
BOM = "def twice(x):\n    return x * 2\n"
TESTS = "from bom import twice\nfrom latin import shout\n\n\ndef test_shout():\n    assert shout(1) == 2\n\n\n" \
        "def test_twice():\n    assert twice(3) == 6\n"


def encoded_project(root):
    root.mkdir()
    (root / "latin.py").write_bytes(LATIN.encode("latin-1"))
    (root / "bom.py").write_bytes(b"\xef\xbb\xbf" + BOM.encode())
    (root / "tests").mkdir()
    (root / "tests" / "test_encoded.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.teeth.targets.encoded]\nfiles = ["latin.py", "bom.py"]\n'
                                         'tests = ["tests"]\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n')
    return root


def target(root):
    return Target(name="encoded", root=root, files=[root / "latin.py", root / "bom.py"], tests=["tests"])


def test_a_latin1_file_with_a_coding_line_is_mutated_with_its_text_intact(tmp_path):
    root = encoded_project(tmp_path / "p")
    found = discover_file(target(root), root / "latin.py", all_operators())
    assert found.mutants and found.unviable == 0
    assert all("# café" in m.code and "# café" in m.diff for m in found.mutants)


def test_a_file_starting_with_a_utf8_bom_has_viable_mutants(tmp_path):
    root = encoded_project(tmp_path / "p")
    found = discover_file(target(root), root / "bom.py", all_operators())
    assert found.mutants and found.unviable == 0
    assert not any(m.code.startswith("\ufeff") for m in found.mutants)


def test_mutants_of_encoded_files_run_and_are_shown_with_their_text(tmp_path):
    root = encoded_project(tmp_path / "p")
    db = ["--db", str(tmp_path / "teeth.db")]
    done = CliRunner().invoke(main, ["run", "--target", "encoded", "--config", str(root / "pyproject.toml"), *db])
    assert done.exit_code == 0, (done.output, done.exception)
    rows = json.loads(CliRunner().invoke(main, ["results", "--format", "json", *db]).stdout)
    assert {r["file"] for r in rows} == {"latin.py", "bom.py"}
    assert {r["status"] for r in rows} <= {"killed", "survived"}, [r for r in rows if r["status"] not in
                                                                   ("killed", "survived")]
    assert any(r["status"] == "killed" for r in rows if r["file"] == "latin.py")
    latin = next(r["mutant"] for r in rows if r["file"] == "latin.py")
    shown = CliRunner().invoke(main, ["show", latin, "--format", "json", *db])
    assert "# café" in json.loads(shown.stdout)["diff"]


def test_the_html_report_shows_an_encoded_file_as_python_reads_it(tmp_path):
    from teeth.report.html_source import read_source

    root = encoded_project(tmp_path / "p")
    assert read_source(root, "latin.py")[4] == "    return x + 1  # café"
    assert read_source(root, "bom.py")[0] == "def twice(x):"
