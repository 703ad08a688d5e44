"""The op specs and profiles `teeth invariance` runs: the objects `[tool.teeth.invariance]` names, imported."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from teeth.errors import ConfigError

from .profiles import InvarianceProfile
from .specs import OpSpec

EXAMPLE = 'specs = "kernels.specs:OP_SPECS" and profiles = "kernels.profiles:PROFILES"'


@dataclass(frozen=True)
class Suite:
    """Op name -> OpSpec and profile name -> InvarianceProfile: the rows and columns of the status matrix."""

    specs: Mapping[str, OpSpec]
    profiles: Mapping[str, InvarianceProfile]


def load_suite(table: Mapping[str, str] | None, config_path: Path) -> Suite:
    """The suite a config's `[tool.teeth.invariance]` table names, imported with the config's folder first on
    sys.path (as pytest's rootdir); a one-line ConfigError when the table is missing or a name does not import."""
    if table is None:
        raise ConfigError(f"no [tool.teeth.invariance] table in {config_path}: name the op specs and profiles "
                          f"to check ({EXAMPLE})")
    root = str(config_path.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    specs = _imported(table["specs"], "specs", config_path, OpSpec)
    profiles = _imported(table["profiles"], "profiles", config_path, InvarianceProfile)
    return Suite(specs, profiles)


def _imported(reference: str, key: str, config_path: Path, kind: type) -> Mapping:
    """The mapping `module:attribute` names, each of its values a `kind`."""
    where = f"[tool.teeth.invariance] {key} = {reference!r} (in {config_path})"
    module_name, _, attribute = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # a missing module, or one that fails while it is imported
        raise ConfigError(f"{where}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    value = getattr(module, attribute, None)
    if value is None:
        raise ConfigError(f"{where}: module {module_name} has no attribute {attribute!r}")
    if not isinstance(value, Mapping) or not all(isinstance(v, kind) for v in value.values()):
        raise ConfigError(f"{where}: expected a mapping of name -> {kind.__name__}, got {type(value).__name__}")
    return value
