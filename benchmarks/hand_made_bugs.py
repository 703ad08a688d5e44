"""The batcher issue's five hand-made bugs, each applied to a temp copy, with the suite's failing-test count.

    python benchmarks/hand_made_bugs.py

Each bug is one exact text replacement in a copy of src/batcher (the real tree is never
written); the suite runs with PYTHONPATH pointing at the copy. A bug whose pattern no
longer matches exactly once is reported, not skipped silently.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUGS = [
    ("storage offset forced to 0 in the gradient geometry", "gradients.py",
     "view.stride(), view.storage_offset())", "view.stride(), 0)"),
    ("narrow's start forced to 0", "scoping.py",
     "value.narrow(0, start * k, size * k)", "value.narrow(0, 0, size * k)"),
    ("the replacement dropped in widen (full returned)", "scoping.py",
     "    return out\n", "    return full\n"),
    ("narrow returning a copy instead of a view", "scoping.py",
     "value.narrow(0, start * k, size * k)", "value.narrow(0, start * k, size * k).clone()"),
    ("the flattened multiple k forced to 1", "scoping.py",
     "return leading // total", "return 1"),
]


def suite(pythonpath: str | None) -> str:
    env = {**os.environ, **({"PYTHONPATH": pythonpath} if pythonpath else {})}
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/batcher", "-q", "-p", "no:randomly"],
                          cwd=REPO, env=env, capture_output=True, text=True)
    summary = re.findall(r"^=*\s*(\d+ (?:failed|passed).*?) in ", done.stdout, re.M)
    return summary[-1] if summary else done.stdout[-300:]


def main() -> int:
    print(f"{'unmutated':55s} {suite(None)}")
    broken = 0
    for name, file, old, new in BUGS:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "batcher"
            shutil.copytree(REPO / "src" / "batcher", copy, ignore=shutil.ignore_patterns("__pycache__"))
            source = (copy / file).read_text()
            if source.count(old) != 1:
                print(f"{name:55s} PATTERN FOUND {source.count(old)} TIMES: update this script")
                broken += 1
                continue
            (copy / file).write_text(source.replace(old, new))
            result = suite(tmp)
            print(f"{name:55s} {result}")
            broken += "failed" not in result
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
