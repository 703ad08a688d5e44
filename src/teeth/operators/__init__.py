"""The operator registry: every bug class teeth can inject, by name, from the `teeth.operators` entry points."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

from teeth.errors import ConfigError
from teeth.operators.base import Example, Operator
from teeth.operators.context import Context

GROUP = "teeth.operators"  # an entry point names a provider: a callable returning operators, or an Operator class
# teeth's own providers, first and in this order (they are also declared in its pyproject.toml): a source checkout
# whose installed metadata predates them still has them.
BUILTIN_PROVIDERS = (
    EntryPoint("domain", "teeth.operators.domain:domain_operators", GROUP),
    EntryPoint("generic", "teeth.operators.generic:generic_operators", GROUP),
)


def providers() -> list[EntryPoint]:
    """teeth's providers, then every installed distribution's `teeth.operators` entry point, by name."""
    builtin = {provider.value for provider in BUILTIN_PROVIDERS}
    others = sorted((p for p in entry_points(group=GROUP) if p.value not in builtin), key=lambda p: (p.name, p.value))
    return [*BUILTIN_PROVIDERS, *others]


def _load(provider: EntryPoint) -> list[Operator]:
    where = f"operator provider {provider.name!r} ({provider.value})"
    try:
        loaded = provider.load()
        made = [loaded()] if isinstance(loaded, type) else list(loaded())
    except Exception as exc:  # a plug-in's own bug: one line, not a traceback
        raise ConfigError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from None
    for operator in made:
        if not isinstance(operator, Operator) or not operator.name:
            raise ConfigError(f"{where} gave {operator!r}, not a named teeth.operators.Operator")
    return made


def all_operators() -> list[Operator]:
    """Every registered operator: teeth's domain operators, mutmut's generic ones, then the plug-ins'."""
    everything: dict[str, Operator] = {}
    origin: dict[str, str] = {}
    for provider in providers():
        for operator in _load(provider):
            if operator.name in everything:
                raise ConfigError(f"operator {operator.name!r} is registered twice: by operator provider "
                                  f"{origin[operator.name]!r} and by {provider.name!r} ({provider.value})")
            everything[operator.name], origin[operator.name] = operator, provider.name
    return list(everything.values())


def select_operators(names: list[str] | None) -> list[Operator]:
    """Operators by name; `generic` means all of mutmut's, `domain` all bug classes (teeth's and plug-ins');
    None means every one."""
    everything = all_operators()
    if not names:
        return everything
    by_name = {op.name: op for op in everything}
    chosen: list[Operator] = []
    for name in names:
        if name == "generic":
            chosen.extend(op for op in everything if not op.domain)
        elif name == "domain":
            chosen.extend(op for op in everything if op.domain)
        elif name in by_name:
            chosen.append(by_name[name])
        else:
            known = ", ".join(["domain", "generic", *by_name])
            raise ConfigError(f"unknown operator {name!r}; known operators: {known}")
    return list({op.name: op for op in chosen}.values())


def bug_class(operator: str, original: str, replacement: str) -> dict | None:
    """What a domain mutant's bug class means on its line and the shape of a test that kills it, in the
    operator's own words; None for a generic operator (or one this teeth does not know)."""
    found = next((op for op in all_operators() if op.domain and op.name == operator), None)
    if found is None:
        return None
    change = " ".join(f"{original} -> {replacement}".split())
    return {"operator": found.name, "change": change, "summary": found.summary, "means": found.bug,
            "killing_test": found.killing_test, "kills": list(found.kills)}


__all__ = ["Context", "Example", "Operator", "all_operators", "bug_class", "providers", "select_operators"]
