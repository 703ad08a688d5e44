"""A shadowed target: the tests imported the target's modules from another copy than the files being mutated."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from teeth.errors import EXIT_WORKER_FAILED, TeethError


class TargetShadowed(TeethError):
    """The tests never ran the files being mutated: an installed or editable copy came first on sys.path."""

    exit_code = EXIT_WORKER_FAILED


def _names(path: Path) -> list[str]:
    """Every dotted module name the file could be imported as: mod, pkg.mod, src.pkg.mod, ..."""
    parts = list(path.with_suffix("").parts[1:])
    if parts and parts[-1] == "__init__":
        parts.pop()
    return [".".join(parts[i:]) for i in range(len(parts) - 1, -1, -1)]


def shadowing(files: list[str], modules: dict | None = None) -> tuple[str, str] | None:
    """(a mutated file, the file its module was imported from) when the tests imported none of `files`
    themselves but a module of the same name from elsewhere; None otherwise. Called in the worker after the baseline."""
    modules = sys.modules if modules is None else modules
    loaded = {}
    for name, module in list(modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.endswith(".py"):
            loaded[name] = os.path.realpath(file)
    own = {os.path.realpath(f) for f in files}
    if own & set(loaded.values()):
        return None
    for file in files:
        real = Path(os.path.realpath(file))
        suffix = real.name if real.stem != "__init__" else f"{real.parent.name}/__init__.py"
        for name in _names(real):
            other = loaded.get(name)
            if other and other != str(real) and other.endswith(os.sep + suffix):
                return str(real), other
    return None


def refuse_shadowed(found: list | tuple | None) -> None:
    if found:
        mutated, imported = found
        raise TargetShadowed(f"the tests imported {imported}, not the file being mutated {mutated} "
                             f"(an installed or editable copy comes first on sys.path); every mutant would survive "
                             f"untested. Uninstall that copy or put the target first on the path")
