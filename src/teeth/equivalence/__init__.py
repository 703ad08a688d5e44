"""Equivalent-mutant rules: mutants that provably cannot change what the code computes, recorded `skipped`.

Each rule (a class in `aliasing`, `fresh_views`, `contiguity`, `launches`, `sequences`, `stores`, registered by
`@rule`) reads the
code around a mutant through the shared analysis kit (`flow`) and the effects of torch calls (`effects`) and of the file's own kernels
(`kernels`). An operator names the rules that judge its mutants (`Operator.rules`); every one of them is asked, so
the verdict does not depend on their order. The rules are conservative: anything they cannot see through (an
unknown callee, a name stored in an attribute or a container, a closure, a global) keeps the mutant.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper

from teeth.equivalence import aliasing, contiguity, fresh_views, launches, sequences, stores  # noqa: F401  (they register)
from teeth.equivalence.base import REGISTRY, Context, Mutation, Rule
from teeth.equivalence.flow import Flow

RULES: tuple[Rule, ...] = tuple(REGISTRY[name] for name in sorted(REGISTRY))
RULES_BY_NAME = dict(REGISTRY)


def rule_reason(*rules: Rule) -> str:
    """The skip reason: the first rule's reason (by name), and every rule that found the mutant equivalent."""
    first = min(rules, key=lambda r: r.name)
    return f"equivalent: {first.reason} (rule {', '.join(sorted(r.name for r in rules))})"


class EquivalenceRules:
    """The rules over one parsed file; `reason(node, replacement, operator)` for each mutant found in it."""

    def __init__(self, wrapper: MetadataWrapper, contiguous_decorators: list[str] | tuple[str, ...] = (),
                 path=None):
        self.ctx = Context(Flow(wrapper, contiguous_decorators), path)

    @property
    def files_read(self) -> dict[str, str]:
        """The other files of the package the rules read (path -> sha256): a cached discovery depends on them."""
        return dict(self.ctx.callees.files)

    def reason(self, node: cst.CSTNode, replacement: cst.CSTNode, operator) -> str | None:
        """Why the mutant of `operator` (an Operator, naming its rules) is equivalent, or None."""
        mutant = Mutation(node, replacement)
        found = [REGISTRY[name] for name in getattr(operator, "rules", ()) if name in REGISTRY]
        equivalent = [r for r in found if r.judge(mutant, self.ctx)]
        return rule_reason(*equivalent) if equivalent else None


__all__ = ["EquivalenceRules", "Mutation", "RULES", "RULES_BY_NAME", "Rule", "rule_reason"]
