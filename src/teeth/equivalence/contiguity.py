"""Contiguity rules: `t.stride()` -> `t.contiguous().stride()` (stride_assumption) is equivalent when `t` is
already contiguous where the stride is read, by the binding of `t` that reaches that use."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.effects import METHODS, base_of, contiguity, dotted
from teeth.equivalence.flow import uses

DEPTH = 12


@rule
class AlreadyContiguous(Rule):
    name = "already_contiguous"
    reason = "the tensor is already contiguous here: .contiguous() returns it unchanged"
    examples_operators = ("stride_assumption",)
    suppresses = (
        "def f(x):\n    x = x.contiguous()\n    return x.stride(0)\n",
        "@ensure_contiguous\ndef f(x, w):\n    return x.stride(0), w.stride(1)\n",
        "class K:\n    @staticmethod\n    @utils.ensure_contiguous\n    def forward(ctx, x):\n"
        "        return x.stride()\n",
        "def f(n):\n    out = torch.empty(n, 4)\n    return out.stride(0)\n",
        "def f(x, y):\n    if y:\n        x = x.contiguous()\n        s = x.stride(0)\n    return y\n",
        # the binding that reaches the use is contiguous, whatever an earlier one was
        "def f(q, k):\n    q = q.transpose(1, 2)\n    q = q.contiguous()\n    kern[(1,)](q, q.stride(1))\n    return q\n",
        "def f(x, d):\n    x = x.contiguous()\n    x = x.view(-1, d)\n    return x.stride(0)\n",  # a view of a contiguous one
    )
    keeps = (
        "def f(x):\n    return x.stride(0)\n",  # a parameter, no decorator
        "def f(x):\n    s = x.stride(0)\n    x = x.contiguous()\n    return s\n",  # made contiguous after
        "def f(x, y):\n    if y:\n        x = x.contiguous()\n    return x.stride(0)\n",  # on one path only
        "def f(x):\n    x = x.contiguous()\n    x.transpose_(0, 1)\n    return x.stride(0)\n",  # relaid
        "def f(x):\n    x = x.contiguous()\n    x = x.t()\n    return x.stride(0)\n",  # rebound to a view
        "@other_decorator\ndef f(x):\n    return x.stride(0)\n",  # not a configured decorator
        "@ensure_contiguous\ndef f(x):\n    y = x.t()\n    return y.stride(0)\n",  # a view of the argument
        # a row-strided input viewed: its stride is not the row length (a slice of a wider projection)
        "def f(x, dim):\n    x = x.view(-1, dim)\n    return x.stride(0)\n",
        "def f(q):\n    q = q.contiguous()\n    q = q.transpose(1, 2)\n    return q.stride(1)\n",  # relaid after
        "def f(q, c):\n    q = q.contiguous()\n    for _ in c:\n        s = q.stride(0)\n        q = q.t()\n    return s\n",
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        node = mutant.node
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)):
            return False
        receiver = node.func.value
        scope = ctx.flow.function_scope(receiver)
        if scope is None or receiver.value not in scope.assignments:
            return False
        for use in uses(scope, receiver.value, ctx.flow):  # relaid out in place, or its layout assigned: not by binding
            holder = ctx.flow.parent(use.node)
            if isinstance(holder, cst.Attribute) and holder.value is use.node:
                row = METHODS.get(holder.attr.value)
                if (row is not None and row.writes_receiver and row.contiguous != "kept") or \
                        ctx.flow.assigned_to(holder) is not None:
                    return False
        return contiguous_at(ctx, receiver, DEPTH)


def contiguous_at(ctx: Context, use: cst.Name, depth: int) -> bool:
    """Is the tensor `use` names contiguous there, by the binding that reaches it?"""
    if depth <= 0:
        return False
    reaching = ctx.flow.reaching(use)
    if reaching is None:
        return False
    if reaching.param is not None:
        function = ctx.flow.function_scope(use).node
        return decorated_contiguous(ctx, function)
    return value_contiguous(ctx, reaching.value, depth - 1)


def value_contiguous(ctx: Context, value: cst.BaseExpression, depth: int) -> bool:
    made = contiguity(value)
    if made == "yes":
        return True
    if made == "kept":  # `x.view(-1, d)`, `x.float()`: contiguous when `x` is
        base = base_of(value)
        if isinstance(base, cst.Name):
            return contiguous_at(ctx, base, depth)
        return base is not None and value_contiguous(ctx, base, depth - 1)
    return False


def decorated_contiguous(ctx: Context, function: cst.FunctionDef) -> bool:
    """Decorated with one of the target's `contiguous_decorators` (its arguments made contiguous on entry)."""
    for decorator in function.decorators:
        expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        name = dotted(expr)
        if name and (name in ctx.flow.contiguous_decorators or
                     name.rsplit(".", 1)[-1] in ctx.flow.contiguous_decorators):
            return True
    return False
