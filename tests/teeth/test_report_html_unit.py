"""The HTML report as a library: escaping, file pages that stay inside DIR, and sources that are missing or changed."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from teeth.errors import TeethError
from teeth.report.html import write_html_report
from teeth.report.html_page import file_page_name
from teeth.store.db import Store
from tests.helpers.mutants import record_outcome_rows
from tests.helpers.html import parse, text_of

SOURCE = 'def check(a, b):\n    return a < b & 1  # "<script>alert(1)</script>"\n# end\n'
DIFF = ("--- a/lib/check.py\n+++ b/lib/check.py\n@@ -1,2 +1,2 @@\n def check(a, b):\n"
        "-    return a < b & 1\n+    return a <= b & 1\n")


def store_with_run(tmp_path: Path, file: str = "lib/check.py") -> Store:
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run("lib", ["cpu"], [], {"commit": "0123456789abcdef", "dirty": 1})
    store.record_mutants([SimpleNamespace(
        id=ident, target="lib", file=file, line=2, end_line=2, function="check", op="check<T>",
        operator="generic.swap_op", original="a < b & 1", replacement="a <= b & 1", diff=DIFF, skip=None)
        for ident in ("m-survives", "m-killed")] + [SimpleNamespace(
        id="m-error", target="lib", file=file, line=1, end_line=1, function="check", op="check<T>",
        operator="generic.name", original="def check(a, b):", replacement="", diff="", skip=None)])
    record_outcome_rows(store, run_id, [
        {"mutant_id": "m-survives", "profile": "cpu", "status": "survived"},
        {"mutant_id": "m-killed", "profile": "cpu", "status": "killed", "killed_by": "tests/t.py::test_<lt>"},
        {"mutant_id": "m-error", "profile": "cpu", "status": "error", "detail": "SIGSEGV"}])
    store.finish_run(run_id, "completed", {}, {})
    return store


@pytest.fixture
def source_root(tmp_path):
    root = tmp_path / "project"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "check.py").write_text(SOURCE)
    return root


def all_pages(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text() for p in out.rglob("*.html")}


def test_sources_diffs_and_names_are_escaped_everywhere(tmp_path, source_root):
    out = tmp_path / "report"
    write_html_report(store_with_run(tmp_path), 1, out, source_root)
    pages = all_pages(out)
    assert set(pages) == {"index.html", file_page_name("lib/check.py")}
    for text in pages.values():
        page = parse(text)
        assert not page.tags() & {"script", "t"}  # neither the source's <script> nor the op's <T> is an element
        assert "check<T>" in page.text
    page = parse(pages[file_page_name("lib/check.py")])
    assert [e.text for e in page.find("td", "code")][1] == '    return a < b & 1  # "<script>alert(1)</script>"'
    (added,) = parse(pages["index.html"]).find("span", "d-add")
    assert added.text == "+    return a <= b & 1"


def test_the_file_page_marks_the_line_with_a_survivor_and_shows_its_diff(tmp_path, source_root):
    out = tmp_path / "report"
    write_html_report(store_with_run(tmp_path), 1, out, source_root)
    page = (out / file_page_name("lib/check.py")).read_text()
    line = re.search(r'<tr id="L2"[^>]*>.*?</tr>', page, re.S).group(0)
    assert 'class="line-survived"' in line and "✗1" in line and "✓1" in line
    assert 'data-mutant="m-survives"' in page and 'data-mutant="m-killed"' not in page
    assert '<tr id="L1" class="line-other">' in page and "·1" in page  # errors are not counted either way
    assert '<tr id="L3">' in page  # a line with no mutants is plain


def test_a_missing_source_is_noted_and_the_mutated_lines_still_shown(tmp_path):
    out = tmp_path / "report"
    write_html_report(store_with_run(tmp_path), 1, out, tmp_path / "nowhere")
    page = (out / file_page_name("lib/check.py")).read_text()
    assert "could not be read" in text_of(page) and "return a < b & 1" in text_of(page)


def test_a_source_changed_since_the_run_is_noted(tmp_path, source_root):
    (source_root / "lib" / "check.py").write_text("# a new first line\n" + SOURCE)
    out = tmp_path / "report"
    write_html_report(store_with_run(tmp_path), 1, out, source_root)
    assert "no longer match the source" in (out / file_page_name("lib/check.py")).read_text()


def test_pages_for_odd_file_names_stay_inside_the_report_folder(tmp_path):
    out = tmp_path / "deep" / "report"
    write_html_report(store_with_run(tmp_path, file="../../escape/../x y.py"), 1, out, tmp_path)
    written = [p for p in tmp_path.rglob("*.html")]
    assert written and all(out in p.parents for p in written)
    assert file_page_name("../../a.py").startswith("files/") and "/" not in file_page_name("../../a.py")[6:]


def test_an_existing_file_is_refused_as_the_report_folder(tmp_path, source_root):
    blocker = tmp_path / "report"
    blocker.write_text("keep me")
    with pytest.raises(TeethError, match="is an existing file"):
        write_html_report(store_with_run(tmp_path), 1, blocker, source_root)
    assert blocker.read_text() == "keep me"


def hostile(field: str) -> str:
    return f"<script>{field}</script><img src=x onerror={field}>"


def test_every_stored_text_is_escaped_by_the_templates_autoescape(tmp_path):
    """Each text the pages show from the database (and a source that cannot be read, shown from the stored
    original) carries markup; on every page it is text, never an element: the templates' autoescape is on."""
    store = Store(tmp_path / "teeth.db")
    run_id = store.start_run(hostile("target"), [hostile("profile")], [],
                             {"commit": hostile("commit"), "dirty": 0})
    file = f"lib/{hostile('file')}.py"
    store.record_mutants([SimpleNamespace(
        id=hostile(f"id{n}"), target=hostile("target"), file=file, line=n, end_line=n, function=hostile("function"),
        op=hostile("op"), operator=hostile("operator"), original=f"x = '{hostile('original')}'",
        replacement="x = ''", diff=f"@@ -{n} +{n} @@\n-x = '{hostile('diff')}'\n+x = ''\n", skip=None)
        for n in (1, 2)])
    record_outcome_rows(store, run_id, [
        {"mutant_id": hostile("id1"), "profile": hostile("profile"), "status": "survived"},
        {"mutant_id": hostile("id2"), "profile": hostile("profile"), "status": "killed",
         "killed_by": hostile("killed_by")}])
    store.finish_run(run_id, "completed", {}, {})
    out = tmp_path / "report"
    write_html_report(store, run_id, out, tmp_path / "no-sources")
    pages = all_pages(out)
    assert set(pages) == {"index.html", file_page_name(file)}
    for text in pages.values():
        assert "<script" not in text and "<img" not in text
    shown = {"index.html": ("target", "profile", "file", "id1", "op", "operator", "diff"),
             file_page_name(file): ("target", "file", "id1", "id2", "op", "operator", "killed_by", "original", "diff")}
    for name, fields in shown.items():
        page = parse(pages[name])
        assert not page.tags() & {"script", "img"}
        for field in fields:  # in text or an attribute (id2 and killed_by: a badge's title), or highlighted code
            markup = f"<script>{field}</script>"
            assert markup in page.text or any(markup in value for value in page.attribute_values()), (name, field)


