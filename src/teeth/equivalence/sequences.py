"""Rules on how Python walks sequences: a cut that `zip` makes anyway; a first round that compares the first
element with itself."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.flow import bindings, uses

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


# Members whose value is a size, a shape, a dtype or a device: values equal to themselves (`!=` is False) whatever the
# tensor holds; `size`, `dim`, `numel`, `stride` called, the others read.
SIZE_METHODS = frozenset("size dim numel stride".split())
SIZE_ATTRIBUTES = frozenset("shape ndim dtype device layout".split())
SIZE_BUILTINS = frozenset("len tuple list type".split())


def _code(node: cst.CSTNode) -> str:
    return "".join(cst.Module([]).code_for_node(node).split())


def _start(node: cst.CSTNode, name: str) -> int | None:
    """Where `name[start:]` (or the whole `name`) starts walking `name`: `name` -> 0, `name[a:]` -> a when `a` is an
    integer literal or a sum or difference of them; None for anything else (a stop or step, other names)."""
    if isinstance(node, cst.Name):
        return 0 if node.value == name else None
    if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name) or node.value.value != name or \
            len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return None
    part = node.slice[0].slice
    if part.upper is not None or part.step is not None:
        return None
    return 0 if part.lower is None else _evaluated(part.lower)


def _evaluated(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        left, right = _evaluated(expr.left), _evaluated(expr.right)
        if left is None or right is None:
            return None
        return left + right if isinstance(expr.operator, cst.Add) else left - right
    return _int(expr)


class _Rounds:
    """The extra first round of a walk over `seq[1:]` widened to `seq`: its element is `seq[0]`, bound to `element`.
    Which expressions of the loop are the same value for that element as `seq[0]`'s, a value equal to itself?"""

    def __init__(self, flow, seq: str, element: str, sizes: bool):
        self.flow, self.seq, self.element, self.sizes = flow, seq, element, sizes

    def _first(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) and expr.value.value == self.seq \
            and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) and \
            _int(expr.slice[0].slice.value) == 0

    def mirrored(self, mine: cst.BaseExpression, first: cst.BaseExpression) -> bool:
        """Is `mine` (of the element) the same pure expression as `first` (of `seq[0]`), and its value equal to
        itself: the element itself when the sequence holds sizes, or a size, shape, dtype or device read of it?"""
        if isinstance(mine, cst.Name) and mine.value == self.element:
            return self.sizes and self._first(first)
        return self._reflexive(mine, first)

    def _reflexive(self, mine, first) -> bool:
        if isinstance(mine, cst.Attribute) and isinstance(first, cst.Attribute):
            return mine.attr.value == first.attr.value and mine.attr.value in SIZE_ATTRIBUTES and \
                self._same(mine.value, first.value)
        if isinstance(mine, cst.Call) and isinstance(first, cst.Call):
            if any(a.star or a.keyword is not None for a in (*mine.args, *first.args)):
                return False
            if isinstance(mine.func, cst.Attribute) and isinstance(first.func, cst.Attribute):
                return mine.func.attr.value == first.func.attr.value and mine.func.attr.value in SIZE_METHODS and \
                    all(_pure(a.value) for a in mine.args) and \
                    [_code(a.value) for a in mine.args] == [_code(a.value) for a in first.args] and \
                    self._same(mine.func.value, first.func.value)
            if isinstance(mine.func, cst.Name) and isinstance(first.func, cst.Name) and \
                    mine.func.value == first.func.value and mine.func.value in SIZE_BUILTINS and \
                    not self.flow.bound(mine.func) and len(mine.args) == 1:
                arg, other = mine.args[0].value, first.args[0].value
                if mine.func.value == "type":
                    return self._same(arg, other)  # a class is equal to itself
                return self._reflexive(arg, other) or (mine.func.value == "len" and self._same(arg, other))
            return False
        if isinstance(mine, cst.Subscript) and isinstance(first, cst.Subscript):
            return _pure_index(mine) and _code(mine.slice[0]) == _code(first.slice[0]) and \
                self._reflexive(mine.value, first.value)  # a size of a shape, a slice of one
        return False

    def _same(self, mine, first) -> bool:
        """The element and `seq[0]`, or a member of them read alike."""
        if isinstance(mine, cst.Name) and mine.value == self.element:
            return self._first(first)
        if isinstance(mine, cst.Attribute) and isinstance(first, cst.Attribute):
            return mine.attr.value == first.attr.value and self._same(mine.value, first.value)
        return False

    def false(self, test: cst.BaseExpression) -> bool:
        """Is `test` False for the extra round, evaluated with no effect?"""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.true(test.expression)
        if isinstance(test, cst.BooleanOperation):
            if isinstance(test.operator, cst.Or):
                return self.false(test.left) and self.false(test.right)
            return self.false(test.left)  # `and`: the right side is never evaluated
        return self._compared(test, (cst.NotEqual, cst.IsNot))

    def true(self, test: cst.BaseExpression) -> bool:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.false(test.expression)
        if isinstance(test, cst.BooleanOperation):
            if isinstance(test.operator, cst.And):
                return self.true(test.left) and self.true(test.right)
            return self.true(test.left)
        return self._compared(test, (cst.Equal, cst.Is))

    def _compared(self, test, operators) -> bool:
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or \
                not isinstance(test.comparisons[0].operator, operators):
            return False
        left, right = test.left, test.comparisons[0].comparator
        return self.mirrored(left, right) or self.mirrored(right, left)


