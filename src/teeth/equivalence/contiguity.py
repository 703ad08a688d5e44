"""Contiguity rules: `t.stride()` -> `t.contiguous().stride()` (stride_assumption) is equivalent when `t` is
already contiguous where the stride is read, by the binding of `t` that reaches that use."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.effects import METHODS, base_of, contiguity, dotted
from teeth.equivalence.flow import assigned_value, binds, uses

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
        # made contiguous where it is not: contiguous on both paths
        "def f(x):\n    if not x.is_contiguous():\n        x = x.contiguous()\n    return x.stride(0)\n",
        "def f(x, d):\n    if x.is_contiguous():\n        pass\n    else:\n        x = x.contiguous()\n"
        "    x = x.view(-1, d)\n    return x.stride(0)\n",
        "def f(x):\n    x = x if x.is_contiguous() else x.contiguous()\n    return x.stride(0)\n",
        "def f(x):\n    x = x.contiguous() if not x.is_contiguous() else x\n    return x.stride(0)\n",
        "def f(x, n):\n    assert x.is_contiguous(), 'contiguous input'\n    for _ in range(n):\n"
        "        s = x.stride(0)\n    return s\n",  # asserted: a non-contiguous input raises in both
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
        # a guard that checks less than contiguity, another tensor, or leaves a branch that relays it
        "def f(x):\n    if x.stride(-1) != 1:\n        x = x.contiguous()\n    return x.stride(0)\n",
        "def f(x, y):\n    if not y.is_contiguous():\n        x = x.contiguous()\n    return x.stride(0)\n",
        "def f(x):\n    if not x.is_contiguous():\n        x = x.contiguous()\n    else:\n        x = x.t()\n"
        "    return x.stride(0)\n",
        "def f(x):\n    if x.is_contiguous():\n        x = x.contiguous()\n    return x.stride(0)\n",
        "def f(x):\n    x = x.t() if x.is_contiguous() else x.contiguous()\n    return x.stride(0)\n",
        "def f(x):\n    if not x.is_contiguous():\n        x = x.contiguous()\n        x = x.t()\n    return x.stride(0)\n",
        "def f(x, y):\n    assert y.is_contiguous()\n    return x.stride(0)\n",
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
    if guarded(ctx, use, depth - 1):
        return True
    reaching = ctx.flow.reaching(use)
    if reaching is None:
        return False
    if reaching.param is not None:
        function = ctx.flow.function_scope(use).node
        return decorated_contiguous(ctx, function)
    return value_contiguous(ctx, reaching.value, depth - 1)


def value_contiguous(ctx: Context, value: cst.BaseExpression, depth: int) -> bool:
    if isinstance(value, cst.IfExp):  # `x if x.is_contiguous() else x.contiguous()`
        tested = _contiguity_test(value.test)
        if tested is None:
            return False
        name, positive = tested
        when_contiguous, otherwise = (value.body, value.orelse) if positive else (value.orelse, value.body)
        return (_is_name(when_contiguous, name) or value_contiguous(ctx, when_contiguous, depth - 1)) and \
            value_contiguous(ctx, otherwise, depth - 1)
    made = contiguity(value, ctx.flow)
    if made == "yes":
        return True
    if made == "kept":  # `x.view(-1, d)`, `x.float()`: contiguous when `x` is
        base = base_of(value, ctx.flow)
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


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _contiguity_test(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """(NAME, True) for `NAME.is_contiguous()`, (NAME, False) for `not NAME.is_contiguous()`; None otherwise."""
    positive = True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, positive = test.expression, False
    if isinstance(test, cst.Call) and not test.args and isinstance(test.func, cst.Attribute) and \
            test.func.attr.value == "is_contiguous" and isinstance(test.func.value, cst.Name):
        return test.func.value.value, positive
    return None


def _guard(ctx: Context, statement: cst.If, name: str, depth: int) -> bool:
    """`if not NAME.is_contiguous(): ... NAME = <contiguous>` (or `if NAME.is_contiguous(): ... else: ...`): on the
    path where the test finds it contiguous nothing rebinds it, and on the other the block ends rebinding it to a
    contiguous tensor."""
    tested = _contiguity_test(statement.test)
    if tested is None or tested[0] != name:
        return False
    orelse = statement.orelse
    if isinstance(orelse, cst.If):  # an `elif`
        return False
    untouched, made = (statement.body, orelse.body if orelse is not None else None) if tested[1] else \
        (orelse.body if orelse is not None else None, statement.body)
    if made is None or (untouched is not None and binds(untouched, name)):
        return False
    last = made.body[-1] if isinstance(made, cst.IndentedBlock) and made.body else None
    small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    value = assigned_value(small, name)
    rest = list(made.body[:-1]) + (list(last.body[:-1]) if small is not None else [])
    return value is not None and value_contiguous(ctx, value, depth) and \
        not any(binds(other, name) for other in rest if not isinstance(other, cst.SimpleStatementLine) or
                other is not last)


def guarded(ctx: Context, use: cst.Name, depth: int) -> bool:
    """Where no one binding reaches `use`: is the first statement before it, in its block or a block around it, that
    binds the name or asserts about it a contiguity guard (`_guard`) or `assert NAME.is_contiguous()`?"""
    flow, name = ctx.flow, use.value
    node = flow.statement(use) or flow.statement_part(use)
    while node is not None and depth > 0:
        parent = flow.parent(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) or parent is None:
            return False
        if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine)):
            body = list(parent.body)
            for earlier in reversed(body[:body.index(node)]):
                smalls = earlier.body if isinstance(earlier, cst.SimpleStatementLine) else [earlier]
                for small in reversed(smalls):
                    if isinstance(small, cst.Assert) and _contiguity_test(small.test) == (name, True):
                        return True
                    if isinstance(small, cst.If) and binds(small, name):
                        return _guard(ctx, small, name, depth)
                    if binds(small, name):
                        return False  # another binding: `reaching` judged it
            owner = flow.parent(parent)
            if isinstance(owner, (cst.For, cst.While)) and parent is owner.body and binds(owner, name):
                return False  # the next iteration sees a later binding
            if isinstance(owner, (cst.ExceptHandler, cst.Finally, cst.Else)) and \
                    not isinstance(flow.parent(owner), cst.If):
                return False
        node = parent
    return False