def tokens(spans) -> list[tuple[list[str], str]]:
    """Pygments' token spans as (classes, text), whitespace tokens left out."""
    return [(e.classes, e.text) for e in spans if e.text.strip()]


def test_sources_and_diffs_are_highlighted_by_pygments_with_its_css_inline(tmp_path, source_root):
    out = tmp_path / "report"
    write_html_report(store_with_run(tmp_path), 1, out, source_root)
    page = (out / file_page_name("lib/check.py")).read_text()
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert ".code .k" in style and ".diff .k" in style and ".code .c1" in style  # Pygments' token rules
    code = [parse(cell) for cell in re.findall(r'<td class="code">(.*?)</td>', page)]
    assert tokens(code[0].elements)[:2] == [(["k"], "def"), (["nf"], "check")]
    assert [e.text for e in code[1].find("span", "c1")] == ['# "<script>alert(1)</script>"']
    assert tokens(code[2].elements) == [(["c1"], "# end")] and code[2].text == "# end"
    (added,) = parse(page).find("span", "d-add")
    assert added.text.startswith("+    return a <=")
    assert tokens(added.inside)[:3] == [(["k"], "return"), (["n"], "a"), (["o"], "<=")]


def test_a_string_across_lines_is_highlighted_as_one_string():
    from teeth.report.highlight import highlight_lines

    lines = highlight_lines(['doc = """first', 'def not_code(x):', '"""', "x = 1"])
    assert lines[1] == '<span class="s2">def not_code(x):</span>' and '<span class="k">' not in "".join(lines[:3])
    assert len(lines) == 4 and lines[3].startswith('<span class="n">x</span>')
