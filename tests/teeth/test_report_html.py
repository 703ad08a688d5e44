"""`teeth report --html` end to end: written from two real runs, rendered in headless Chromium, fetching nothing."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import assert_one_line_error, teeth_cli, teeth_in_process, two_runs_of_weak_suite
from tests.helpers.html import chromium, page_fetches, text_of

RESOURCE_URL = re.compile(r"""(?:\b(?:src|href|srcset|action|poster|data)\s*=\s*["']?|url\(\s*["']?|@import\s+["']?)
                              (?:https?:)?//""", re.I | re.X)


def render(page: Path, work: Path, *mode: str) -> tuple[str, list[str]]:
    """Load a page in headless Chromium with DNS off; returns (stdout, http(s) URLs in its net log)."""
    net_log = work / f"net-{page.stem}.json"
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={work / 'profile'}", '--host-resolver-rules=MAP * ~NOTFOUND',
                           f"--log-net-log={net_log}", "--window-size=1280,1800", *mode, page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    urls = re.findall(r'"url":"(https?://[^"]+)"', net_log.read_text()) if net_log.exists() else []
    return done.stdout, urls


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    root, db = two_runs_of_weak_suite(base)
    done = teeth_cli("report", "--html", str(base / "out" / "html"), "--db", str(db), cwd=root)
    assert done.returncode == 0, done.stderr
    survivors = json.loads(teeth_cli("results", "--status", "survived", "--format", "json", "--db", str(db),
                                     cwd=root).stdout)
    return SimpleReport(base / "out" / "html", db, root, survivors)


class SimpleReport:
    def __init__(self, out: Path, db: Path, root: Path, survivors: list[dict]):
        self.out, self.db, self.root, self.survivors = out, db, root, survivors

    def pages(self) -> list[Path]:
        """index.html first, then the file pages."""
        return [self.out / "index.html", *sorted((self.out / "files").glob("*.html"))]


def test_the_report_is_an_index_and_one_page_per_target_file(report):
    written = sorted(str(p.relative_to(report.out)) for p in report.out.rglob("*"))
    assert len(written) == 3 and written[0] == "files" and written[2] == "index.html"
    assert re.fullmatch(r"files/rows\.py-[0-9a-f]{8}\.html", written[1])


def test_no_page_loads_a_script_stylesheet_or_any_resource_from_the_network(report):
    for page in report.pages():
        text = page.read_text()
        assert not RESOURCE_URL.search(text), page
        assert "<script" not in text and "<link" not in text and "<style>" in text


def test_the_index_renders_the_matrix_the_history_chart_and_a_survivors_diff_in_chromium(report, tmp_path):
    dom, urls = render(report.out / "index.html", tmp_path, "--dump-dom")
    for op in ("take_rows", "total"):
        cell = re.search(rf'<td class="cell (good|ok|bad)" data-op="{op}" data-profile="cpu">([\d.]+%)', dom)
        assert cell, op
    assert re.search(r'<svg class="chart"[^>]*>.*<polyline', dom, re.S) and "#1" in dom and "#2" in dom
    survivor = report.survivors[0]
    assert f'data-mutant="{survivor["mutant"]}"' in dom
    card = dom[dom.index(f'data-mutant="{survivor["mutant"]}"'):]
    assert '<span class="d-del">-' in card and '<span class="d-add">+' in card
    assert page_fetches(urls) == []


def test_the_file_page_renders_its_annotated_source_in_chromium(report, tmp_path):
    dom, urls = render(report.pages()[1], tmp_path, "--dump-dom")
    assert "def take_rows(batch, start, size):" in text_of(dom)
    survivor_line = report.survivors[0]["line"]
    row = re.search(rf'<tr id="L{survivor_line}" class="line-survived">', dom)
    assert row and '<span class="badge survived"' in dom[row.end():row.end() + 400]
    assert page_fetches(urls) == []


def test_the_screenshot_of_the_index_has_content(report, tmp_path):
    render(report.out / "index.html", tmp_path, f"--screenshot={tmp_path / 'index.png'}")
    shot = tmp_path / "index.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_the_network_check_notices_a_page_that_fetches_from_a_cdn(tmp_path):
    page = tmp_path / "cdn.html"
    page.write_text('<html><body><img src="https://cdn.example.com/logo.png"></body></html>')
    assert RESOURCE_URL.search(page.read_text())
    _, urls = render(page, tmp_path, "--dump-dom")
    assert set(page_fetches(urls)) == {"https://cdn.example.com/logo.png"}


def test_an_existing_file_as_the_report_folder_is_one_line_and_exit_2(report, tmp_path):
    blocker = tmp_path / "plain-file"
    blocker.write_text("keep")
    done = teeth_in_process("report", "--html", blocker, "--db", report.db, cwd=report.root)
    assert_one_line_error(done, "is an existing file")
    assert blocker.read_text() == "keep"


def test_a_report_without_a_database_is_one_line_and_creates_nothing(tmp_path):
    missing = tmp_path / "db" / "teeth.db"
    done = teeth_in_process("report", "--html", tmp_path / "out", "--db", missing, cwd=tmp_path)
    assert_one_line_error(done, "no teeth database")
    assert not missing.parent.exists() and not (tmp_path / "out").exists()


def test_a_report_of_an_unknown_run_is_one_line_and_exit_2(report, tmp_path):
    done = teeth_in_process("report", "--html", tmp_path / "out", "--run", "42", "--db", report.db,
                            cwd=report.root)
    assert_one_line_error(done, "no run 42")
    assert not (tmp_path / "out").exists()
