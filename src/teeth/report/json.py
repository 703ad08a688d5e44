"""JSON listings: results as a list of objects, for scripts."""

from __future__ import annotations

import json

RESULT_FIELDS = ("mutant", "target", "file", "line", "function", "op", "operator", "profile", "status",
                 "killed_by", "check", "duration", "detail", "why", "signal", "failure")


def results_json(results: list[dict]) -> str:
    return json.dumps([{k: row.get(k) for k in RESULT_FIELDS} for row in results], indent=2)