def _pure(expr: cst.BaseExpression) -> bool:
    """An integer, or a name: evaluating it does nothing."""
    return isinstance(expr, (cst.Integer, cst.Name)) or _int(expr) is not None


def _pure_index(node: cst.Subscript) -> bool:
    if len(node.slice) != 1:
        return False
    part = node.slice[0].slice
    if isinstance(part, cst.Index):
        return _pure(part.value)
    return all(p is None or _pure(p) for p in (part.lower, part.upper, part.step))


def _size_value(expr: cst.BaseExpression, flow, depth: int = 4) -> bool:
    """Is `expr` surely a size (an int) or a shape: `x.size(0)`, `x.shape[1]`, `x.dim()`, `len(x)`, an int, or an
    item of a local bound only to a shape?"""
    if _int(expr) is not None:
        return True
    if isinstance(expr, cst.Name):
        return depth > 0 and _only_sizes(flow, expr, depth - 1)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in ("shape", "ndim")
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute):
            return expr.func.attr.value in ("size", "dim", "numel") and all(_pure(a.value) for a in expr.args)
        return isinstance(expr.func, cst.Name) and expr.func.value in ("len", "tuple", "list") and \
            not flow.bound(expr.func) and len(expr.args) == 1 and \
            (expr.func.value == "len" or _size_value(expr.args[0].value, flow, depth))
    if isinstance(expr, cst.Subscript) and _pure_index(expr):
        return _size_value(expr.value, flow, depth)
    return False


