"""Each operator's examples are its unit tests: the operator makes exactly the listed mutants."""

from __future__ import annotations

import pytest

from teeth.core import Check
from teeth.errors import ConfigError
from teeth.operators import all_operators, select_operators
from teeth.discovery.testing import mutants_of

OPERATORS = all_operators()


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
    assert operator.kills and all(isinstance(check, Check) for check in operator.kills)  # the one Check enum
    assert Check.CRASH not in operator.kills  # a crash is the supervisor's verdict, not a test a bug class asks for


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


SLICE_OPERATORS = ("wrong_slice_start", "whole_batch", "view_to_copy")


@pytest.mark.parametrize("operator", SLICE_OPERATORS)
@pytest.mark.parametrize("source", [
    "def scatter(src, reduce: str):\n    return reduce[-3:]\n",  # `'amax'[-3:]`: a name, not rows
    "def scatter(src, reduce: str | None = None):\n    return reduce[1:]\n",
    "def scatter(src, reduce: Optional[str] = None):\n    return reduce[1:]\n",
    "def scatter(src, mode: Literal['sum', 'amax']):\n    return mode[1:]\n",
    "def name(i):\n    return 'abcdef'[i:i + 2]\n",
    "def trailing(x):\n    return x.shape[1:]\n",  # sizes, not rows
    "def trailing(x):\n    return x.size()[-2:]\n",
    "def trailing(x):\n    shape = x.shape\n    return shape[:-1] + shape[-1:]\n",  # a name bound once to sizes
])
def test_slice_operators_leave_a_slice_of_text_or_sizes_alone(operator, source):
    assert mutants_of(*select_operators([operator]), source) == []


@pytest.mark.parametrize("operator", SLICE_OPERATORS)
@pytest.mark.parametrize("source", [
    "def rows(x, start: int):\n    return x[start:start + 2]\n",  # a tensor parameter
    "def rows(x: str, start):\n    x = torch.as_tensor(x)\n    return x[start:]\n",  # rebound to a tensor
    "def rows(x: torch.Tensor | str, start):\n    return x[start:]\n",  # may be a tensor
    "def rows(x, reduce: str):\n    return x[1:]\n",  # another name is the text
    "def rows(x, n):\n    shape = x.shape\n    if n:\n        shape = x\n    return shape[1:]\n",  # bound twice
])
def test_slice_operators_still_mutate_a_slice_that_may_be_rows(operator, source):
    assert mutants_of(*select_operators([operator]), source) != []
