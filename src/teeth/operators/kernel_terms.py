"""Helpers shared by the kernel operators: pointer add-chains and triton calls."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import method_call

SPACED_PLUS = dict(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" "))


def tl_call(node: cst.CSTNode, *names: str) -> bool:
    """`tl.<name>(...)`."""
    return method_call(node, *names) and isinstance(node.func.value, cst.Name) and node.func.value.value == "tl"


def add_terms(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`a + b + c` -> [a, b, c] (parenthesised sums are one term)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) and not node.lpar:
        return [*add_terms(node.left), node.right]
    return [node]


def join_terms(terms: list[cst.BaseExpression]) -> cst.BaseExpression:
    result = terms[0]
    for term in terms[1:]:
        result = cst.BinaryOperation(left=result, operator=cst.Add(**SPACED_PLUS), right=term)
    return result


def is_pointer_chain(node: cst.BaseExpression) -> bool:
    """An add-chain that starts at a pointer (a name with `ptr` or `base` in it)."""
    first = add_terms(node)[0]
    return isinstance(first, cst.Name) and ("ptr" in first.value or "base" in first.value)


def without_term(terms: list[cst.BaseExpression], index: int) -> cst.BaseExpression:
    return join_terms([t for i, t in enumerate(terms) if i != index])
