"""Rules on how Python walks sequences: a cut that `zip` makes anyway."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule

WHOLE = ("whole_batch",)


def _int(expr: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, `-k` included; None for anything else."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
            isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.evaluated_value)
    return None


def _cut(node: cst.CSTNode) -> tuple[str, int | None, int | None] | None:
    """`name[start:stop]` with one plain slice (no step) of a name: the name and its integer bounds (None when the
    bound is absent; a bound that is no integer literal makes it None)."""
    if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name) or len(node.slice) != 1:
        return None
    part = node.slice[0].slice
    if not isinstance(part, cst.Slice) or part.step is not None:
        return None
    start, stop = _int(part.lower), _int(part.upper)
    if (part.lower is not None and start is None) or (part.upper is not None and stop is None):
        return None
    return node.value.value, start, stop


@rule
class ZipStopsAtShorter(Rule):
    name = "zip_stops_at_shorter"
    reason = ("the dropped cut only shortens an argument of zip to the length zip stops at anyway: another argument "
              "is a later cut of the same sequence, never longer")
    examples_operators = WHOLE
    suppresses = (
        "def increasing(ts):\n    return all(a < b for a, b in zip(ts[:-1], ts[1:]))\n",
        "def gaps(ts):\n    return [b - a for a, b in zip(ts[:-2], ts[2:])]\n",
    )
    keeps = (
        "def gaps(ts):\n    return [b - a for a, b in zip(ts[:-2], ts[1:])]\n",  # the other one is one longer
        "def gaps(ts, us):\n    return [b - a for a, b in zip(ts[:-1], us[1:])]\n",  # another sequence
        "def gaps(ts):\n    return [b - a for a, b in zip(ts[:-1], ts[1:], strict=True)]\n",  # raises on lengths
        "def zip(*xs):\n    return xs\n\ndef gaps(ts):\n    return zip(ts[:-1], ts[1:])\n",  # not Python's zip
    )

    def speaks_of(self, original: str, replacement: str) -> bool:
        return original.endswith("]") and original.split("[")[-1].startswith(":")  # the `ts[:-k]` cut dropped

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        flow, node = ctx.flow, mutant.node
        cut = _cut(node)
        if cut is None or cut[1] not in (None, 0) or cut[2] is None or cut[2] >= 0 or \
                not (isinstance(mutant.replacement, cst.Name) and mutant.replacement.value == cut[0]):
            return False  # not `name[:-k]` -> `name`
        arg = flow.parent(node)
        call = flow.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or call.func.value != "zip" or \
                flow.bound(call.func) or arg.keyword is not None or arg.star or \
                any(a.keyword is not None or a.star for a in call.args):
            return False  # Python's own zip, positional arguments only (`strict=True` raises on unequal lengths)
        dropped = -cut[2]
        for other in call.args:  # another argument `name[j:]`, j >= k: at most as long as `name[:-k]`
            found = _cut(other.value) if other is not arg else None
            if found is not None and found[0] == cut[0] and found[2] is None and found[1] is not None and \
                    found[1] >= dropped:
                return True
        return False
