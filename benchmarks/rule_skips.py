"""The equivalence rules' skips of a target, mutant by mutant: what discovery records `skipped` and by which rule.

    python benchmarks/rule_skips.py [--config FILE] TARGET [TARGET ...] > skips.json

Discovery only (no test runs): every operator's mutants of each target, and for each one its skip reason. Compare the
output of two commits to see which mutants a change of the rules suppresses or keeps (`--diff OLD.json NEW.json`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from teeth.config.targets import load_config
from teeth.discovery.discover import discover
from teeth.operators import select_operators


def skips(config: str | None, names: list[str]) -> dict[str, dict[str, str | None]]:
    loaded = load_config(config)
    found: dict[str, dict[str, str | None]] = {}
    for name in names:
        discovery = discover(loaded.target(name), select_operators(None))
        found[name] = {m.id: m.skip for m in discovery.mutants}
    return found


def rule_of(reason: str | None) -> str | None:
    if reason and reason.startswith("equivalent:") and "(rule " in reason:
        return reason.rsplit("(rule ", 1)[1].rstrip(")")
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("targets", nargs="*")
    parser.add_argument("--config")
    parser.add_argument("--diff", nargs=2, metavar=("OLD", "NEW"))
    args = parser.parse_args()
    if args.diff:
        old, new = (json.load(open(path)) for path in args.diff)
        for target in sorted(set(old) | set(new)):
            before = {i for i, r in old.get(target, {}).items() if rule_of(r)}
            after = {i for i, r in new.get(target, {}).items() if rule_of(r)}
            print(f"{target}: {len(new.get(target, {}))} mutants; rules skip {len(before)} before, {len(after)} after;"
                  f" {len(before & after)} both, {len(before - after)} only before, {len(after - before)} only after")
            print("  after, by rule:", dict(Counter(rule_of(new[target][i]) for i in after)))
            for i in sorted(before ^ after):
                print(f"  {'-' if i in before else '+'} {i} {old.get(target, {}).get(i) or new[target].get(i)}")
        return 0
    json.dump(skips(args.config, args.targets), sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
