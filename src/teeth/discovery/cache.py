"""Discovered mutants kept between runs, per file: a no-change `teeth run` need not parse and mutate again.

An entry is one file's Discovery as gzipped JSON, named by the sha256 of everything that decides it: the file's
text and path (and the other files of its package the equivalence rules read, checked on load), the target's name, root, op mapping and skip settings (equivalent, skip, contiguous_decorators), the operators in order, the code of teeth itself and
of any plug-in operator's module, and the versions of libcst and mutmut (an upgrade of either makes new entries). Entries live in `$TEETH_CACHE`, else
`$XDG_CACHE_HOME/teeth` (default `~/.cache/teeth`), never in the target's tree; an entry that cannot be read is
discovered again, and a cache that cannot be written is skipped.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import importlib.metadata
import inspect
import json
import os
import sys
from pathlib import Path

import teeth
from teeth.config.targets import Target
from teeth.discovery.discover import Discovery, Mutant, discover_file
from teeth.operators import Operator
from teeth.syntax.sources import read_source

FORMAT = 3  # bump when the entry layout changes


def cache_folder() -> Path:
    explicit = os.environ.get("TEETH_CACHE")
    if explicit:
        return Path(explicit) / "discovery"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "teeth" / "discovery"


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "-"


_TEETH_CODE: str | None = None


def teeth_code() -> str:
    """A digest of teeth's own source: an operator changed in a checkout makes new entries, not stale ones."""
    global _TEETH_CODE
    if _TEETH_CODE is None:
        digest = hashlib.sha256()
        for path in sorted(Path(teeth.__file__).parent.rglob("*.py")):
            digest.update(path.read_bytes())
        _TEETH_CODE = digest.hexdigest()
    return _TEETH_CODE


def plugin_code(operators: list[Operator]) -> str:
    """A digest of the modules of operators from other packages (teeth.operators entry points)."""
    digest = hashlib.sha256()
    for module in sorted({type(o).__module__ for o in operators}):
        if module.split(".")[0] in ("teeth", "mutmut"):
            continue
        try:
            digest.update(Path(inspect.getsourcefile(sys.modules[module]) or "").read_bytes())
        except (KeyError, OSError, TypeError):
            digest.update(module.encode())
    return digest.hexdigest()


class DiscoveryCache:
    def __init__(self, folder: Path | None = None):
        self.folder = folder or cache_folder()
        self.hits = self.misses = 0

    def key(self, target: Target, path: Path, source: str, operators: list[Operator]) -> str:
        parts = [str(FORMAT), teeth_code(), _version("libcst"), _version("mutmut"), target.name, str(target.root),
                 str(path), target.display_path(path), target.op_from, json.dumps(target.ops, sort_keys=True),
                 target.suppression(),
                 *(o.name for o in operators), plugin_code(operators), source]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def discover(self, target: Target, operators: list[Operator]) -> Discovery:
        total = Discovery(mutants=[])
        for path in target.files:
            found = self.discover_file(target, path, operators)
            total.mutants.extend(found.mutants)
            total.arid += found.arid
            total.duplicates += found.duplicates
            total.unviable += found.unviable
            total.read.update(found.read)
        return total

    def discover_file(self, target: Target, path: Path, operators: list[Operator]) -> Discovery:
        try:
            source = read_source(path)
        except (OSError, SyntaxError, ValueError):
            return discover_file(target, path, operators)  # its own error message
        entry = self.folder / f"{self.key(target, path, source, operators)}.json.gz"
        found = self._load(entry, source)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        found = discover_file(target, path, operators)
        self._save(entry, found)
        return found

    @staticmethod
    def _load(entry: Path, source: str) -> Discovery | None:
        try:
            data = json.loads(gzip.decompress(entry.read_bytes()))
            for other, digest in data["read"].items():  # a file of the package the rules read has changed
                if hashlib.sha256(Path(other).read_bytes()).hexdigest() != digest:
                    return None
            mutants = [Mutant(**{**m, "edit": tuple(m["edit"])}, source=source) for m in data["mutants"]]
            return Discovery(mutants=mutants, arid=data["arid"],
                             duplicates=data["duplicates"], unviable=data["unviable"], read=data["read"])
        except (OSError, ValueError, KeyError, TypeError, EOFError):
            return None

    @staticmethod
    def _save(entry: Path, found: Discovery) -> None:
        """One entry: the counts and each mutant's fields, its change as an edit of the file's text, which
        the key holds and a load reads again: an entry grows with the mutants' changes, not with the file."""
        mutants = [{f.name: getattr(m, f.name) for f in dataclasses.fields(m) if f.name != "source"}
                   for m in found.mutants]
        data = {"mutants": mutants, "arid": found.arid, "duplicates": found.duplicates, "unviable": found.unviable,
                "read": found.read}
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            partial = entry.with_suffix(f".{os.getpid()}.tmp")
            partial.write_bytes(gzip.compress(json.dumps(data).encode(), compresslevel=1))
            os.replace(partial, entry)  # readers see a whole entry or none
        except OSError:
            pass