def _only_sizes(flow, name: cst.Name, depth: int = 4) -> bool:
    """Is the local `name` a list or tuple made in its function of sizes only: each binding a literal, a
    comprehension or a shape whose items are sizes, and each other use a read (an item, `len`, a loop) or an
    `append` of a size?"""
    scope = flow.function_scope(name)
    if scope is None or name.value not in scope.assignments:
        return False
    param = _parameter(flow, scope, name.value)
    if param is not None:
        return depth > 0 and _given_sizes(flow, *param, depth - 1)
    immutable = True
    for assignment in bindings(scope, name.value, flow):
        target = flow.parent(assignment.node)
        holder = flow.parent(target) if isinstance(target, cst.AssignTarget) else None
        if not isinstance(holder, cst.Assign) or len(holder.targets) != 1 or target.target is not assignment.node:
            return False  # one `name = value`
        value = holder.value
        immutable = immutable and (isinstance(value, cst.Tuple) or (
            isinstance(value, cst.Call) and not isinstance(value.func, cst.Name)) or (
            isinstance(value, cst.Call) and value.func.value == "tuple") or isinstance(value, cst.Attribute))
        if isinstance(value, (cst.List, cst.Tuple)):
            if not all(isinstance(e, cst.Element) and _size_value(e.value, flow, depth) for e in value.elements):
                return False
        elif isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            if not _size_value(value.elt, flow, depth):
                return False
        elif not _size_value(value, flow, depth):
            return False
    if immutable:
        return True  # a tuple or a shape: no use can change its items
    for use in uses(scope, name.value, flow):
        node, parent = use.node, flow.parent(use.node)
        if isinstance(parent, cst.Subscript) and parent.value is node and flow.assigned_to(parent) is None:
            continue
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
            continue
        if isinstance(parent, cst.Arg):
            call = flow.parent(parent)
            if isinstance(call.func, cst.Name) and call.func.value == "len" and not flow.bound(call.func):
                continue
            return False
        if isinstance(parent, cst.Attribute) and parent.attr.value == "append":
            call = flow.parent(parent)
            if isinstance(call, cst.Call) and call.func is parent and len(call.args) == 1 and \
                    _size_value(call.args[0].value, flow, depth):
                continue
        return False
    return True


def _parameter(flow, scope, name: str):
    """(the function, the parameter's position) when `name` is a positional parameter of a function defined in
    another function, never rebound; else None."""
    function = getattr(scope, "node", None)
    if not isinstance(function, cst.FunctionDef) or function.params.star_arg is not cst.MaybeSentinel.DEFAULT and \
            isinstance(function.params.star_arg, cst.Param):
        return None
    params = [*function.params.posonly_params, *function.params.params]
    positions = [i for i, p in enumerate(params) if p.name.value == name]
    if not positions or len(scope.assignments[name]) != 1 or params[positions[0]].default is not None:
        return None
    return function, positions[0]


def _given_sizes(flow, function: cst.FunctionDef, position: int, depth: int) -> bool:
    """Is `function` a function nested in another, named only by calls there, each giving a size (or shape) for the
    parameter at `position`?"""
    outer = flow.function_scope(function.name)
    if outer is None or len(outer.assignments[function.name.value]) != 1:
        return False
    found = False
    for use in uses(outer, function.name.value, flow):
        call = flow.parent(use.node)
        if not isinstance(call, cst.Call) or call.func is not use.node or len(call.args) <= position or \
                any(a.star or a.keyword is not None for a in call.args[:position + 1]):
            return False
        if not _size_value(call.args[position].value, flow, depth):
            return False
        found = True
    return found


