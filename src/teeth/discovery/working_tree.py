"""`teeth apply`: write one mutant into the working tree, and put the file back byte for byte.

The only place teeth writes a target's file. The mutated text is the one discovery made (`Mutant.code`, the same
text the workers apply in memory, `workers/apply.py`), found again by the mutant's id in the file as it is now.
It is written in the file's own encoding, byte order mark and line endings, so `git diff` shows the mutation only.
Before writing, git must hold the file unchanged (tracked, no uncommitted change); the original bytes are kept in
`applied/ID.json` beside the database, and `--revert` restores them only if the file is still the applied mutant.
"""

from __future__ import annotations

import base64
import codecs
import hashlib
import json
import os
import re
import subprocess
import tokenize
from dataclasses import dataclass
from pathlib import Path

from teeth.config.targets import Target
from teeth.discovery.discover import Mutant
from teeth.discovery.cache import DiscoveryCache
from teeth.errors import TeethError, TreeRefused
from teeth.operators import select_operators

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # what universal newlines read as one line


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Applied:
    """What `teeth apply` leaves beside the database so `--revert` can restore the file exactly."""

    mutant: str
    path: str
    original: bytes
    applied_sha256: str

    def dump(self) -> str:
        return json.dumps({"mutant": self.mutant, "path": self.path, "applied_sha256": self.applied_sha256,
                           "original_sha256": _sha(self.original),
                           "original": base64.b64encode(self.original).decode()}, indent=2)

    @classmethod
    def load(cls, text: str) -> Applied:
        data = json.loads(text)
        original = base64.b64decode(data["original"])
        if _sha(original) != data["original_sha256"]:
            raise ValueError("the kept original does not match its hash")
        return cls(data["mutant"], data["path"], original, data["applied_sha256"])


def applied_folder(db: Path) -> Path:
    return db.parent / "applied"


def require_committed(path: Path) -> None:
    """Refuse a file git could not give back: outside a work tree, untracked, or with uncommitted changes."""
    folder, name = str(path.parent), path.name
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "--", name], cwd=folder,
                                 capture_output=True, text=True)
        if tracked.returncode != 0:
            raise TreeRefused(f"{path} is not tracked by git; teeth apply writes only files git can restore")
        status = subprocess.run(["git", "status", "--porcelain", "--", name], cwd=folder, capture_output=True,
                                text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise TreeRefused(f"cannot ask git about {path}: {exc}") from None
    if status.strip():
        raise TreeRefused(f"{path} has uncommitted changes; commit or stash them before teeth apply")


def find_mutant(target: Target, file: str, mutant_id: str) -> Mutant:
    """The mutant with this id in `file` of the target as the file is now (discovered again, through the cache)."""
    path = target.source_path(file)
    if not path.is_file():
        raise TreeRefused(f"{path} no longer exists")
    cache = DiscoveryCache()
    for operators in (target.operators, None):  # the target's operators, then every operator
        for mutant in cache.discover_file(target, path, select_operators(operators)).mutants:
            if mutant.id == mutant_id:
                return mutant
    raise TreeRefused(f"mutant {mutant_id} is not in {path} as the file is now (it changed since the mutant was "
                      f"found; run teeth again)")


def encode_like(raw: bytes, code: str) -> bytes:
    """`code` (text as Python read `raw`) as bytes in `raw`'s encoding, byte order mark and line endings:
    lines equal to the original's keep their bytes, new lines take the ending of the line they replace."""
    encoding, _ = tokenize.detect_encoding(iter(raw.splitlines(True)).__next__)
    bom = raw.startswith(codecs.BOM_UTF8)
    text = raw[len(codecs.BOM_UTF8):].decode("utf-8") if bom else raw.decode(encoding)
    old = _LINE.findall(text)
    plain = [_plain(line) for line in old]
    new = _LINE.findall(code)
    head = 0
    while head < min(len(plain), len(new)) and plain[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(plain), len(new)) - head and plain[-1 - tail] == new[-1 - tail]:
        tail += 1
    ending = _ending(old[head]) if head < len(old) else (_ending(old[-1]) if old else "\n")
    middle = [line[:-1] + ending if line.endswith("\n") and ending else line
              for line in new[head:len(new) - tail]]
    out = "".join(old[:head] + middle + old[len(old) - tail:])
    return (codecs.BOM_UTF8 if bom else b"") + out.encode("utf-8" if bom else encoding)


def _plain(line: str) -> str:
    return line[:-len(_ending(line))] + "\n" if _ending(line) else line


def _ending(line: str) -> str:
    for end in ("\r\n", "\r", "\n"):
        if line.endswith(end):
            return end
    return ""


def apply(db: Path, target: Target, file: str, mutant_id: str) -> Path:
    """Write the mutant into its file; return the file's path."""
    path = target.source_path(file)
    require_committed(path)
    record_path = applied_folder(db) / f"{mutant_id}.json"
    if record_path.exists():
        raise TreeRefused(f"mutant {mutant_id} is already applied (see {record_path}); teeth apply {mutant_id} "
                          f"--revert first")
    mutant = find_mutant(target, file, mutant_id)
    raw = path.read_bytes()
    try:
        mutated = encode_like(raw, mutant.code)
    except (UnicodeError, SyntaxError) as exc:
        raise TreeRefused(f"cannot write mutant {mutant_id} into {path} in its encoding: {exc}") from None
    if _decoded(mutated) != mutant.code:  # what Python will read back is exactly the mutant the run measured
        raise TreeRefused(f"{path} changed while teeth read it; run teeth apply again")
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record_path.write_text(Applied(mutant_id, str(path), raw, _sha(mutated)).dump())
    _write(path, mutated)
    return path


def _decoded(raw: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(iter(raw.splitlines(True)).__next__)
    text = raw.decode("utf-8-sig" if raw.startswith(codecs.BOM_UTF8) else encoding)
    return "".join(_plain(line) for line in _LINE.findall(text))


def applied_ids(db: Path, prefix: str) -> list[str]:
    folder = applied_folder(db)
    return sorted(p.name[:-5] for p in folder.glob("*.json") if p.name.startswith(prefix)) if folder.is_dir() else []


def revert(db: Path, prefix: str) -> Path:
    """Put back the original bytes of the file an applied mutant changed, if it is still exactly that mutant."""
    ids = applied_ids(db, prefix)
    if not ids:
        raise TeethError(f"no applied mutant {prefix!r} (nothing in {applied_folder(db)})")
    if len(ids) > 1:
        raise TeethError(f"applied mutant id {prefix!r} is ambiguous ({', '.join(ids)}); give more characters")
    record_path = applied_folder(db) / f"{ids[0]}.json"
    try:
        record = Applied.load(record_path.read_text())
    except (OSError, ValueError, KeyError) as exc:
        raise TreeRefused(f"cannot read {record_path}: {exc}") from None
    path = Path(record.path)
    try:
        now = path.read_bytes()
    except OSError:
        now = None
    if now is None or _sha(now) != record.applied_sha256:
        raise TreeRefused(f"{path} changed since teeth apply {record.mutant}; not reverting (its original is kept "
                          f"in {record_path})")
    _write(path, record.original)
    record_path.unlink()
    return path


def _write(path: Path, data: bytes) -> None:
    """Replace the file's bytes in one step, keeping its permissions."""
    partial = path.with_name(f".{path.name}.teeth-{os.getpid()}")
    partial.write_bytes(data)
    os.chmod(partial, path.stat().st_mode & 0o7777)
    os.replace(partial, path)
