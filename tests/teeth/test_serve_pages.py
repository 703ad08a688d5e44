"""`teeth serve`'s pages in headless Chromium: the history chart renders, a survivor's diff shows, and text
from pushed runs (function names, diffs, op names) is escaped, never run."""

from __future__ import annotations

import re
import subprocess

import httpx
import pytest

from tests.helpers.html import chromium, page_fetches, text_of
from tests.helpers.serve_runs import HOSTILE, live_server, record_run

from teeth.serve.store import ServeStore


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A live server holding two pushed runs of `rows` (different mutants); the first run's first mutant,
    rows-00000, carries HTML in its function name, op and diff. Yields the base URL."""
    base = tmp_path_factory.mktemp("serve-pages")
    local, served = base / "local.db", base / "server.db"
    record_run(local, survivors=3, commit="a" * 40, hostile=True)
    record_run(local, survivors=1, commit="b" * 40, seed="b")
    token = ServeStore(served).serving().create_token("ci")
    with live_server(served) as url:
        for run_id in (1, 2):
            answer = httpx.post(f"{url}/api/runs", json=ServeStore(local).export_run(run_id),
                                headers={"authorization": f"Bearer {token}"})
            assert answer.status_code == 201, answer.text
        yield url


def render(url: str, work, *mode: str) -> tuple[str, list[str]]:
    """Load a URL in headless Chromium with DNS off but for loopback; returns (stdout, http(s) URLs in its net log)."""
    net_log = work / "net.json"
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={work / 'profile'}", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                           f"--log-net-log={net_log}", "--window-size=1280,1400", *mode, url],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    urls = re.findall(r'"url":"(https?://[^"]+)"', net_log.read_text()) if net_log.exists() else []
    return done.stdout, urls


def test_the_targets_history_chart_renders_a_line_per_op_over_both_runs(site, tmp_path):
    dom, urls = render(f"{site}/targets/rows", tmp_path, "--dump-dom")
    chart = re.search(r'<svg class="chart".*?</svg>', dom, re.S)
    assert chart, dom[:2000]
    # (all ops), take_rows and total, in each profile, across runs 1 and 2 (the hostile op has one run: a dot)
    assert chart.group(0).count("<polyline") == 6
    assert ">#1<" in chart.group(0) and ">#2<" in chart.group(0) and ">aaaaaaa<" in chart.group(0)
    assert [u for u in page_fetches(urls) if not u.startswith(site)] == []


def test_the_screenshot_of_the_history_page_has_content(site, tmp_path):
    render(f"{site}/targets/rows", tmp_path, f"--screenshot={tmp_path / 'history.png'}")
    shot = tmp_path / "history.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_a_runs_page_shows_its_matrix_and_a_survivors_diff(site, tmp_path):
    dom, _ = render(f"{site}/runs/2", tmp_path, "--dump-dom")
    matrix = re.search(r'<table id="matrix">.*?</table>', dom, re.S).group(0)
    assert "take_rows" in matrix and "torch_cpu_fp32" in matrix and "83.3%" in matrix and "100.0%" in matrix
    card = re.search(r'<div class="mutant survived" id="m-rows-b00000".*?</pre>', dom, re.S)
    assert card, dom[:3000]
    diff_line = r'<span class="d-(del|add)">(.*?)</span>(?=<span class="d-|</pre>)'  # code: Pygments' spans
    lines = {kind: text_of(code) for kind, code in re.findall(diff_line, card.group(0))}
    assert lines == {"del": "-    return x[0:]", "add": "+    return x[0:]"}


@pytest.mark.parametrize("path", ["/runs/1", "/mutants/rows-00000", "/targets/rows", "/"])
def test_html_from_a_pushed_run_is_shown_as_text_and_never_runs(site, tmp_path, path):
    dom, _ = render(f"{site}{path}", tmp_path, "--dump-dom")
    title = re.search(r"<title>(.*?)</title>", dom).group(1)
    assert "pwned" not in title and title.startswith("teeth")
    assert "<script" not in dom and "<img" not in dom  # no element made from the pushed text
    if path != "/":
        assert "&lt;script&gt;document.title" in dom  # the hostile text is on the page, as text
