"""The scratch area of one warm worker: a copy of the target's root that its tests run in, a private temp dir, and
the worker's log. Nothing the tests do touches the user's tree; everything here is removed when the worker stops.
A symbolic link in the tree is no way out of the copy: one to a path inside the root points into the copy, a small
file outside is copied; any other (a folder outside, a dangling link, a loop) is refused unless the sandbox holds
writes (then it is kept: reading through it works, writing is refused)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

from teeth.errors import ConfigError

# Never copied: version control, caches and environments (large, and no test reads them from its tree), and
# mutants/ (the design's folder for mutated copies).
SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", "node_modules",
                ".pytest_cache", ".mypy_cache", ".ruff_cache", "mutants", ".eggs"}
SKIPPED_SUFFIXES = (".pyc", ".db", ".db-wal", ".db-shm", ".db-journal")
SMALL_FILE = 1 << 20  # bytes: a linked file outside the root up to this size is copied into the scratch tree
MARK = "TEETH_SCRATCH"  # in every worker process's environment: how the run's leftover processes are found


class Scratch:
    """`tree`: the copy of `root`; `tmp`: TMPDIR and caches of the tests; `log`: the worker's stderr."""

    def __init__(self, root: Path, label: str, sandboxed: bool = False, overlay: dict[str, str] | None = None):
        """`sandboxed`: the tests' writes will be confined to this area (Landlock), so a link that leads out of the
        tree may stay; without it, such a link is a ConfigError naming it, and nothing is left behind. `overlay`:
        files of the copy (relative to the root) given another text, e.g. a test file as the base commit has it."""
        self.root = Path(root).resolve()
        self.dir = Path(tempfile.mkdtemp(prefix=f"teeth-{label}-"))
        self.tree, self.tmp = self.dir / "tree", self.dir / "tmp"
        started = time.perf_counter()
        try:
            shutil.copytree(self.root, self.tree, symlinks=True, ignore=_ignored)
            self.links_out = self._contain_links(sandboxed)
            for relative, text in (overlay or {}).items():
                copy = self.tree / relative
                copy.unlink(missing_ok=True)  # a link is replaced, never written through
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(text, encoding="utf-8")
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        self.copy_seconds = time.perf_counter() - started
        self.tmp.mkdir()
        self.log = self.dir / "worker.log"

    def _contain_links(self, sandboxed: bool) -> list[str]:
        """Make every symbolic link of the copy lead into the copy (see the module's docstring); returns the links
        kept that lead out of it (only when `sandboxed`)."""
        kept = []
        for folder, dirs, files in os.walk(self.tree):
            for name in [*dirs, *files]:
                link = Path(folder) / name
                if not link.is_symlink():
                    continue
                relative = link.relative_to(self.tree)
                resolved = Path(os.path.realpath(self.root / relative))  # never raises: loops and dangling too
                if resolved.is_relative_to(self.root):  # a link to the user's tree (even an absolute one) now leads to the same place in the copy
                    link.unlink()
                    link.symlink_to(os.path.relpath(self.tree / resolved.relative_to(self.root), link.parent))
                elif resolved.is_file() and resolved.stat().st_size <= SMALL_FILE:
                    link.unlink()
                    shutil.copy2(resolved, link)
                elif sandboxed:
                    kept.append(relative.as_posix())
                else:
                    what = "a folder" if resolved.is_dir() else "a file" if resolved.exists() else "nothing that exists"
                    raise ConfigError(
                        f"{self.root / relative} is a symbolic link to {resolved} ({what} outside the target's root): "
                        f"without the sandbox the tests could change it through the link; remove the link, or run "
                        f"where the sandbox holds (Linux with Landlock, sandbox = true)")
        return kept

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
