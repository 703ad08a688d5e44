"""Dead-store rules: a write dropped (`-> pass`) is equivalent when nothing can read what it wrote: the written local
(a tensor made fresh in the function) is never read again before it is rebound or the function returns, except to
write into itself, and the dropped statement had no other effect and could not raise. (Stores into dicts and lists
get no `-> pass` mutant: they splice no rows.)"""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.effects import method_effect
from teeth.equivalence.flow import assigned_value, bindings, uses
from teeth.equivalence.reads import DEPTH

STORES = ("dropped_replacement", "index_write")


def _literal(expr: cst.BaseExpression) -> bool:
    """A number, a string, True/False/None, or a negated number: evaluating it has no effect and cannot raise."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
        isinstance(expr.expression, (cst.Integer, cst.Float))


def _basic_slices(target: cst.Subscript) -> bool:
    """`t[a:b, :]`: slices only, with literal or named bounds; a slice past the end is clamped, never raises."""
    return all(isinstance(e.slice, cst.Slice) and all(b is None or _literal(b) or isinstance(b, cst.Name)
                                                      for b in (e.slice.lower, e.slice.upper, e.slice.step))
               for e in target.slice)


def stored_into(statement: cst.CSTNode) -> cst.Name | None:
    """The local a statement writes and nothing else: `x[k] = v`, `x[k] += v`, `x.fill_(v)` (an in-place method);
    the name `x` in it, or None."""
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
    elif isinstance(statement, cst.AugAssign):
        target = statement.target
    elif isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call) and \
            isinstance(statement.value.func, cst.Attribute):
        row = method_effect(statement.value)
        receiver = statement.value.func.value
        return receiver if row is not None and row.writes_receiver and isinstance(receiver, cst.Name) else None
    else:
        return None
    return target.value if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) else None


def made_fresh(value: cst.BaseExpression | None, ctx: Context) -> bool:
    """Does the binding make a new tensor nothing else holds (a torch call: `torch.zeros(n)`, `x.new_empty(s)`)?"""
    return isinstance(value, cst.Call) and ctx.reads.fresh(value)


def dropped_inert(statement: cst.CSTNode) -> bool:
    """Did the statement only write basic slices of its tensor with a literal (`t[1:] = 0`, `t[:, :k] += 1`)?
    Nothing in it has an effect, and it cannot raise: a slice past the end is clamped, a literal broadcasts."""
    if not isinstance(statement, (cst.Assign, cst.AugAssign)):
        return False
    target = statement.targets[0].target if isinstance(statement, cst.Assign) else statement.target
    return _basic_slices(target) and _literal(statement.value)


@rule
class DeadStore(Rule):
    name = "dead_store"
    reason = ("the dropped write goes into a tensor made fresh in the function that nothing reads afterwards, except "
              "to write into itself, before it is rebound or the function returns")
    examples_operators = STORES
    suppresses = (
        # a region of a new tensor written and never read
        "def f(x, n):\n    scratch = torch.zeros(n, 4)\n    scratch[:2] = 1\n    return x.sum()\n",
        # written, then the name rebound before any read: the written value is unreachable
        "def f(x, n):\n    out = torch.zeros(n)\n    out[1:] = 1\n    out = x * 2\n    return out\n",
        # read afterwards only to write into itself
        "def f(x, n):\n    acc = x.new_zeros(n, 2)\n    acc[:, 1:] = -1\n    acc.mul_(acc.shape[0])\n    return x\n",
    )
    keeps = (
        "def f(x, n):\n    out = torch.zeros(n)\n    out[1:] = 1\n    return out\n",  # returned
        "def f(x, n):\n    out = torch.zeros(n)\n    head = out[:]\n    out[1:] = 1\n    return head\n",  # a view
        "def f(out):\n    out[1:] = 1\n    return out.sum()\n",  # the caller's tensor
        "def f(x, n):\n    out = torch.zeros(n)\n    out[x] = 1\n    return x\n",  # an index may raise
        "def f(x, n):\n    out = torch.zeros(n)\n    out[1:] = x\n    return x\n",  # a value that may not broadcast
        "def f(x, n):\n    out = torch.zeros(n)\n    out[1:] = 1\n    def g():\n        return out\n"
        "    return g\n",  # a closure reads it later
        "def f(x, n, c):\n    out = torch.zeros(n)\n    out[1:] = 1\n    if c:\n        out = x * 2\n"
        "    return out\n",  # rebound on one path only
        "def f(x, n):\n    out = torch.zeros(n)\n    for i in range(n):\n        x = x + out[0]\n        out[1:] = 1\n"
        "    return x\n",  # read by the next iteration
        "def f(x, n):\n    out = torch.zeros(n)\n    out[1:] = 1\n    x[:1] = out[1:].sum()\n    return x\n",
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        if not isinstance(mutant.replacement, cst.Pass):
            return False
        statement = mutant.node
        local = stored_into(statement)
        if local is None:
            return False
        return dropped_inert(statement) and self._fresh(local, ctx) and self._dead_after(local, statement, ctx)

    def _fresh(self, local: cst.Name, ctx: Context) -> bool:
        """Is the local's value where it is written a new tensor: the binding that reaches the write makes one, or,
        failing one (a loop, a branch), every binding of the name does?"""
        flow = ctx.flow
        scope = flow.function_scope(local)
        if scope is None or local.value not in scope.assignments or \
                any(a.scope is not scope for a in scope.assignments[local.value]):
            return False
        reaching = flow.reaching(local)
        if reaching is not None and reaching.value is not None:
            return made_fresh(reaching.value, ctx)
        for assignment in bindings(scope, local.value, flow):
            target = flow.parent(assignment.node)
            statement = flow.parent(target) if isinstance(target, cst.AssignTarget) else target
            if not isinstance(statement, (cst.Assign, cst.AnnAssign)) or \
                    not made_fresh(assigned_value(statement, local.value), ctx):
                return False  # a parameter, a loop target, `x += ...`, or not a new tensor
        return True

    def _dead_after(self, local: cst.Name, statement: cst.CSTNode, ctx: Context) -> bool:
        """Is every use of the local a read that makes no alias of it, and every use that may run after `statement`
        either a write into it (a statement that only writes it), a read inside such a write, or a use another
        binding reaches?"""
        flow = ctx.flow
        scope = flow.function_scope(local)
        later = {id(s) for s in flow.after(statement)}
        for use in uses(scope, local.value, flow):
            node = use.node
            if use.scope is not scope or not isinstance(node, cst.Name):
                return False  # a nested function or a comprehension reads it: when, it cannot tell
            if node is local:
                continue
            if not flow.within(node, later):
                if not ctx.reads.read_here(node, DEPTH):
                    return False  # before the write: an alias made then would see it
                continue
            reaching = flow.reaching(node)
            if reaching is not None and reaching.statement is not None and \
                    flow.runs_before(statement, reaching.statement):
                continue  # rebound after the write, on every path: this use sees the new value
            writer = flow.statement(node)
            if writer is None or stored_into(writer) is None or stored_into(writer).value != local.value:
                return False  # read after the write
            if stored_into(writer) is not node and not ctx.reads.read_here(node, DEPTH):
                return False  # inside a write into itself, but stored as a whole (`d[k] = d`)
        return True
