"""JSON listings: results as a list of objects, for scripts."""

from __future__ import annotations

import json

RESULT_FIELDS = ("mutant_id", "target", "file", "line", "function", "op", "operator", "profile", "status",
                 "killed_by", "check", "duration", "detail", "why", "signal", "failure")


# `mutant`: the key `mutant_id` had up to teeth 0.1.0; still written for one release (until 0.2.0), for scripts.
OLD_KEYS = {"mutant": "mutant_id"}


def results_json(results: list[dict]) -> str:
    return json.dumps([{**{k: row.get(k) for k in RESULT_FIELDS},
                        **{old: row.get(new) for old, new in OLD_KEYS.items()}} for row in results], indent=2)
