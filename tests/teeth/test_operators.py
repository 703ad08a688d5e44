"""Each operator's examples are its unit tests: the operator makes exactly the listed mutants."""

from __future__ import annotations

import libcst as cst
import pytest

from teeth.bindings import NO_BINDINGS, bindings_of
from teeth.errors import ConfigError
from teeth.kernel_context import is_kernel, kernel_of
from teeth.operators import all_operators, select_operators

OPERATORS = all_operators()


def mutants_of(operator, source: str) -> list[str]:
    """Every module the operator makes of `source`, one node at a time."""
    module = cst.parse_module(source)
    made: list[str] = []

    class Visit(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.parents: list[cst.CSTNode] = []
            self.kernels: list = []
            self.bindings: list = []

        def on_visit(self, node):
            kernel = next((k for k in reversed(self.kernels) if k is not None), None)
            if operator.applies_to(node) and not (operator.kernel_only and kernel is None):
                parent = self.parents[-1] if self.parents else None
                bindings = self.bindings[-1] if self.bindings else NO_BINDINGS
                made.extend(module.deep_replace(node, new).code
                            for new in operator.mutants_at(node, parent, kernel, bindings))
            if isinstance(node, cst.FunctionDef):
                self.kernels.append(kernel_of(node) if is_kernel(node) else None)
                self.bindings.append(bindings_of(node))
            self.parents.append(node)
            return True

        def on_leave(self, node):
            self.parents.pop()
            if isinstance(node, cst.FunctionDef):
                self.kernels.pop()
                self.bindings.pop()

    module.visit(Visit())
    return made


@pytest.mark.parametrize("operator", OPERATORS, ids=lambda o: o.name)
def test_operator_makes_exactly_its_documented_mutants(operator):
    examples = operator.examples()
    assert examples, f"{operator.name} has no examples"
    for example in examples:
        assert sorted(mutants_of(operator, example.before)) == sorted(example.after), example.before


@pytest.mark.parametrize("operator", [o for o in OPERATORS if o.domain], ids=lambda o: o.name)
def test_domain_operator_documents_its_bug_and_the_check_that_kills_it(operator):
    assert len(operator.bug.split()) > 20
    assert len(operator.killing_test.split()) > 15  # teeth show: the shape of a test that kills a survivor
    assert set(operator.kills) <= {"accuracy", "batch_invariance", "chunk_invariance", "determinism", "behaviour",
                                   "bounds"}


def test_operator_names_are_unique():
    names = [o.name for o in OPERATORS]
    assert len(names) == len(set(names))


def test_required_domain_operators_are_registered():
    names = {o.name for o in OPERATORS}
    assert {"zero_storage_offset", "wrong_slice_start", "dropped_replacement", "view_to_copy", "whole_batch",
            "stride_assumption"} <= names


def test_groups_select_domain_or_generic_operators():
    assert all(o.domain for o in select_operators(["domain"]))
    generic = select_operators(["generic"])
    assert generic and not any(o.domain for o in generic)


def test_unknown_operator_is_a_config_error_that_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown operator 'no_such'.*zero_storage_offset"):
        select_operators(["no_such"])
