"""Where a tensor value goes: is it only read (no write through it, no escape), by the effects table and the kernels'
own effects. Conservative: anything it cannot see through (an unknown callee, an attribute, a container, a closure
returning it) is not a read."""

from __future__ import annotations

import builtins

import libcst as cst
from libcst.metadata import ComprehensionScope, FunctionScope

from teeth.equivalence.effects import ATTRIBUTES, FUNCTIONS, LAYOUT, METHODS, TENSOR_ONLY, VIEWS, call_effect, context_records, \
    contiguity, function_effect, function_name, has_out, is_fresh, method_effect, relaid_base, storage_root, \
    torch_writes_nothing, unpacked_from_new
from teeth.equivalence.flow import Flow, assigned_value, bindings, uses, walk
from teeth.equivalence.tensors import copying_index, is_tensor

DEPTH = 12  # how many bindings a value is followed through

_READ_PARENTS = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget, cst.Expr, cst.If,
                 cst.While, cst.Assert, cst.FormattedStringExpression, cst.Index, cst.Slice)


def _reads_only(call: cst.Call, callees=None, flow: Flow | None = None) -> bool:
    """A function call that writes none of its arguments and returns a new value (fresh or scalar); a bare name that
    is a function of the package is judged by its own body (`read_by_callee`), not by the torch row of that name."""
    if callees is not None and isinstance(call.func, cst.Name) and callees.function(flow, call) is not None:
        return False
    row = function_effect(call, flow)
    return row is not None and row.result != "alias" and not has_out(call)


# Tensor methods that write nothing and yet may hold on to a tensor argument: autograd may keep the gradient given to
# `backward` as a leaf's `.grad` itself, not a copy.
KEEPS_ARGUMENT = frozenset({"backward"})


