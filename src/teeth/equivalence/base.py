"""The rule interface: a class with its reason, its examples both ways and `judge(mutant, ctx)`; the registry."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from teeth.equivalence.callees import Callees
from teeth.equivalence.flow import Flow
from teeth.equivalence.reads import Reads


@dataclass(frozen=True)
class Mutation:
    """A mutant as the rules see it: the node it changes and what replaces it."""

    node: cst.CSTNode
    replacement: cst.CSTNode


class Context:
    """One parsed file's analyses, shared by every rule that judges a mutant of it."""

    def __init__(self, flow: Flow, path=None):
        self.flow = flow
        self.callees = Callees(path)  # the package's functions, read from their files
        flow.callees = self.callees
        self.reads = Reads(flow, self.callees)
        if path is not None:
            self.callees.add(path, flow, self.reads)


class Rule:
    """An equivalence rule. Subclasses set the attributes and implement `judge`; `examples_operators` are the
    operators whose mutants of `suppresses` must all be skipped, and of `keeps` none."""

    name: str = ""
    reason: str = ""  # recorded as the skip reason: "equivalent: <reason> (rule <name>)"
    suppresses: tuple[str, ...] = ()
    keeps: tuple[str, ...] = ()
    examples_operators: tuple[str, ...] = ()

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        raise NotImplementedError

    def speaks_of(self, original: str, replacement: str) -> bool:
        """Which mutants of `examples_operators` the rule judges at all, by the text they change and their
        replacement's (an operator may make several of one statement): its examples are checked against those."""
        return True


REGISTRY: dict[str, Rule] = {}


def rule(cls: type[Rule]) -> type[Rule]:
    """Register a rule class under its name (a name registered twice is a bug)."""
    if cls.name in REGISTRY:
        raise ValueError(f"equivalence rule {cls.name!r} is registered twice")
    REGISTRY[cls.name] = cls()
    return cls
