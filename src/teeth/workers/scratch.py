"""The scratch area of one warm worker: a copy of the target's root that its tests run in, a private temp dir, and
the worker's log. Nothing the tests do touches the user's tree; everything here is removed when the worker stops."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

# Never copied: version control, caches and environments (large, and no test reads them from its tree), and
# mutants/ (the design's folder for mutated copies).
SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", "node_modules",
                ".pytest_cache", ".mypy_cache", ".ruff_cache", "mutants", ".eggs"}
SKIPPED_SUFFIXES = (".pyc", ".db", ".db-wal", ".db-shm", ".db-journal")
MARK = "TEETH_SCRATCH"  # in every worker process's environment: how the run's leftover processes are found


class Scratch:
    """`tree`: the copy of `root`; `tmp`: TMPDIR and caches of the tests; `log`: the worker's stderr."""

    def __init__(self, root: Path, label: str):
        self.root = Path(root).resolve()
        self.dir = Path(tempfile.mkdtemp(prefix=f"teeth-{label}-"))
        self.tree, self.tmp = self.dir / "tree", self.dir / "tmp"
        started = time.perf_counter()
        shutil.copytree(self.root, self.tree, symlinks=True, ignore=_ignored)
        self.copy_seconds = time.perf_counter() - started
        self.tmp.mkdir()
        self.log = self.dir / "worker.log"

    def env(self) -> dict[str, str]:
        """Where the tests' temp files and the caches of the libraries they use go instead of $HOME or /tmp."""
        cache = self.tmp / "cache"
        return {"TMPDIR": str(self.tmp), "TEMP": str(self.tmp), "TMP": str(self.tmp),
                "XDG_CACHE_HOME": str(cache), "TRITON_CACHE_DIR": str(cache / "triton"),
                "TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"), "MPLCONFIGDIR": str(cache / "matplotlib"),
                MARK: str(self.dir)}

    def inside(self, path: str | Path) -> str:
        """A path of the user's tree as it is in the copy; paths elsewhere (installed modules) unchanged."""
        try:
            return str(self.tree / Path(path).resolve().relative_to(self.root))
        except ValueError:
            return str(path)

    def outside(self, path: str) -> str:
        """A path of the copy as it is in the user's tree."""
        try:
            return str(self.root / Path(path).relative_to(self.tree))
        except ValueError:
            return path

    def remove(self) -> None:
        reap(str(self.dir))
        shutil.rmtree(self.dir, ignore_errors=True)


def _ignored(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n in SKIPPED_DIRS or n.endswith(SKIPPED_SUFFIXES) or n.endswith(".egg-info")}


def reap(mark: str) -> int:
    """SIGKILL every process left with this scratch mark in its environment (helpers the tests started, whatever
    their process group or session); returns how many. Linux only: elsewhere, nothing is found."""
    needle = f"{MARK}={mark}\0".encode()
    killed = 0
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if needle not in handle.read() + b"\0":
                    continue
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except (OSError, ProcessLookupError):
            continue
    return killed