class Reads:
    """The questions about one file; `callees` resolves calls to functions of the target's package (None: every such
    call is unknown); with `returns_of` (a function), a `return` of that function counts as a read: the value reaches
    its result, whose uses its callers judge."""

    def __init__(self, flow: Flow, callees=None, returns_of: cst.FunctionDef | None = None):
        self.flow = flow
        self.callees = callees
        self.returns_of = returns_of

    def fresh(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` a new tensor nothing else holds: a torch call that makes one, or a call of a function of the
        package whose every return does?"""
        if not self._own_function(expr):
            return is_fresh(expr, self.flow) or copying_index(expr, self.flow)
        effects = self.callees.effects(self.flow, expr)
        return effects is not None and effects.fresh and not has_out(expr)

    def _own_function(self, call: cst.CSTNode) -> bool:
        """Is `call` a call of a bare name bound to a function of the package (which shadows a torch name)?"""
        return isinstance(call, cst.Call) and isinstance(call.func, (cst.Name, cst.Attribute)) and \
            self.callees is not None and self.callees.function(self.flow, call) is not None

    def read_by_callee(self, call: cst.Call, arg: cst.Arg, seen: set | None = None, depth: int = 0,
                       bind: bool = True) -> bool:
        """`f(..., x, ...)` with `f` a function of the package that only reads that parameter, or lets it reach only
        its result, which is only read here (`seen`, `depth`: that check's; depth 0 skips it)."""
        if self.callees is None:
            return False
        effects = self.callees.effects(self.flow, call)
        param = self.callees.parameter(self.flow, call, arg, effects) if effects is not None else None
        if param is None:
            return False
        if param in effects.read:
            return True
        return depth > 0 and param in effects.returned and self.only_read(call, seen, depth - 1, bind)

    def _returned_here(self, node: cst.Return) -> bool:
        """Is `node` a return of `returns_of` itself (not of a function nested in it)?"""
        if self.returns_of is None:
            return False
        parent = self.flow.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            parent = self.flow.parent(parent)
        return parent is self.returns_of

    def only_read(self, node: cst.CSTNode, seen: set, depth: int, bind: bool = True) -> bool:
        """Is the value of `node` only read where it goes? With `bind` False it must also never be bound to a name."""
        flow = self.flow
        if depth <= 0:
            return False
        parent = flow.parent(node)
        if isinstance(parent, _READ_PARENTS):
            return True
        if isinstance(parent, cst.Return) and self._returned_here(parent):
            return True
        if isinstance(parent, cst.AugAssign):
            return parent.target is not node  # `rows += 1` writes rows in place
        if isinstance(parent, (cst.BooleanOperation, cst.IfExp)):
            if isinstance(parent, cst.IfExp) and parent.test is node:
                return True
            return self.only_read(parent, seen, depth - 1, bind)  # the result may be this value
        if isinstance(parent, cst.Attribute) and parent.value is node:
            if parent.attr.value in LAYOUT and not (parent.attr.value in VIEWS and contiguity(node, flow) == "yes"):
                return False  # where it lies in memory: a copy's differs (`view` of a contiguous tensor never raises)
            holder = flow.parent(parent)
            if isinstance(holder, cst.Call) and holder.func is parent:
                row = method_effect(holder, flow)
                if row is None or row.writes_receiver:
                    return False  # an in-place or unknown method
                return row.result != "alias" or self.only_read(holder, seen, depth - 1, bind)
            row = ATTRIBUTES.get(parent.attr.value)
            if row is not None and row.result == "scalar":
                return flow.assigned_to(parent) is None
            return row is not None and self.only_read(parent, seen, depth - 1, bind)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            if flow.assigned_to(parent) is not None:
                return False  # `rows[0] = v`
            if copying_index(parent, flow):
                return True  # `rows[idx]`, `rows[mask]`: a new tensor
            return self.only_read(parent, seen, depth - 1, bind)  # indexing: a view, or a copy
        if isinstance(parent, cst.Arg):
            call = flow.parent(parent)
            if not isinstance(call, cst.Call) or parent.star == "**" or (parent.keyword and parent.keyword.value == "out"):
                return False
            if _reads_only(call, self.callees, self.flow):
                return True  # `*rows` too: each element is read
            if _paired_loop(call, parent, flow):  # `for a, b in zip(x[:-1], x[1:])`: its elements go to the names
                names = [n for n in walk(_element_target(call, parent, flow)) if isinstance(n, cst.Name)]
                return bool(names) and all(self.name_only_read(n, set(), seen, depth - 1, iterated=call)
                                           for n in names)
            if parent.star:
                return False
            row = function_effect(call, flow) if not self._own_function(call) else None
            if row is not None and function_name(call, flow) in LAYOUT:
                return False  # torch.as_strided(rows, ...): by its strides
            if row is not None and row.result == "alias" and call.args and call.args[0] is parent:
                return self.only_read(call, seen, depth - 1, bind)  # torch.narrow(rows, ...): another view
            if row is None and not self._own_function(call) and torch_writes_nothing(call, flow):
                return self.only_read(call, seen, depth - 1, bind)  # writes nothing, may hand it back (composite)
            return self.read_by_fresh_receiver(call) or self.read_by_tensor_method(call) or \
                self.read_by_kernel(call, parent) or self.read_by_callee(call, parent, seen, depth, bind) or \
                self.appended_to_read_list(call, parent)
        if isinstance(parent, cst.Element):
            container = flow.parent(parent)
            holder = flow.parent(container)
            if isinstance(container, (cst.List, cst.Tuple)) and isinstance(holder, cst.Arg) and not holder.star:
                call = flow.parent(holder)
                if isinstance(call, cst.Call) and _reads_only(call, self.callees, self.flow) and not (
                        holder.keyword and holder.keyword.value == "out"):
                    return True
            if isinstance(container, cst.Tuple) and isinstance(holder, cst.Return) and self._returned_here(holder):
                return True  # `return a, b`: an element of the result, whose uses the callers judge
            if isinstance(container, cst.Tuple) and isinstance(holder, cst.Assign) and bind:
                name = _unpacked_to(holder, container, parent)
                return name is not None and self.name_only_read(name, {id(node)}, seen, depth - 1)
            return False
        if isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is node:
            return self.only_read(parent, seen, depth - 1)  # each element of the new list is this value
        if isinstance(parent, (cst.CompFor, cst.For)) and parent.iter is node:
            target = parent.target  # the elements are bound to the loop's name: each must be only read
            return isinstance(target, cst.Name) and self.name_only_read(target, set(), seen, depth - 1, iterated=node)
        if isinstance(parent, cst.Assign) and parent.value is node and self.copied_into(parent):
            return True
        if isinstance(parent, cst.Assign) and parent.value is node and bind:
            targets = [t.target for t in parent.targets]
            if all(isinstance(t, cst.Name) for t in targets):
                return all(self.name_only_read(t, set(), seen, depth - 1, after=parent) for t in targets)
            return False
        return False  # returned, yielded, stored, iterated, captured: it escapes

    def name_only_read(self, name: cst.Name, inside: set[int], seen: set, depth: int,
                       after: cst.CSTNode | None = None, iterated: cst.CSTNode | None = None) -> bool:
        """Is every use of the local `name` a read? `inside`: nodes whose uses are the mutant's own; `after`: the
        binding followed (a use in a statement of the function's body before it cannot see that value); `iterated`:
        the value a comprehension's name takes its elements from, when that value is the one being followed (its
        other holders are the caller's to judge)."""
        flow = self.flow
        scope = flow.scopes.get(name)
        if not isinstance(scope, (FunctionScope, ComprehensionScope)) or name.value not in scope.assignments:
            return False
        if isinstance(scope, ComprehensionScope):
            fors = [_unpacked_for(flow, a.node) for a in bindings(scope, name.value, flow)]
            if not all(fors):
                return False  # a comprehension's own name: only its `for` target (a walrus could leak it)
            for comp_for in fors:  # its values are the iterable's elements: nothing may write those either
                if comp_for.iter is not iterated and not self._iterable_only_read(comp_for, seen, depth - 1):
                    return False
        key = (id(scope), name.value, id(after))  # each binding followed is checked once
        if key in seen:
            return True  # already being checked: every use is looked at once
        seen.add(key)
        for assignment in bindings(scope, name.value, flow):
            if assignment.scope is not scope or isinstance(flow.parent(assignment.node), cst.AugAssign):
                return False
        for use in uses(scope, name.value, flow):  # a nested function's use counts like any other: only a read is fine
            if flow.within(use.node, inside) or (after is not None and flow.runs_before(use.node, after)):
                continue
            if isinstance(after, (cst.Assign, cst.AnnAssign)) and after.value is not None and \
                    flow.within(use.node, {id(after.value)}):
                continue  # `x = x.view(-1)`: the value is evaluated before the name is bound to it
            reaching = flow.reaching(use.node) if after is not None and isinstance(use.node, cst.Name) else None
            if reaching is not None and reaching.statement is not None and reaching.statement is not after:
                continue  # on every path another binding reaches this use: it cannot see the value followed
            if not isinstance(use.node, cst.Name) or not self.only_read(use.node, seen, depth):
                return False
        return True

    def _iterable_only_read(self, comp_for: cst.CompFor, seen: set, depth: int) -> bool:
        """`for y in xs` of a comprehension: is the local `xs` only read (a `return xs` before it ended the call)?"""
        flow = self.flow
        iterable = comp_for.iter
        scope = flow.function_scope(iterable) if isinstance(iterable, cst.Name) else None
        if scope is None or iterable.value not in scope.assignments:
            return False
        for use in uses(scope, iterable.value, flow):
            if use.node is iterable or flow.within(use.node, {id(comp_for)}):
                continue
            if isinstance(flow.parent(use.node), cst.Return) and flow.runs_before(use.node, comp_for):
                continue
            if not isinstance(use.node, cst.Name) or not self.only_read(use.node, seen, depth):
                return False
        return True

    def appended_to_read_list(self, call: cst.Call, arg: cst.Arg) -> bool:
        """`parts.append(value)` with `parts` a list only read (`read_list`): the value is read where the list is
        (`quiet_from` follows the list to its last use, so no write may come before that)."""
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name) \
            and list(call.args) == [arg] and arg.keyword is None and not arg.star and self.read_list(func.value)

    def read_list(self, name: cst.Name) -> bool:
        """Is the local `name` a list the function made (every binding a list literal, in the function's own body)
        whose every use appends one value to it (a statement of its own), counts it (`len`), tests it (`if parts:`)
        or hands it to a torch call that reads its elements into a new tensor (`torch.stack(parts)`,
        `torch.cat(parts)`)? Then nothing else ever holds the list, and its elements are only read."""
        flow = self.flow
        scope = flow.function_scope(name)
        if scope is None or name.value not in scope.assignments:
            return False
        function = _callable_of(flow, name)
        for assignment in bindings(scope, name.value, flow):
            target = flow.parent(assignment.node)
            assign = flow.parent(target) if isinstance(target, cst.AssignTarget) else None
            if assignment.scope is not scope or not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or \
                    assign.targets[0].target is not assignment.node or not isinstance(assign.value, cst.List):
                return False
        for use in uses(scope, name.value, flow):
            node = use.node
            if not isinstance(node, cst.Name) or _callable_of(flow, node) is not function:
                return False  # a nested function's or lambda's: called whenever
            parent = flow.parent(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                call = flow.parent(parent)
                if parent.attr.value == "append" and isinstance(call, cst.Call) and call.func is parent and \
                        len(call.args) == 1 and not call.args[0].star and isinstance(flow.parent(call), cst.Expr):
                    continue
                return False
            if isinstance(parent, (cst.If, cst.While)) and parent.test is node:
                continue
            call = flow.parent(parent) if isinstance(parent, cst.Arg) else None
            if not isinstance(call, cst.Call) or parent.star or parent.keyword is not None or len(call.args) < 1:
                return False
            if isinstance(call.func, cst.Name) and call.func.value == "len" and not flow.bound(call.func):
                continue
            if call.args[0] is not parent or not _reads_only(call, self.callees, flow):
                return False
        return True

    def read_by_fresh_receiver(self, call: cst.Call) -> bool:
        """`out.scatter_(dim, index, src)` with `out` only ever bound to a fresh allocation in this function: the
        in-place method writes only `out`, whose storage nothing else shares, so its arguments are read."""
        flow = self.flow
        row = method_effect(call, flow)
        if row is None or not row.writes_receiver or not isinstance(call.func.value, cst.Name):
            return False
        receiver = call.func.value
        scope = flow.function_scope(receiver)
        if scope is None or receiver.value not in scope.assignments:
            return False
        for assignment in bindings(scope, receiver.value, flow):
            statement = flow.parent(assignment.node)
            if assignment.scope is not scope or not isinstance(statement, cst.AssignTarget):
                return False
            value = flow.parent(statement).value
            if not (isinstance(value, cst.Call) and function_name(value, flow) in FUNCTIONS and
                    FUNCTIONS[function_name(value, flow)].result == "fresh" and function_name(value) != "clone" and
                    not has_out(value) and not isinstance(value.func, cst.Name)):
                return False
        return True

    def read_by_tensor_method(self, call: cst.Call) -> bool:
        """`x.index_select(0, i)`, `x.gather(-1, idx)`, `x.mul(w)`: a method of a tensor (one only tensors have, or a
        receiver known to be one) that writes nothing, told no `out=`: it only reads its arguments, and what it returns
        is new, a scalar, or shares storage with its receiver only (a method of the table; one read from torch's
        schema only when its result is new or a scalar, since a schema's alias may be of any argument). How an
        argument lies in memory is read by none of them but the layout methods, which are left out, and `backward`
        may keep the gradient it is given as a leaf's `.grad` (`x.view(3).backward(g)`: `x.grad` is `g`)."""
        func = call.func
        if not isinstance(func, cst.Attribute) or has_out(call) or func.attr.value in LAYOUT | KEEPS_ARGUMENT:
            return False
        row = method_effect(call, self.flow)
        if row is None or row.writes_receiver or (func.attr.value not in METHODS and row.result == "alias"):
            return False
        return func.attr.value in TENSOR_ONLY or is_tensor(func.value, self.flow)

    def copied_into(self, assign: cst.Assign) -> bool:
        """`out[i] = value` with `out` a local only ever bound to a new tensor: a tensor's item assignment copies
        the value's elements (a list's would keep the value itself)."""
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Subscript):
            return False
        base = assign.targets[0].target.value
        reaching = self.flow.reaching(base) if isinstance(base, cst.Name) else None
        if reaching is not None and isinstance(reaching.value, cst.Call) and is_fresh(reaching.value, self.flow):
            return True  # the binding that reaches the assignment makes a new tensor
        scope = self.flow.function_scope(base) if isinstance(base, cst.Name) else None
        if scope is None or base.value not in scope.assignments:
            return False
        for assignment in bindings(scope, base.value, self.flow):
            statement = self.flow.parent(assignment.node)
            value = self.flow.parent(statement).value if isinstance(statement, cst.AssignTarget) else None
            if assignment.scope is not scope or not isinstance(value, cst.Call) or not is_fresh(value, self.flow):
                return False  # a torch call that makes a tensor; arithmetic could be a list's `[None] * n`
        return True

    def read_by_kernel(self, call: cst.Call, arg: cst.Arg) -> bool:
        """`kernel[grid](..., x, ...)` with the kernel defined in this file and never storing into that parameter."""
        kernel = self.flow.launched(call)
        param = self.flow.launch_parameter(call, arg) if kernel is not None else None
        return param is not None and param in self.flow.kernel_effects(kernel).params and \
            param not in self.flow.kernel_effects(kernel).stored

    def read_here(self, node: cst.CSTNode, depth: int = DEPTH) -> bool:
        """Is the (unnamed) value of `node` read right where it is made, into a new value?"""
        return self.consumer(node, depth) is not None

    def consumer(self, node: cst.CSTNode, depth: int = DEPTH) -> cst.CSTNode | None:
        """The expression that reads the (unnamed) value of `node` right where it is made into a new value (an
        operation, a call that only reads it), or None. Python evaluates that expression's other parts before it
        reads the value, and nothing after it can reach the value any more."""
        flow = self.flow
        if depth <= 0:
            return None
        parent = flow.parent(node)
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            return parent  # arithmetic, a comparison: a new value
        if isinstance(parent, cst.ComparisonTarget):
            return flow.parent(parent)
        if isinstance(parent, (cst.Index, cst.Slice)):  # an index: the subscript reads it
            holder = parent
            while holder is not None and not isinstance(holder, cst.Subscript):
                holder = flow.parent(holder)
            return holder
        if isinstance(parent, cst.Attribute) and parent.value is node:
            if parent.attr.value in LAYOUT:
                return None  # where it lies in memory: a copy's differs
            holder = flow.parent(parent)
            if isinstance(holder, cst.Call) and holder.func is parent:
                row = method_effect(holder, flow)
                if row is None or row.writes_receiver:
                    return None
                if row.result != "alias":
                    return None if has_out(holder) else holder
                return self.consumer(holder, depth - 1)
            row = ATTRIBUTES.get(parent.attr.value)
            if row is not None and row.result == "scalar":
                return parent if flow.assigned_to(parent) is None else None
            return self.consumer(parent, depth - 1) if row is not None else None
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return self.consumer(parent, depth - 1) if flow.assigned_to(parent) is None else None
        if isinstance(parent, cst.Element):  # `torch.cat([x[:n], y])`
            container = flow.parent(parent)
            if not isinstance(container, (cst.List, cst.Tuple)):
                return None
            parent = flow.parent(container)
        if isinstance(parent, cst.Arg) and not parent.star:
            call = flow.parent(parent)
            if not isinstance(call, cst.Call):
                return None
            if function_effect(call, flow) is None and not self._own_function(call) and \
                    torch_writes_nothing(call, flow):
                return self.consumer(call, depth - 1)  # writes nothing, may hand it back: its result read at once
            return call if _reads_only(call, self.callees, self.flow) or self.read_by_tensor_method(call) or \
                self.read_by_callee(call, parent) else None
        return None

    def sole_before(self, name: str, statement, view, depth: int, also=()) -> bool:
        """Is the value `name` holds at `statement` fresh and held by nothing else? Walks back through its block. The
        other uses of `name` in `statement` must only read it, but `view` and those in `also` (views the caller has
        judged itself)."""
        flow = self.flow
        line = flow.parent(statement)
        block = flow.parent(line)
        if depth <= 0 or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or \
                not isinstance(block, cst.IndentedBlock):
            return False
        scope = flow.function_scope(statement)
        if scope is None or name not in scope.assignments or any(a.scope is not scope for a in scope.assignments[name]):
            return False  # not a local of this function (a global, a closure's)
        found = uses(scope, name, flow)
        if any(use.scope is not scope for use in found):
            return False  # a nested function or comprehension sees it
        inside = {id(view)} if view is not None else set()
        inside |= {id(node) for node in also}
        for access in found:  # the other uses in the view's own statement only read it
            if flow.within(access.node, {id(statement)}) and not flow.within(access.node, inside) and \
                    not self.only_read(access.node, set(), DEPTH, bind=False):
                return False
        position = list(block.body).index(line)
        while True:
            made = self._made_in(list(block.body)[:position], name, depth)
            if made is not None:
                return made
            branch = _branch_of(flow, block)  # the start of a branch or a `try`'s body: on to what ran before
            outer = flow.parent(branch) if branch is not None else None
            if not isinstance(outer, cst.IndentedBlock) or \
                    not all(self.only_read(n, set(), DEPTH, bind=False) for test in _tests(branch)
                            for n in walk(test) if isinstance(n, cst.Name) and n.value == name):
                return False  # a parameter, made in a loop's earlier round, or a test that does more than read
            block, position = outer, list(outer.body).index(branch)


    def _made_in(self, statements: list, name: str, depth: int) -> bool | None:
        """Walking back from the last of `statements` (one block's): True when the value `name` holds after them is
        made there fresh, or as a cast or reshape of a new tensor, or by each branch of an `if` (`_made_on_each_branch`),
        and since then only written into or read; False when it is bound or used otherwise; None when none names it."""
        flow = self.flow
        for earlier in reversed(statements):
            if isinstance(earlier, (cst.If, cst.Try)) and self._made_on_each_branch(earlier, name, depth):
                return True
            if not isinstance(earlier, cst.SimpleStatementLine):
                if any(isinstance(n, cst.Name) and n.value == name for n in walk(earlier)):
                    return False  # used or bound on some path only
                continue
            for small in reversed(earlier.body):
                made = assigned_value(small, name)
                if made is not None:
                    if self.fresh(made) or self._dense_alias_of_fresh(made):
                        return True
                    rebased = storage_root(made, flow=flow)
                    return isinstance(rebased, cst.Name) and rebased is not made and rebased.value == name and \
                        self.sole_before(name, small, made, depth - 1)
                if self.unpacked_new(small, name):
                    return True
                if not self.only_written_into(small, name):
                    return False
        return None

    def _made_on_each_branch(self, statement: cst.If | cst.Try, name: str, depth: int) -> bool:
        """Does every path through the `if` (its `elif`s, an `else` it must have) either leave the block (`raise`,
        `return`, `continue`, `break`) or leave `name` made fresh in that branch (`_made_in`), its tests not naming
        it? Of a `try`: its body with its `else`, and each handler (which starts wherever the body stopped), its
        `finally` and the handlers' types not naming it."""
        if depth <= 0:
            return False
        if isinstance(statement, cst.Try):
            named = [h.type for h in statement.handlers if h.type is not None] + \
                [h.name for h in statement.handlers if h.name is not None] + \
                ([statement.finalbody] if statement.finalbody is not None else [])
            if any(isinstance(n, cst.Name) and n.value == name for part in named for n in walk(part)):
                return False
            normal = list(statement.body.body) + (list(statement.orelse.body.body) if statement.orelse else [])
            return self._made_in(normal, name, depth - 1) is True and \
                all(self._branch_makes(h.body, name, depth) for h in statement.handlers)
        node: cst.CSTNode = statement
        while isinstance(node, cst.If):
            if any(isinstance(n, cst.Name) and n.value == name for n in walk(node.test)) or \
                    not self._branch_makes(node.body, name, depth):
                return False
            node = node.orelse
        return isinstance(node, cst.Else) and self._branch_makes(node.body, name, depth)

    def _branch_makes(self, body: cst.BaseSuite, name: str, depth: int) -> bool:
        if not isinstance(body, cst.IndentedBlock) or not body.body:
            return False
        last = body.body[-1]
        if isinstance(last, cst.SimpleStatementLine) and \
                isinstance(last.body[-1], (cst.Raise, cst.Return, cst.Continue, cst.Break)):
            return True  # this path never reaches what follows the `if`
        return self._made_in(list(body.body), name, depth - 1) is True

    def _dense_alias_of_fresh(self, value: cst.BaseExpression) -> bool:
        """A cast, reshape or permutation of a new tensor made in the same expression (`torch.inverse(a).type(t)`,
        `relaid_base`): no name holds its storage, and of a dense tensor it is dense."""
        for _ in range(DEPTH):
            value = relaid_base(value, self.flow)
            if value is None:
                return False
            if self.fresh(value):
                return True
        return False

    def only_written_into(self, statement, name: str) -> bool:
        """Does `statement` use `name` only to write into it (`name[i] = v`, `name.fill_(v)`, a kernel storing into it)
        or to read it?"""
        flow = self.flow
        for use in walk(statement):
            if not (isinstance(use, cst.Name) and use.value == name):
                continue
            parent = flow.parent(use)
            if isinstance(parent, cst.Attribute) and parent.attr is use:
                continue  # an attribute called `name`
            if isinstance(parent, cst.Subscript) and parent.value is use and flow.assigned_to(parent) is not None:
                continue  # `name[i] = v`
            if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value.endswith("_") and \
                    isinstance(statement, cst.Expr) and statement.value is flow.parent(parent):
                holder = statement.value
                if not any(isinstance(n, cst.Name) and n.value == name for a in holder.args for n in walk(a)):
                    continue  # `name.fill_(v)`: in place, the result dropped
            if isinstance(parent, cst.Arg) and isinstance(statement, cst.Expr) and \
                    statement.value is flow.parent(parent) and flow.launched(statement.value) is not None:
                continue  # `kernel[grid](name, ...)`: the kernel of this file writes into it, or reads it
            if self.only_read(use, set(), DEPTH, bind=False):
                continue
            return False
        return True

    def writes_nothing(self, part: cst.CSTNode | None, after: cst.CSTNode | None = None) -> bool:
        """Does evaluating `part` call only functions and methods that write no tensor (a function of the package:
        none of the tensors it is given)? With `after` (a node inside `part`), only what Python evaluates after it:
        the operands and arguments that come before it in an operation or a call have run already."""
        if part is None:
            return False
        done = _evaluated_before(self.flow, part, after) if after is not None else set()
        stack = [part]
        while stack:
            node = stack.pop()
            stack.extend(c for c in node.children if id(c) not in done)
            if not isinstance(node, cst.Call):
                continue
            if self._own_function(node):
                if not self._writes_no_argument(node):
                    return False
                continue
            row = call_effect(node, self.flow)
            if row is None and (torch_writes_nothing(node, self.flow) or context_records(node, self.flow)):
                continue
            if row is not None and row.writes_receiver and not has_out(node) and \
                    isinstance(node.func, cst.Attribute) and self.own_container(node.func.value):
                continue  # `out.append(t)`: a list of the function's, not a tensor, is written
            if has_out(node) or row is None or row.writes_receiver:
                return False
        return True

    def own_container(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` a name every binding of which that may reach it (`Flow.reaching_values`) is a list, dict or set
        display or comprehension: a container the function made, which is no tensor?"""
        values = self.flow.reaching_values(expr) if isinstance(expr, cst.Name) else None
        return bool(values) and all(isinstance(v, _CONTAINERS) for v in values)

    def _writes_no_argument(self, call: cst.Call) -> bool:
        effects = self.callees.effects(self.flow, call)
        if effects is None or not effects.quiet:
            return False  # unknown, or it writes a tensor it did not make (a global's, an attribute's)
        for arg in call.args:
            param = self.callees.parameter(self.flow, call, arg, effects)
            if param is None or param not in effects.returned:
                return False
        return True


    # -- writes a value of the function may see ------------------------------------------------------------------

    def unpacked_new(self, statement, name: str) -> bool:
        """`a, name = call(...)`: `name` one of the plain names a call's result is unpacked to, every result of the
        call new: a torch call's (`unpacked_from_new`: `vals, idx = x.sort()`), or a function's of the package whose
        every return is a tuple of new, dense tensors none of which shares storage with another (`fresh_each`)."""
        if unpacked_from_new(statement, name, self.flow):
            return True
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1 or \
                not self._own_function(statement.value) or has_out(statement.value):
            return False
        target = statement.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or any(
                isinstance(e, cst.StarredElement) or not isinstance(e.value, cst.Name) for e in target.elements) or \
                sum(e.value.value == name for e in target.elements) != 1:
            return False
        effects = self.callees.effects(self.flow, statement.value)
        return effects is not None and effects.fresh_each

    def made_fresh(self, name: cst.Name) -> bool:
        """Is the value `name` holds here a new tensor made by the one binding that reaches it (`y = x * 2`,
        `vals, idx = x.sort()`): no name outside the function can hold its storage?"""
        reaching = self.flow.reaching(name, unpacked=True)
        if reaching is None or reaching.statement is None:
            return False
        if reaching.value is not None and self.fresh(reaching.value):
            return True
        return self.unpacked_new(reaching.statement, name.value)

    def quiet_from(self, node: cst.CSTNode, made: bool = False, strict: bool = False) -> bool:
        """`quiet_after` the statement that makes `node` (a compound one whole, when `node` is in its header), the
        names that statement binds carrying the value. With `made`, what runs in that statement before the value
        exists (`node`'s own evaluation: the call that makes it) is left out; with `strict`, no tensor may be
        written at all, not even the function's own (the value may be a view of one of them)."""
        flow = self.flow
        statement = flow.statement(node)
        if statement is None:
            part = flow.statement_part(node)
            statement = flow.parent(part) if part is not None else None
            if not isinstance(statement, cst.BaseCompoundStatement):
                return False
        carriers = set()
        if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = statement.targets if isinstance(statement, cst.Assign) else [statement]
            carriers = {n.value for t in targets for n in walk(t.target) if isinstance(n, cst.Name)}
        elif isinstance(statement, cst.For) and flow.within(node, {id(statement.iter)}):
            carriers = {n.value for n in walk(statement.target) if isinstance(n, cst.Name)}  # its elements
        elif isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call) and \
                isinstance(statement.value.func, cst.Attribute) and statement.value.func.attr.value == "append" and \
                isinstance(statement.value.func.value, cst.Name):
            receiver = statement.value.func.value  # appended to a list: read wherever the list is
            reaching = flow.reaching(receiver)
            if reaching is None or reaching.statement is None:
                return False
            return self.quiet_after(statement, {receiver.value}, after=node if made else None, strict=strict,
                                    origin=reaching.statement)
        return self.quiet_after(statement, carriers, after=node if made else None, strict=strict)

    def quiet_after(self, statement: cst.CSTNode, carriers: set[str], after: cst.CSTNode | None = None,
                    strict: bool = False, origin: cst.CSTNode | None = None) -> bool:
        """Can nothing that may run in `statement` or after it in its function write a tensor the function did not
        make itself, while a value made there may still be read? A view of a tensor the function was given (an
        argument, an attribute, a global) sees every write into that tensor's storage, through whatever name, a
        copy none: another argument may be the same tensor (`f(x, x)`), an unknown callee may hold it. `carriers`:
        the function's local names the value (or one derived from it) is bound to; a statement that comes after
        every use of them cannot change what is read; `origin`: the statement that binds them, when not `statement`
        (a list bound before, into which `statement` appends the value)."""
        flow = self.flow
        function = function_of(flow, statement)
        if function is None or any(isinstance(n, (cst.Yield, cst.Await)) for n in walk(function.body)):
            return False  # a generator: its caller runs anything between two of its steps
        scope = flow.function_scope(statement)
        carried = _carried(self, scope, origin or statement, carriers)
        if carried is None:
            return False
        for later in [statement, *flow.after(statement)]:
            if later is not statement and all(flow.runs_before(use, later) for use in carried):
                continue  # every read of the value is over by then
            start = after if later is statement else None
            if not (writes_no_tensor(self, later, after=start) if strict else self.writes_only_own(later, after=start)):
                return False
        return True

    def writes_only_own(self, part: cst.CSTNode, after: cst.CSTNode | None = None) -> bool:
        """Does `part` write only tensors (or containers) the function made itself and holds alone, and call only
        what writes nothing else: torch calls with a row, Python's builtins, functions of the package that are
        quiet, kernels of the file storing only into such tensors? With `after` (a node inside `part`), only what
        Python evaluates after it (as for `writes_nothing`)."""
        flow = self.flow
        done = _evaluated_before(flow, part, after) if after is not None else set()
        stack = [part]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Raise) and not self._caught(node):
                continue  # the function ends there: nothing it reads later can see what the exception's making wrote
            stack.extend(c for c in node.children if id(c) not in done)
            if isinstance(node, (cst.Yield, cst.Await, cst.Global, cst.Nonlocal)):
                return False
            if isinstance(node, cst.AugAssign) and not self.own_storage(node.target):
                return False  # `x += y` writes a tensor in place
            if isinstance(node, cst.AssignTarget) and not self._target_own(node.target):
                return False
            if isinstance(node, cst.Call) and not self._call_writes_only_own(node):
                return False
        return True

    def _caught(self, node: cst.CSTNode) -> bool:
        """Is `node` inside a `try` (or a `with`, whose exit may swallow an exception) of its function?"""
        parent = self.flow.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, (cst.Try, cst.TryStar, cst.With)):
                return True
            parent = self.flow.parent(parent)
        return False

    def _target_own(self, target: cst.BaseExpression) -> bool:
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._target_own(e.value) for e in target.elements)
        if isinstance(target, cst.StarredElement):
            return self._target_own(target.value)
        if isinstance(target, cst.Subscript):
            return self.own_storage(target.value)  # `out[i] = v` writes out's storage
        return True  # a name or an attribute is rebound: no tensor is written

    def _call_writes_only_own(self, call: cst.Call) -> bool:
        flow = self.flow
        if self._own_function(call):
            effects = self.callees.effects(flow, call)
            return effects is not None and effects.quiet  # it writes none of its arguments either
        kernel = flow.launched(call)
        if kernel is not None:
            stored = flow.kernel_effects(kernel).stored
            for arg in call.args:
                param = flow.launch_parameter(call, arg)
                if param is None or (param in stored and not self.own_storage(arg.value)):
                    return False
            return True
        if isinstance(call.func, cst.Name) and call.func.value in QUIET_BUILTINS and not flow.bound(call.func):
            return True
        row = call_effect(call, flow)
        if row is None:
            return torch_writes_nothing(call, flow) or context_records(call, flow)
        if has_out(call):
            out = next(a for a in call.args if a.keyword is not None and a.keyword.value == "out")
            if not self.own_storage(out.value):
                return False
        if row.writes_receiver:
            return isinstance(call.func, cst.Attribute) and self.own_storage(call.func.value)
        return True

    def own_storage(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` (a view of) a local whose every binding in the function is a value made there, a new tensor, a
        number, a string, a new container: something no other name outside the function can hold?"""
        flow = self.flow
        root = storage_root(expr, flow=flow)
        if not isinstance(root, cst.Name):
            return False
        reaching = flow.reaching(root, unpacked=True)
        if reaching is not None and reaching.statement is not None:
            if reaching.value is None:  # `vals, idx = x.sort()`
                return self.unpacked_new(reaching.statement, root.value)
            return _made_here(reaching.value, self, flow)  # the one binding that reaches here
        scope = flow.function_scope(root)
        if scope is None or root.value not in scope.assignments:
            return False
        for assignment in bindings(scope, root.value, flow):
            if assignment.scope is not scope:
                return False
            node = assignment.node
            holder = flow.parent(node)
            if isinstance(holder, (cst.For, cst.CompFor)) and holder.target is node:
                if not _counting(holder.iter, flow):
                    return False
                continue
            if isinstance(holder, cst.AugAssign) and holder.target is node:
                continue  # its earlier value is judged by the other bindings
            value = assigned_value(flow.statement(node), root.value) if isinstance(node, cst.Name) else None
            if value is None or not _made_here(value, self, flow):
                return False
        return True


# Python's builtins that write no tensor: they make numbers, strings, containers and iterators of what they are given.
QUIET_BUILTINS = frozenset(
    "range enumerate zip reversed sorted list tuple dict set frozenset abs round sum any all divmod len isinstance "
    "issubclass type hasattr min max int float bool str repr print format".split()) | frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException))


_CONTAINERS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


def _made_here(value: cst.BaseExpression, reads: Reads, flow: Flow) -> bool:
    """A value nothing outside the function can hold: a new tensor or an alias of one made in the same expression, a
    literal, a new container, a count."""
    if isinstance(value, (cst.BaseNumber, cst.BaseString, *_CONTAINERS)):
        return True
    if isinstance(value, cst.Name) and value.value in ("None", "True", "False"):
        return True
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in \
            ("len", "int", "float", "bool", "list", "dict", "set") and not flow.bound(value.func):
        return True
    # a new tensor, or an alias of one made in the same expression, which no name holds (`torch.zeros(n).to(x)`)
    return reads.fresh(value) or reads.fresh(storage_root(value, flow=flow))


def _unpacked_for(flow: Flow, node: cst.CSTNode) -> cst.CompFor | None:
    """The comprehension's `for` whose target is `node` or unpacks into it (`for a, b in ...`), else None."""
    holder = flow.parent(node)
    while isinstance(holder, (cst.Element, cst.Tuple, cst.List)):
        node, holder = holder, flow.parent(holder)
    return holder if isinstance(holder, cst.CompFor) and holder.target is node else None


def _counting(iterable: cst.BaseExpression, flow: Flow) -> bool:
    """`range(...)`: its elements are new integers."""
    return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and \
        iterable.func.value == "range" and not flow.bound(iterable.func)


def _paired_loop(call: cst.Call, arg: cst.Arg, flow: Flow) -> bool:
    """`for ... in zip(..., arg, ...)` (or `enumerate(arg)`): Python's own builtin, not rebound, iterated at once by a
    `for` statement or a comprehension's `for`: each element of `arg` is bound to (a part of) the loop's target and
    goes nowhere else."""
    return isinstance(call.func, cst.Name) and call.func.value in ("zip", "enumerate") and \
        not flow.bound(call.func) and not arg.star and arg.keyword is None and \
        isinstance(flow.parent(call), (cst.For, cst.CompFor)) and flow.parent(call).iter is call


def _element_target(call: cst.Call, arg: cst.Arg, flow: Flow) -> cst.CSTNode:
    """The part of a `_paired_loop`'s target that `arg`'s elements are bound to: its place in an unpacked tuple of as
    many names as `zip` has arguments (`enumerate`'s second), else the whole target."""
    target = flow.parent(call).target
    places = len(call.args) if call.func.value == "zip" else 2
    if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == places and \
            not any(isinstance(e, cst.StarredElement) for e in target.elements):
        index = list(call.args).index(arg) if call.func.value == "zip" else 1
        return target.elements[index].value
    return target


def _branch_of(flow: Flow, block: cst.CSTNode) -> cst.If | cst.Try | None:
    """The statement whose block `block` is entered from what ran before it, after its tests: the (outermost) `if`
    of which it is a branch's body (`if`, `elif` or `else`), or the `try` of which it is the body (not a handler's,
    an `else` or a `finally`: those start from wherever the body stopped); None for any other block (a `with`'s body
    runs under its context: a view made in `torch.no_grad()` raises where its copy is written in place)."""
    owner = flow.parent(block)
    if isinstance(owner, cst.Try):
        return owner if block is owner.body else None
    if isinstance(owner, cst.Else):
        owner = flow.parent(owner)
    if not isinstance(owner, cst.If):
        return None
    while isinstance(flow.parent(owner), cst.If):  # an `elif` is the `orelse` of the `if` before it
        owner = flow.parent(owner)
    return owner


def _tests(statement: cst.If | cst.Try):
    """What may run of a statement before its block: the tests of an `if` and of its `elif`s (none of a `try`)."""
    while isinstance(statement, cst.If):
        yield statement.test
        statement = statement.orelse


def writes_no_tensor(reads: Reads, part: cst.CSTNode, after: cst.CSTNode | None = None) -> bool:
    """Does `part` (a statement) write no tensor at all: no call that writes one (`Reads.writes_nothing`), no item or
    attribute assignment, no augmented assignment (`y += 1` is in place for a tensor), no `del` of an item?"""
    if not reads.writes_nothing(part, after=after):
        return False
    for node in walk(part):
        if isinstance(node, (cst.AugAssign, cst.Del)):
            return False
        targets = node.targets if isinstance(node, cst.Assign) else [node] if isinstance(node, cst.AnnAssign) else []
        if any(not isinstance(n, cst.Name) for t in targets for n in _assigned_parts(t.target)):
            return False
    return True


def _assigned_parts(target: cst.BaseExpression):
    """The parts of an assignment target: names, and items or attributes stored into."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _assigned_parts(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _assigned_parts(target.value)
    else:
        yield target


def function_of(flow: Flow, node: cst.CSTNode) -> cst.FunctionDef | None:
    """The function `node` is in (None inside a class body or a lambda, or at the module's top)."""
    while node is not None and not isinstance(node, cst.FunctionDef):
        if isinstance(node, (cst.ClassDef, cst.Lambda)):
            return None
        node = flow.parent(node)
    return node


def _carried(reads: Reads, scope, statement: cst.CSTNode, names: set[str]) -> list | None:
    """Every use of `names` as `statement` binds them, and of the local names bound from an expression that may hand
    one of them on (not a new value: `y = x.view(-1)`, not `y = x * 2`), closed under that; None when a name is not a
    plain local of `scope`, or is iterated or entered (where its elements go is not followed)."""
    flow = reads.flow
    if scope is None:
        return None
    function = _callable_of(flow, statement)
    todo, done, found = [(name, statement) for name in names], set(), []
    while todo:
        name, binding = todo.pop()
        if (name, id(binding)) in done:
            continue
        done.add((name, id(binding)))
        if name not in scope.assignments or any(a.scope is not scope for a in scope.assignments[name]):
            return None
        for use in uses(scope, name, flow):
            if not isinstance(use.node, cst.Name) or _callable_of(flow, use.node) is not function:
                return None  # read by a nested function or lambda: whenever it is called, maybe after any write
            reaching = flow.reaching(use.node, unpacked=True)
            if reaching is not None and reaching.statement is not None and reaching.statement is not binding:
                continue  # another binding reaches it on every path
            found.append(use.node)
            at = flow.statement(use.node) or flow.statement_part(use.node)
            if isinstance(at, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                value = at.value
                if value is not None and isinstance(at, (cst.Assign, cst.AnnAssign)):
                    root = storage_root(value, flow=flow)
                    if root is not value or not isinstance(root, cst.Name):
                        if reads.fresh(root) or is_fresh(root, flow):
                            continue  # a new value made of it
                targets = at.targets if isinstance(at, cst.Assign) else [at]
                for target in targets:
                    todo.extend((n.value, at) for n in walk(target.target) if isinstance(n, cst.Name))
            elif at is None or isinstance(flow.parent(at), (cst.For, cst.With, cst.CompFor)):
                return None
    return found


def _callable_of(flow: Flow, node: cst.CSTNode) -> cst.CSTNode | None:
    """The function or lambda whose body `node` is in (a comprehension is no boundary: it runs where it stands)."""
    node = flow.parent(node)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
        node = flow.parent(node)
    return node


def _unpacked_to(assign: cst.Assign, value: cst.Tuple, element: cst.Element) -> cst.Name | None:
    """`a, b = x[:n], x[n:]`: the name an element of the value tuple is bound to."""
    if assign.value is not value or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(value.elements):
        return None
    index = next(i for i, e in enumerate(value.elements) if e is element)
    bound = target.elements[index]
    return bound.value if isinstance(bound, cst.Element) and isinstance(bound.value, cst.Name) else None


# nodes whose children Python evaluates in the order they are written: a binary operation's left operand before its
# right one, a comparison's operands left to right, a call's callee before its arguments and those in order, a
# subscript's value before its index, a container's elements in order
_IN_ORDER = (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.ComparisonTarget, cst.Call, cst.Arg,
             cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice, cst.Attribute, cst.List, cst.Tuple,
             cst.Element, cst.StarredElement)


def _evaluated_before(flow: Flow, part: cst.CSTNode, node: cst.CSTNode) -> set[int]:
    """The ids of the sub-expressions of `part` that Python evaluates, whole, before it starts on `node`: on the way
    from `node` up to `part`, the siblings written before it in a node of `_IN_ORDER`. Empty when `node` is not
    inside `part` or the way crosses anything else (a conditional expression, a lambda, a comprehension)."""
    done: set[int] = set()
    child = node
    while child is not part:
        parent = flow.parent(child)
        if parent is part and isinstance(part, (cst.Assign, cst.AnnAssign, cst.Return, cst.Expr)) and \
                part.value is child:
            break  # a statement's value is evaluated before its targets
        if parent is None or not isinstance(parent, _IN_ORDER):
            return set()
        for sibling in parent.children:
            if sibling is child:
                break
            done.add(id(sibling))
        child = parent
    return done | {id(node)}  # and `node` itself, whole: its own parts ran before it was made
