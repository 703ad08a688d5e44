"""`teeth serve` under concurrent load on loopback, bounded for CI: nothing lost, nothing stored twice.
The full load (20 pushes of 1,000-mutant runs, 200 queries) and its latencies: benchmarks/bench_serve.py."""

from __future__ import annotations

from benchmarks.bench_serve import QUERIES, lost, measure


def test_concurrent_pushes_and_queries_lose_nothing_and_store_every_run_once(tmp_path):
    result = measure(tmp_path, pushes=6, mutants=150, queries=3 * len(QUERIES))
    assert lost(result) == []
    assert result["stored"] == result["stored_after_again"] == (7, 7 * 300, 14)
    assert len(result["pushes"]) == 6 and len(result["queries"]) == 27 and len(result["again"]) == 7
    assert {status for status, _, _ in result["queries"]} == {200}
