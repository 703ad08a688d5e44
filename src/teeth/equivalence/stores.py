"""Store rules. A write dropped (`-> pass`) is equivalent when nothing can read what it wrote: the written local
(a tensor made fresh in the function) is never read again before it is rebound or the function returns, except to
write into itself, and the dropped statement had no other effect and could not raise. (Stores into dicts and lists
get no `-> pass` mutant: they splice no rows.) An accumulation turned into an overwrite (`+= -> =`) is equivalent
when what it accumulates into is still all zeros, not bool, and the value is a small non-negative integer."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.effects import dotted, function_effect, function_name, has_out, method_effect
from teeth.equivalence.flow import assigned_value, bindings, uses, walk
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


ZEROS = ("zeros", "zeros_like")  # torch's factories of zeros (and the method `new_zeros`)
SMALL = range(0, 128)  # integers every dtype but bool holds exactly (int8, uint8)
NOT_BOOL = frozenset("float float32 float64 double float16 half bfloat16 int int8 int16 int32 int64 long short uint8 "
                     "complex64 complex128".split())


def _zeros(value: cst.BaseExpression | None, ctx: Context) -> bool:
    """Does `value` make a new tensor of zeros of a dtype that is not bool (`torch.zeros(n)`, of the default floating
    dtype; `torch.zeros_like(x, dtype=torch.long)`, `x.new_zeros(n, dtype=torch.float)`)? A bool tensor cannot take
    an integer added in place (it raises; the overwrite stores True), and `zeros_like`'s dtype is its argument's."""
    if not isinstance(value, cst.Call) or has_out(value):
        return False
    flow = ctx.flow
    name = function_name(value, flow)
    if name in ZEROS:
        made = function_effect(value, flow) is not None
    else:
        func = value.func
        made = isinstance(func, cst.Attribute) and func.attr.value == "new_zeros" and \
            not flow.module_function(value) and method_effect(value, flow) is not None
    if not made:
        return False
    dtype = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is None:
        return name == "zeros" and not any(a.star for a in value.args)  # the default dtype: a floating one
    qualified = flow.qualified(dtype) or dotted(dtype) or ""
    return qualified.startswith("torch.") and qualified.split(".", 1)[1] in NOT_BOOL


@rule
class AccumulatedIntoZeros(Rule):
    name = "accumulated_into_zeros"
    reason = ("the accumulation adds a small non-negative integer into a tensor of zeros (not bool) made in the same "
              "block that nothing has touched since: 0 + v is v, so overwriting with v stores the same values")
    examples_operators = ("index_write",)
    suppresses = (
        "def f(x, n):\n    eye = torch.zeros(n, n)\n    eye[..., torch.arange(n), torch.arange(n)] += 1\n"
        "    return x @ eye\n",
        "def f(x):\n    idx = x > 0\n    counts = x.new_zeros(x.shape[0], dtype=torch.long)\n    counts[idx] += 1\n    return counts\n",
        "def f(x):\n    idx = x > 0\n    seen = torch.zeros_like(x, dtype=torch.float16)\n    k = idx.max()\n    seen[idx] += 1\n    return seen, k\n",
    )
    keeps = (
        "def f(x, y):\n    idx = x > 0\n    out = torch.zeros(x.shape[0])\n    out[idx] += y\n    return out\n",  # a tensor:
        # integers add into floats, an index_put of them raises; and 0.0 + -0.0 is 0.0
        "def f(x):\n    idx = x > 0\n    out = torch.ones(x.shape[0])\n    out[idx] += 1\n    return out\n",  # not zeros
        "def f(x):\n    idx = x > 0\n    out = torch.zeros(x.shape[0])\n    out[:2] = 3\n    out[idx] += 1\n    return out\n",
        "def f(x):\n    idx = x > 0\n    out = torch.zeros(4)\n    for i in range(3):\n        out[x > i] += 1\n    return out\n",
        "def f(x):\n    idx = x > 0\n    out = torch.zeros(4, dtype=torch.uint8)\n    out[idx] += -1\n    return out\n",
        "def f(x):\n    idx = x > 0\n    out = torch.zeros(4)\n    view = out[:2]\n    view.fill_(1)\n    out[idx] += 1\n"
        "    return out\n",  # written through a view
        "def f(x):\n    idx = x > 0\n    seen = torch.zeros_like(x)\n    seen[idx] += 1\n    return seen\n",  # bool?
        "def f(x):\n    idx = x > 0\n    seen = torch.zeros(4, dtype=torch.bool)\n    seen[idx] += 1\n    return seen\n",
        "def f(x, out):\n    idx = x > 0\n    out[idx] += 1\n    return out\n",  # the caller's tensor
        "def f(x, c):\n    idx = x > 0\n    out = torch.zeros(4)\n    if c:\n        out = x\n    out[idx] += 1\n    return out\n",
        "def f(x):\n    idx = x > 0\n    out = torch.zeros(4)\n    out[idx] -= 1\n    return out\n",  # 0 - v is not v
        "def f(x):\n    out = torch.zeros(4)\n    out[(x > 0) & bump(out)] += 1\n    return out\n",  # the index may write it
        "from mylib import zeros\n\ndef f(x):\n    idx = x > 0\n    out = zeros(4)\n    out[idx] += 1\n    return out\n",
    )

    def speaks_of(self, original: str, replacement: str) -> bool:
        return replacement.strip() != "pass"  # the overwrite, not the write dropped

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        statement = mutant.node
        if not isinstance(statement, cst.AugAssign) or not isinstance(mutant.replacement, cst.Assign) or \
                not isinstance(statement.operator, cst.AddAssign):
            return False
        value = statement.value
        if not isinstance(value, cst.Integer) or int(value.evaluated_value) not in SMALL:
            return False
        target = statement.target
        if not isinstance(target, cst.Subscript) or not isinstance(target.value, cst.Name) or \
                any(isinstance(n, cst.Name) and n.value == target.value.value for e in target.slice for n in walk(e)):
            return False  # an index that uses the tensor may write into it first (`out[g(out)] += 1`)
        return _zeros(_made_just_before(ctx.flow, statement, target.value.value), ctx)


def _made_just_before(flow, statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of `name = value`, the last line before `statement`'s in its block that uses `name` at all (so no
    loop runs `statement` again without it, and nothing touched the value between), each alone on its line; None
    when there is none, or `name` is no plain local of the function."""
    line = flow.parent(statement)
    block = flow.parent(line)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or \
            not isinstance(block, cst.IndentedBlock):
        return None
    scope = flow.function_scope(statement)
    if scope is None or name not in scope.assignments or any(a.scope is not scope for a in scope.assignments[name]):
        return None  # a global, a closure's
    body = list(block.body)
    for earlier in reversed(body[:body.index(line)]):
        if not any(isinstance(n, cst.Name) and n.value == name for n in walk(earlier)):
            continue
        if not isinstance(earlier, cst.SimpleStatementLine) or len(earlier.body) != 1:
            return None
        made = earlier.body[0]
        if isinstance(made, cst.Assign) and len(made.targets) == 1 and isinstance(made.targets[0].target, cst.Name) \
                and made.targets[0].target.value == name and \
                not any(isinstance(n, cst.Name) and n.value == name for n in walk(made.value)):
            return made.value
        return None
    return None