@rule
class FirstComparedWithItself(Rule):
    name = "first_compared_with_itself"
    reason = ("the walk now starts at the first element, which the loop only compares with itself (a size, shape, "
              "dtype or device, equal to itself): the extra round does nothing")
    examples_operators = ("whole_batch", "wrong_slice_start")
    suppresses = (
        "def check(xs, ys):\n    sizes = [xs.size(0), ys.shape[0]]\n    for size in sizes[1:]:\n"
        "        if size != sizes[0]:\n            raise ValueError('sizes differ')\n",
        "def check(ts):\n    for t in ts[1:]:\n        if t.shape != ts[0].shape or t.dtype != ts[0].dtype:\n"
        "            raise ValueError('shapes differ')\n    return ts\n",
        "def same(ts):\n    return all(t.size(-1) == ts[0].size(-1) for t in ts[1:])\n",
        "def check(ts):\n    for t in ts[1:]:\n        assert len(t) == len(ts[0])\n",
        "def check(x, y):\n    sizes = [x.size(0)]\n\n    def add(shape):\n        sizes.append(shape[0])\n\n"
        "    add(tuple(y.size()))\n    for size in sizes[1:]:\n        if size != sizes[0]:\n            raise ValueError\n",
    )
    keeps = (
        "def check(xs, ys):\n    sizes = [xs.size(0), ys.shape[0]]\n    for size in sizes[1:]:\n"
        "        if size != sizes[0]:\n            raise ValueError('sizes differ')\n    return size\n",  # the name outlives the loop
        "def check(ts):\n    for t in ts[1:]:\n        if t != ts[0]:\n            raise ValueError('differ')\n",  # a NaN
        "def check(ts):\n    for t in ts[1:]:\n        if t.shape == ts[0].shape:\n            print(t)\n",  # runs
        "def check(ts):\n    for t in ts[1:]:\n        if t.shape != ts[-1].shape:\n            raise ValueError\n",
        "def check(xs, values):\n    sizes = [xs.size(0), values[0]]\n    for size in sizes[1:]:\n"
        "        if size != sizes[0]:\n            raise ValueError('sizes differ')\n",  # not only sizes
        "def check(x, ys):\n    sizes = [x.size(0)]\n\n    def add(shape):\n        sizes.append(shape[0])\n\n"
        "    add(ys)\n    for size in sizes[1:]:\n        if size != sizes[0]:\n            raise ValueError\n",  # any items
        "def differs(ts):\n    return list(t.shape != ts[0].shape for t in ts[1:])\n",  # one item per round
    )

    def speaks_of(self, original: str, replacement: str) -> bool:
        try:
            node, new = cst.parse_expression(original), cst.parse_expression(replacement)
        except cst.ParserSyntaxError:
            return False
        seq = node.value.value if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) else None
        return seq is not None and _start(node, seq) == 1 and _start(new, seq) == 0

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        flow, node = ctx.flow, mutant.node
        if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name):
            return False
        seq = node.value.value
        if _start(node, seq) != 1 or _start(mutant.replacement, seq) != 0:
            return False  # not `seq[1:]` -> `seq` (or `seq[0:]`)
        walk = flow.parent(node)
        if not isinstance(walk, (cst.For, cst.CompFor)) or walk.iter is not node or \
                not isinstance(walk.target, cst.Name):
            return False
        rounds = _Rounds(flow, seq, walk.target.value, _only_sizes(flow, node.value))
        if isinstance(walk, cst.For):
            return self._loop(walk, rounds, flow)
        comprehension = flow.parent(walk)
        arg = flow.parent(comprehension)
        call = flow.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(comprehension, cst.GeneratorExp) or comprehension.for_in is not walk or walk.ifs or \
                walk.inner_for_in is not None or walk.asynchronous is not None or \
                not isinstance(call, cst.Call) or len(call.args) != 1 or not isinstance(call.func, cst.Name) or \
                flow.bound(call.func):
            return False  # `all(...)` / `any(...)` of one generator with one `for` and no `if`
        if call.func.value == "all":
            return rounds.true(comprehension.elt)  # one more True: all is unchanged
        return call.func.value == "any" and rounds.false(comprehension.elt)

    def _loop(self, loop: cst.For, rounds: _Rounds, flow) -> bool:
        if loop.asynchronous is not None or not isinstance(loop.body, cst.IndentedBlock):
            return False
        scope = flow.function_scope(loop.target)
        if scope is None or any(not flow.within(u.node, {id(loop.body)}) for u in uses(scope, rounds.element, flow)):
            return False  # the loop's name is read after the loop: a walk of one element now binds it
        if any(not flow.within(a.node, {id(loop)}) for a in bindings(scope, rounds.element, flow)):
            return False
        for statement in loop.body.body:
            if isinstance(statement, cst.If):
                if statement.orelse is not None or not rounds.false(statement.test):
                    return False
            elif isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
                    isinstance(statement.body[0], cst.Assert):
                if not rounds.true(statement.body[0].test):
                    return False
            else:
                return False
        return True
