"""Batches grouped by index: which values are index tensors or masks, and which loops run over groups (and what
their first group is), read from one function's dataflow (operators/dataflow.py).

Everything here is decided from what produced a value (`torch.where`, `nonzero`, `argsort`, a comparison, a list
literal, a loop over `enumerate`/`zip`/`range`), never from a name.
"""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import method_call, positional, torch_call
from teeth.operators.dataflow import Flow
from teeth.operators.dicts import dict_keys

# calls whose result is a tensor of indices (or a mask) whatever their input
INDEX_PRODUCERS = ("nonzero", "argwhere", "argsort", "arange", "randperm", "bucketize", "searchsorted")
MASK_PRODUCERS = ("eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "isin", "logical_and",
                  "logical_or", "logical_not", "logical_xor", "bool", "greater", "less", "equal", "not_equal",
                  "any", "all")  # any/all: bool whatever their input (a mask reduced over a dim is a mask)
# calls returning (values, indices): their second item, or `.indices`, is an index tensor
WITH_INDICES = ("sort", "topk", "max", "min", "kthvalue", "mode", "median", "cummax", "cummin")
# methods that keep an index tensor an index tensor
KEEPS_INDEX = ("view", "reshape", "flatten", "squeeze", "unsqueeze", "long", "int", "to", "cpu", "cuda", "t",
               "tolist", "contiguous", "clone", "detach", "repeat_interleave", "expand", "expand_as", "view_as",
               "unique", "flip", "masked_select")


def group_first(node: cst.CSTNode, flow: Flow | None) -> cst.Subscript | None:
    """`seq[k]` where `k` is the group of a loop around it: the same lookup for the loop's first group."""
    if flow is None or not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or index.star or not isinstance(index.value, cst.Name):
        return None
    first = flow.loop_first(node, index.value.value)
    if first is None:
        return None
    return node.with_changes(slice=[node.slice[0].with_changes(slice=index.with_changes(value=first))])


def is_index(expr: cst.BaseExpression, flow: Flow | None, depth: int = 6) -> bool:
    """Does `expr` hold indices or a mask (a list, an index or bool tensor), not one scalar position?"""
    if depth == 0:
        return False
    again = lambda e: is_index(e, flow, depth - 1)  # noqa: E731
    if isinstance(expr, (cst.List, cst.ListComp)):
        return True
    if isinstance(expr, cst.Comparison):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return again(expr.left) or again(expr.right)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply,
                                                                            cst.FloorDivide, cst.Modulo)):
        return again(expr.left) or again(expr.right)  # positions shifted or scaled: `arange(n) - ptr[batch]`
    if isinstance(expr, cst.Call):
        if torch_call(expr, "where"):
            return False  # one argument: a tuple of index tensors; three: values
        if torch_call(expr, *INDEX_PRODUCERS, *MASK_PRODUCERS) or method_call(expr, *INDEX_PRODUCERS,
                                                                                 *MASK_PRODUCERS):
            return True
        if torch_call(expr, "tensor", "as_tensor", "cat", "concat", "stack", "unique"):
            first = positional(expr, 0)
            return first is not None and (again(first.value) or isinstance(first.value, (cst.List, cst.Tuple))
                                          and any(again(e.value) for e in first.value.elements))
        if method_call(expr, *KEEPS_INDEX) and not torch_call(expr, *KEEPS_INDEX):
            return again(expr.func.value)
        return False
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "indices" and _with_indices(expr.value)
    if group_index(expr, flow) is not None:
        return True
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            item = expr.slice[0].slice.value
            return isinstance(item, cst.Integer) and (
                _where(expr.value) or (item.evaluated_value == 1 and _with_indices(expr.value)))
        return any(isinstance(e.slice, cst.Slice) for e in expr.slice) and again(expr.value)  # rows of indices
    if isinstance(expr, cst.Name) and flow is not None:
        name = expr.value
        if name in flow.values:
            return again(flow.values[name])
        if name in flow.unpacked:
            value, j = flow.unpacked[name]
            return _where(value) or (j == 1 and _with_indices(value))
    return False


def group_index(expr: cst.BaseExpression, flow: Flow | None) -> cst.BaseExpression | None:
    """Where `expr` is one group's index taken from a per-group sequence inside a loop over the groups (`idx[i]`
    for `i` the loop's counter, or `idx` for the loop's item of a sequence): the first group's index instead."""
    if flow is None:
        return None
    if isinstance(expr, cst.Subscript):
        picked = group_first(expr, flow)
        return picked if picked is not None and _per_group(expr.value, flow) else None
    if isinstance(expr, cst.Name):
        if expr.value in dict_keys(flow):
            return None  # it keys a dict here: a name or text, not a group's rows
        first = flow.loop_first(expr, expr.value)
        if (isinstance(first, cst.Call) and isinstance(first.func, cst.Name) and first.func.value == "next"
                and _per_group(first.args[0].value.args[0].value, flow)):
            return first
    return None


def _per_group(seq: cst.BaseExpression, flow: Flow) -> bool:
    """Can `seq` be a sequence of per-group indices: a list built here, or a parameter or attribute (the caller's
    groups)? A name bound once to anything else is not: an item of an index tensor is one position, a group's key."""
    if isinstance(seq, cst.Attribute):
        return True
    if not isinstance(seq, cst.Name):
        return False
    if seq.value in flow.values:
        return isinstance(flow.values[seq.value], (cst.List, cst.ListComp))
    return True


def _where(expr: cst.BaseExpression) -> bool:
    """`torch.where(cond)` (one argument) or `nonzero(as_tuple=True)`: a tuple of index tensors."""
    if torch_call(expr, "where"):
        return len([a for a in expr.args if a.keyword is None]) == 1
    return (torch_call(expr, "nonzero") or method_call(expr, "nonzero")) and any(
        a.keyword is not None and a.keyword.value == "as_tuple" for a in expr.args)


def _with_indices(expr: cst.BaseExpression) -> bool:
    return torch_call(expr, *WITH_INDICES) or (method_call(expr, *WITH_INDICES) and bool(expr.args))
