"""Discovered mutants are kept per file between runs, keyed on everything that decides them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from teeth.config.targets import Target
from teeth.discovery.discover import discover
from teeth.discovery.cache import DiscoveryCache
from teeth.operators import select_operators

ROWS = "def take_rows(rows, start, count):\n    return rows[start:start + count]\n"


def target(tmp_path: Path) -> Target:
    (tmp_path / "rows.py").write_text(ROWS)
    return Target(name="rows", root=tmp_path, files=[tmp_path / "rows.py"], tests=["tests"])


def test_a_second_discovery_is_read_back_equal_to_a_fresh_one(tmp_path):
    rows, operators = target(tmp_path), select_operators(None)
    cache = DiscoveryCache(tmp_path / "cache")
    first, second = cache.discover(rows, operators), cache.discover(rows, operators)
    assert (cache.misses, cache.hits) == (1, 1)
    fresh = discover(rows, operators)
    assert first.mutants and dataclasses.asdict(second) == dataclasses.asdict(fresh) == dataclasses.asdict(first)


def test_a_changed_file_or_other_operators_are_discovered_again(tmp_path):
    rows, operators = target(tmp_path), select_operators(None)
    cache = DiscoveryCache(tmp_path / "cache")
    before = cache.discover(rows, operators)
    (tmp_path / "rows.py").write_text(ROWS.replace("start + count", "count + start"))
    after = cache.discover(rows, operators)
    assert cache.hits == 0 and {m.id for m in before.mutants} != {m.id for m in after.mutants}
    assert after.mutants == discover(rows, operators).mutants
    generic = select_operators(["generic"])
    assert cache.discover(rows, generic).mutants == discover(rows, generic).mutants and cache.hits == 0


def test_a_damaged_entry_is_discovered_again_and_an_unwritable_cache_is_skipped(tmp_path):
    rows, operators = target(tmp_path), select_operators(None)
    cache = DiscoveryCache(tmp_path / "cache")
    expected = cache.discover(rows, operators).mutants
    for entry in (tmp_path / "cache").iterdir():
        entry.write_bytes(b"not gzip")
    assert cache.discover(rows, operators).mutants == expected and cache.hits == 0
    (tmp_path / "blocked").write_text("a file where the cache folder would be")
    blocked = DiscoveryCache(tmp_path / "blocked" / "discovery")
    assert blocked.discover(rows, operators).mutants == expected and blocked.misses == 1
