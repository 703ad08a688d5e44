"""The analysis kit every rule shares, on libcst metadata: where a node stands, what runs before and after it, which
binding of a name reaches a use, and the kernels of the file with what they store."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import BuiltinAssignment, FunctionScope, ImportAssignment, MetadataWrapper, ParentNodeProvider, Scope, \
    ScopeProvider

from teeth.equivalence.effects import dotted
from teeth.equivalence.kernels import KernelEffects, kernel_effects
from teeth.syntax.kernel_context import is_kernel

_BOUNDARIES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from walk(child)


def own_nodes(node: cst.CSTNode):
    """`node` and the nodes under it, nested functions, classes and lambdas left out (their code runs elsewhere)."""
    yield node
    for child in node.children:
        if not isinstance(child, _BOUNDARIES):
            yield from own_nodes(child)


def uses(scope: Scope, name: str, flow: Flow):
    """Every access of `name` that refers to the scope's own assignments of it, nested scopes included, in the
    order they stand in `flow`'s file."""
    found = {id(a): a for a in scope.accesses[name]}
    for assignment in scope.assignments[name]:
        for access in assignment.references:
            found[id(access)] = access
    return flow.in_file_order(found.values())


def bindings(scope: Scope, name: str, flow: Flow):
    """The scope's assignments of `name`, in the order they stand in `flow`'s file."""
    return flow.in_file_order(scope.assignments[name])


def assigned_value(statement: cst.CSTNode | None, name: str) -> cst.BaseExpression | None:
    """`EXPR` when `statement` is `name = EXPR` (or `name: T = EXPR`)."""
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0].target, cst.Name) and statement.targets[0].target.value == name:
        return statement.value
    if isinstance(statement, cst.AnnAssign) and isinstance(statement.target, cst.Name) and \
            statement.target.value == name and statement.value is not None:
        return statement.value
    return None


def paired_value(statement: cst.CSTNode | None, name: str) -> cst.BaseExpression | None:
    """`EXPR` when `statement` binds `name` in a tuple of names given a tuple literal of as many values, nothing
    starred (`a, name = x, EXPR`): the value in the same place (every value is evaluated before any name is bound)."""
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0].target, statement.value
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, (cst.Tuple, cst.List)) or \
            len(target.elements) != len(value.elements) or \
            any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)):
        return None
    found = [v.value for t, v in zip(target.elements, value.elements)
             if isinstance(t.value, cst.Name) and t.value.value == name]
    if len(found) != 1 or any(name in {n.value for n in _bound_names(t.value)} for t in target.elements
                              if not isinstance(t.value, cst.Name)):
        return None
    return found[0]


def bound_value(statement: cst.CSTNode | None, name: str) -> cst.BaseExpression | None:
    """The value `statement` binds to `name`: `name = EXPR`, `name: T = EXPR` or a paired unpacking's element."""
    return assigned_value(statement, name) or paired_value(statement, name)


def _bound_names(target: cst.CSTNode):
    """The names an assignment target binds: `a`, `a, (b, *c)`; never those of `a[i]` or `a.b` (stored into)."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_names(target.value)


def binds(node: cst.CSTNode, name: str) -> bool:
    """Does `node` (a statement) bind `name` anywhere in it, nested functions aside?"""
    for n in walk(node):
        if isinstance(n, (cst.Assign,)):
            if any(t.value == name for a in n.targets for t in _bound_names(a.target)):
                return True
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            if any(isinstance(t, cst.Name) and t.value == name for t in walk(n.target)):
                return True
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            if any(isinstance(t, cst.Name) and t.value == name for t in walk(n.asname.name)):
                return True
        elif isinstance(n, (cst.Del, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
            return True  # rare: be conservative
        elif isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n.name.value == name:
            return True
    return False


@dataclass(frozen=True)
class _Passage:
    """What running one statement does to a name: the bindings of it that may hold after it (`bound`), whether a path
    through it binds none (`passes`), whether no path falls through to the next statement (`leaves`)."""

    bound: frozenset = frozenset()
    passes: bool = True
    leaves: bool = False


_LEAVING = (cst.Return, cst.Raise, cst.Break, cst.Continue)


def _passage(statement: cst.CSTNode, name: str) -> _Passage | None:
    """`statement`'s `_Passage` for `name`, or None when it cannot tell (a `try`, `with` or `match` that binds it, a
    `del`, an import, a loop left early that binds it)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return _sequence(statement.body, name)
    if isinstance(statement, cst.BaseSmallStatement):
        if isinstance(statement, _LEAVING):
            return _Passage(leaves=True)
        if not _binds_here(statement, name):
            return _Passage()
        if isinstance(statement, (cst.Del, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
            return None
        return _Passage(frozenset({statement}), passes=False)
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return _Passage(frozenset({statement}), passes=False) if statement.name.value == name else _Passage()
    if isinstance(statement, cst.If):
        if binds(statement.test, name):
            return None
        branches = [_block(statement.body, name)]
        orelse = statement.orelse
        branches.append(_Passage() if orelse is None else _block(orelse.body, name) if isinstance(orelse, cst.Else)
                        else _passage(orelse, name))
        if any(b is None for b in branches):
            return None
        going = [b for b in branches if not b.leaves]
        if not going:
            return _Passage(leaves=True)
        return _Passage(frozenset().union(*(b.bound for b in going)), any(b.passes for b in going))
    if isinstance(statement, (cst.For, cst.While)):
        if any(binds(part, name) for part in _header(statement)):
            return None
        again = _loop_again(statement, name)
        if again is None or (statement.orelse is not None and binds(statement.orelse, name)):
            return None
        return _Passage(frozenset(again), passes=True)  # it may run no round
    if binds(statement, name):
        return None  # a `try`, a `with`, a `match` that binds it
    return _Passage()  # a handler may take over where its body raises: leaving is not claimed


def _binds_here(statement: cst.BaseSmallStatement, name: str) -> bool:
    """Does a simple statement bind `name` in its function's own scope: as `binds`, but a comprehension's or a
    lambda's own variables left out (a walrus inside a comprehension still binds the function's name)."""
    def seen(node):
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, *_BOUNDARIES)):
            return any(isinstance(n, cst.NamedExpr) and isinstance(n.target, cst.Name) and n.target.value == name
                       for n in own_nodes(node))
        if isinstance(node, cst.Assign) and any(t.value == name for a in node.targets for t in _bound_names(a.target)):
            return True
        if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)) and \
                any(t.value == name for t in _bound_names(node.target)):
            return True
        if isinstance(node, (cst.Del, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
            return any(isinstance(n, cst.Name) and n.value == name for n in walk(node))
        return any(seen(child) for child in node.children)
    return seen(statement)


def _block(block: cst.BaseSuite, name: str) -> _Passage | None:
    return _sequence(block.body, name)


def _sequence(statements, name: str) -> _Passage | None:
    bound, passes = frozenset(), True
    for statement in statements:
        passage = _passage(statement, name)
        if passage is None:
            return None
        if passage.leaves:
            return _Passage(leaves=True)
        bound = passage.bound | (bound if passage.passes else frozenset())
        passes = passes and passage.passes
    return _Passage(bound, passes)


def _header(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """The parts of a compound statement that run before its block: an `if`'s or `while`'s test, a `for`'s iterable,
    a `with`'s items."""
    if isinstance(statement, (cst.If, cst.While)):
        return [statement.test]
    if isinstance(statement, cst.For):
        return [statement.iter]
    if isinstance(statement, cst.With):
        return list(statement.items)
    return []


def _target_binds(loop: cst.For, name: str) -> bool:
    return any(isinstance(t, cst.Name) and t.value == name for t in walk(loop.target))


def _loop_again(loop: cst.For | cst.While, name: str) -> set[cst.CSTNode] | None:
    """The bindings of `name` that may hold at the end of a round of `loop` (its target's, and its body's), or None
    when the body binds the name and may leave a round early (`break`, `continue`)."""
    body = _block(loop.body, name)
    if body is None or (binds(loop.body, name) and _leaves_early(loop.body)):
        return None
    found = set() if body.leaves else set(body.bound)
    if isinstance(loop, cst.For) and _target_binds(loop, name):
        found.add(loop)
    return found


def _leaves_early(node: cst.CSTNode) -> bool:
    """A `break` or `continue` of this loop (not of a loop, function or class inside it)."""
    for child in node.children:
        if isinstance(child, (cst.Break, cst.Continue)):
            return True
        if not isinstance(child, (cst.For, cst.While, *_BOUNDARIES)) and _leaves_early(child):
            return True
    return False


def binding_site(node: cst.CSTNode, flow: Flow) -> cst.CSTNode | None:
    """The statement (as `Flow.reaching_sites` names it) in which a scope assignment's node binds its name: the
    simple statement, the `for` loop of a target, the def, or the parameter itself."""
    if isinstance(node, (cst.Param, cst.FunctionDef, cst.ClassDef)):
        return node
    while node is not None:
        parent = flow.parents.get(node)
        if isinstance(node, cst.BaseSmallStatement):
            return node
        if isinstance(parent, cst.For) and node is parent.target:
            return parent
        if isinstance(parent, (cst.BaseCompoundStatement, cst.CompFor, *_BOUNDARIES)):
            return None
        node = parent
    return None


@dataclass(frozen=True)
class Reaching:
    """The binding of a name that reaches a use: `value` of `name = value`, or the function's parameter."""

    value: cst.BaseExpression | None = None
    statement: cst.BaseSmallStatement | None = None
    param: cst.Param | None = None


class Flow:
    """One parsed file's metadata and the questions the rules ask of it."""

    def __init__(self, wrapper: MetadataWrapper, contiguous_decorators=()):
        self.module = wrapper.module
        self.scopes = wrapper.resolve(ScopeProvider)
        self.parents = wrapper.resolve(ParentNodeProvider)
        self.contiguous_decorators = set(contiguous_decorators)
        self._kernel_effects: dict[int, KernelEffects] = {}
        self._positions: dict[int, int] | None = None
        self.callees = None  # the package's functions (`callees.Callees`), when a discovery reads them
        self.assumed: frozenset[int] = frozenset()  # parameters taken to be tensors, while a callee's result is derived

    # -- where a node stands -------------------------------------------------------------------------------------

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def in_file_order(self, items) -> list:
        """libcst's accesses or assignments sorted by where their nodes stand in the file. libcst keeps them in sets,
        whose order follows hashes (the hash seed, addresses) and so varies per process; the rules visit them in
        this order instead, so that what is derived and memoised first (a callee's effects) and hence a verdict
        depend on the code only."""
        return sorted(items, key=lambda item: self.position(getattr(item, "node", None)))

    def position(self, node: cst.CSTNode | None) -> int:
        """Where `node` stands in the file, in the order of a walk of it (-1 for a node of no file)."""
        if self._positions is None:
            self._positions = {id(node): i for i, node in enumerate(walk(self.module))}
        return self._positions.get(id(node), -1)

    def within(self, node: cst.CSTNode, ids: set[int]) -> bool:
        while node is not None:
            if id(node) in ids:
                return True
            node = self.parents.get(node)
        return False

    def statement(self, node: cst.CSTNode) -> cst.BaseSmallStatement | None:
        """The simple statement (an assignment, expression, return) `node` is in; None inside a compound header."""
        while node is not None and not isinstance(node, cst.BaseSmallStatement):
            if isinstance(node, (cst.BaseCompoundStatement, cst.FunctionDef)):
                return None
            node = self.parents.get(node)
        return node

    def statement_part(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The simple statement `node` is in, or the part of a compound one (an `if`'s test), or a lambda's body."""
        child, parent = node, self.parents.get(node)
        while parent is not None:
            if isinstance(parent, cst.BaseSmallStatement):
                return parent
            if isinstance(parent, (cst.BaseCompoundStatement, cst.Lambda)):
                return child
            child, parent = parent, self.parents.get(parent)
        return None

    def assigned_to(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The statement `node` is an assignment target of, or None."""
        parent = self.parents.get(node)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
            parent = self.parents.get(parent)
        if isinstance(parent, cst.AssignTarget) or (isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and
                                                    parent.target is node):
            return parent
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node:
            return parent
        return None

    def guarded(self, node: cst.CSTNode) -> bool:
        """Is `node` in the body of a `try` (or a `with`, whose exit may swallow an exception) of its function, so that
        an exception raised there may be caught and the function go on with what its names held before?"""
        child, parent = node, self.parents.get(node)
        while parent is not None and not isinstance(parent, _BOUNDARIES):
            if isinstance(parent, (cst.Try, cst.TryStar, cst.With)) and child is parent.body:
                return True
            child, parent = parent, self.parents.get(parent)
        return False

    def function_scope(self, node: cst.CSTNode) -> FunctionScope | None:
        scope = self.scopes.get(node)
        return scope if isinstance(scope, FunctionScope) else None

    # -- statement order -----------------------------------------------------------------------------------------

    def body_statement(self, node: cst.CSTNode):
        """(the function's body block, the statement of it that holds `node`), or (None, None)."""
        while node is not None:
            parent = self.parents.get(node)
            if isinstance(parent, cst.IndentedBlock) and isinstance(self.parents.get(parent), cst.FunctionDef):
                return parent, node
            if isinstance(node, _BOUNDARIES):
                return None, None
            node = parent
        return None, None

    def runs_before(self, node: cst.CSTNode, binding: cst.CSTNode) -> bool:
        """Is `node` in a statement of the function's body that comes before the one holding `binding`?"""
        block, statement = self.body_statement(node)
        bound_block, bound_statement = self.body_statement(binding)
        if block is None or block is not bound_block:
            return False
        body = list(block.body)
        return body.index(statement) < body.index(bound_statement)

    def after(self, statement: cst.CSTNode):
        """Every statement that may run after `statement` in its function: the rest of its block and of each block
        around it, the whole body of a loop around it (its next iteration) and the loop's `else`, and of a `try`
        around it what may follow the part it is in: the handlers, `else` and `finally` after the body (an exception
        may leave the body at any statement), the `finally` after a handler or the `else`."""
        node = statement
        while node is not None and not isinstance(node, cst.FunctionDef):
            parent = self.parents.get(node)
            if isinstance(parent, (cst.IndentedBlock, cst.Module)) and node in parent.body:
                body = list(parent.body)
                yield from body[body.index(node) + 1:]
                owner = self.parents.get(parent)
                if isinstance(owner, (cst.For, cst.While)) and parent is owner.body:
                    yield from body[:body.index(node) + 1]
                    if owner.orelse is not None:
                        yield from owner.orelse.body.body
                if isinstance(owner, (cst.Try, cst.TryStar)) and parent is owner.body:
                    for handler in owner.handlers:
                        yield from handler.body.body
                    if owner.orelse is not None:
                        yield from owner.orelse.body.body
                if isinstance(owner, (cst.ExceptHandler, cst.ExceptStarHandler, cst.Else)):
                    owner = self.parents.get(owner)
                if isinstance(owner, (cst.Try, cst.TryStar)) and owner.finalbody is not None and \
                        parent is not owner.finalbody.body:
                    yield from owner.finalbody.body.body
            elif isinstance(parent, cst.SimpleStatementLine):
                body = list(parent.body)
                yield from body[body.index(node) + 1:]
            node = parent

    # -- the binding that reaches a use --------------------------------------------------------------------------

    def _use_statement(self, use: cst.Name) -> cst.CSTNode | None:
        """Where to look back from for the bindings of `use`'s name: the statement (or compound header part) holding
        it; None when the name is bound outside the use's function too, or the statement binds it as it reads it
        (`name += ...`, a walrus: the use may see either value)."""
        name = use.value
        scope = self.function_scope(use)
        if scope is None or any(a.scope is not scope for a in scope.assignments[name]):
            return None
        node = self.statement(use) or self.statement_part(use)
        if node is None or (isinstance(node, cst.BaseSmallStatement) and not isinstance(
                node, (cst.Assign, cst.AnnAssign, cst.Expr, cst.Return)) and binds(node, name)):
            return None
        return node

    def reaching(self, use: cst.Name, unpacked: bool = False) -> Reaching | None:
        """The one binding of `use`'s name that reaches it on every path within its function, or None when several
        may (a binding on one branch only, in a loop after the use) or it cannot tell (a nested function's use).
        A binding with no one value (`a, b = f()`) is None too, or with `unpacked` its statement with no value."""
        name = use.value
        node = self._use_statement(use)
        if node is None:
            return None
        while True:
            parent = self.parents.get(node)
            if isinstance(node, cst.FunctionDef):
                params = node.params
                found = [p for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                         if p.name.value == name]
                return Reaching(param=found[0]) if found and found[0].default is None else None
            if isinstance(node, _BOUNDARIES) or parent is None:
                return None
            if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine)):
                body = list(parent.body)
                for earlier in reversed(body[:body.index(node)]):
                    if isinstance(earlier, cst.SimpleStatementLine):
                        for small in reversed(earlier.body):
                            if binds(small, name):
                                value = bound_value(small, name)
                                return Reaching(value=value, statement=small) if value is not None or unpacked \
                                    else None
                    elif isinstance(earlier, cst.BaseSmallStatement):
                        if binds(earlier, name):
                            value = bound_value(earlier, name)
                            return Reaching(value=value, statement=earlier) if value is not None or unpacked \
                                else None
                    elif binds(earlier, name):
                        return None  # bound on some path only
                owner = self.parents.get(parent)
                if isinstance(owner, (cst.For, cst.While)) and parent is owner.body and binds(owner, name):
                    return None  # the next iteration sees a later binding
                if isinstance(owner, (cst.ExceptHandler, cst.Finally, cst.Else)) and \
                        not isinstance(self.parents.get(owner), cst.If):
                    return None  # a handler, a loop's else: what ran before is not one path
            node = parent

    def reaching_sites(self, use: cst.Name) -> set[cst.CSTNode] | None:
        """Every binding of `use`'s name that may reach it within its function, on any path: the simple statements
        that bind it, the `for` loops whose target does, the defs named so, and the parameter; a branch that always
        leaves (`raise`, `return`) reaches nothing, a loop's later bindings reach its next round. None when it cannot
        tell: a nested function's use, a `try`, `with` or `match` that binds the name, a loop left by `break` or
        `continue` that binds it, a `del`, a use no path reaches, a name no binding of the function reaches."""
        name = use.value
        node = self._use_statement(use)
        if node is None:
            return None
        found: set[cst.CSTNode] = set()
        while True:
            parent = self.parents.get(node)
            if isinstance(node, cst.FunctionDef):
                params = node.params
                named = [p for p in (*params.posonly_params, *params.params, *params.kwonly_params, params.star_arg,
                                     params.star_kwarg) if isinstance(p, cst.Param) and p.name.value == name]
                return found | {named[0]} if named else None
            if isinstance(node, _BOUNDARIES) or parent is None:
                return None
            if isinstance(parent, cst.While) and node is parent.test:
                again = _loop_again(parent, name)  # the test runs again after each round
                if again is None:
                    return None
                found |= again
            if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine)):
                body = list(parent.body)
                for earlier in reversed(body[:body.index(node)]):
                    passage = _passage(earlier, name)
                    if passage is None or passage.leaves:
                        return None  # unknown, or the use is never reached from here
                    found |= passage.bound
                    if not passage.passes:
                        return found
                owner = self.parents.get(parent)
                if isinstance(owner, (cst.For, cst.While)) and parent is owner.body:
                    again = _loop_again(owner, name)  # a round sees what the one before bound
                    if again is None:
                        return None
                    found |= again
                    if isinstance(owner, cst.For) and _target_binds(owner, name):
                        return found | {owner}  # each round starts with the target bound
                if isinstance(owner, (cst.ExceptHandler, cst.Finally, cst.Else)) and \
                        not isinstance(self.parents.get(owner), cst.If):
                    return None  # a handler, a loop's else: what ran before is not one path
                if owner is not None and any(binds(part, name) for part in _header(owner)):
                    return None  # a walrus in a test, a `with ... as name`: bound before the block runs
            node = parent

    def reaching_bound(self, use: cst.Name) -> list[cst.BaseExpression | None] | None:
        """The value each binding that may reach `use` binds to its name (`Flow.reaching_sites`), in file order: None
        for one that binds no single value (a parameter, a loop's target, an unpacking of a call); None for all when
        it cannot tell."""
        sites = self.reaching_sites(use)
        return [bound_value(site, use.value) for site in sorted(sites, key=self.position)] if sites else None

    def reaching_values(self, use: cst.Name) -> list[cst.BaseExpression] | None:
        """The values every binding that may reach `use` binds to its name, or None when one binds no single value or
        it cannot tell (`reaching_bound`)."""
        values = self.reaching_bound(use)
        return None if values is None or any(v is None for v in values) else values

    # -- what a callee's name is bound to ------------------------------------------------------------------------

    def foreign(self, call: cst.CSTNode) -> bool:
        """Is the callee of `call` bound in the file to something that is not torch's, so that no row of the effects
        table may be taken by its name: a bare name imported from another module (`from elsewhere import einsum`) or
        bound by the file itself (a def, an assignment; the package's own functions are read by their bodies), or a
        function of a module imported under a name the table reads as torch's (`import numpy as F`)? A method of a
        value (`x.view(...)`) and an unbound name (a builtin) are not foreign."""
        func = call.func if isinstance(call, cst.Call) else None
        head = func
        while isinstance(head, cst.Attribute):
            head = head.value
        if not isinstance(head, cst.Name):
            return False
        scope: Scope | None = self.scopes.get(head)
        found = [a for a in scope[head.value] if not isinstance(a, BuiltinAssignment)] if scope is not None else []
        imported = [a for a in found if isinstance(a, ImportAssignment)]
        if isinstance(func, cst.Name) and len(imported) != len(found):
            return True  # bound here: a def, a class, an assignment, a parameter
        return any(not _torch_module(_imported_module(a.node, head.value)) for a in imported)

    def module_function(self, call: cst.CSTNode) -> bool:
        """Is `call` a call of a function of a module (`torch.autograd.grad(...)`, `np.exp(x)`): its callee an
        attribute chain whose head the file binds by an import? Such a call is no method of a tensor."""
        func = call.func if isinstance(call, cst.Call) else None
        if not isinstance(func, cst.Attribute):
            return False
        head = func.value
        while isinstance(head, cst.Attribute):
            head = head.value
        if not isinstance(head, cst.Name):
            return False
        scope: Scope | None = self.scopes.get(head)
        found = list(scope[head.value]) if scope is not None else []
        return bool(found) and all(isinstance(a, ImportAssignment) for a in found)

    def bound(self, name: cst.Name) -> bool:
        """Does the file bind `name` where it is used (an import, a def, an assignment; builtins aside)?"""
        scope: Scope | None = self.scopes.get(name)
        return scope is not None and any(not isinstance(a, BuiltinAssignment) for a in scope[name.value])

    def chosen_functions(self, call: cst.CSTNode) -> list[cst.BaseExpression] | None:
        """What a call of a local name may call when the one binding of that name reaching the call picks functions by
        their names: `fn = F.l1_loss`, `fn = F.cross_entropy if flag else F.nll_loss` (names or attribute chains, or a
        conditional choosing between such); those expressions, each as the callee stands in the file. None for
        anything else (a parameter, a callee built by a call, a binding on some paths only)."""
        func = call.func if isinstance(call, cst.Call) else None
        if not isinstance(func, cst.Name):
            return None
        reaching = self.reaching(func)
        if reaching is None or reaching.value is None:
            return None
        found, stack = [], [reaching.value]
        while stack:
            expr = stack.pop()
            if isinstance(expr, cst.IfExp):
                stack.extend((expr.body, expr.orelse))
            elif isinstance(expr, (cst.Name, cst.Attribute)) and dotted(expr) is not None and \
                    not (isinstance(expr, cst.Name) and expr.value == func.value):
                found.append(expr)
            else:
                return None
        return found

    def qualified(self, expr: cst.BaseExpression) -> str | None:
        """The dotted name an imported name or attribute chain stands for, by the import that binds its head:
        `torch.nn.Linear` for `nn.Linear` after `from torch import nn` or `import torch.nn as nn`, and for `Linear`
        after `from torch.nn import Linear`; None when the head is not bound by exactly one import."""
        head, rest = expr, []
        while isinstance(head, cst.Attribute):
            rest.insert(0, head.attr.value)
            head = head.value
        if not isinstance(head, cst.Name):
            return None
        scope: Scope | None = self.scopes.get(head)
        found = list(scope[head.value]) if scope is not None else []
        if len(found) > 1 and all(isinstance(a, ImportAssignment) and isinstance(a.node, cst.Import) and
                                  _imported_module(a.node, head.value) == head.value for a in found):
            found = found[:1]  # `import torch` and `import torch.jit`: each binds `torch` to the package torch
        if len(found) != 1 or not isinstance(found[0], ImportAssignment):
            return None
        statement, name = found[0].node, head.value
        if isinstance(statement, cst.ImportFrom):
            module = _imported_module(statement, name)
            alias = next((a for a in statement.names if isinstance(a, cst.ImportAlias) and
                          (a.asname.name.value if a.asname else (dotted(a.name) or "")) == name), None) \
                if not isinstance(statement.names, cst.ImportStar) else None
            if not module or alias is None:
                return None
            base = f"{module}.{dotted(alias.name) or ''}"
        else:
            base = _imported_module(statement, name)
            if not base:
                return None
        return ".".join([base, *rest])

    # -- kernels -------------------------------------------------------------------------------------------------

    def kernel(self, name: cst.BaseExpression) -> cst.FunctionDef | None:
        """The @triton.jit function a plain name refers to, when it is defined once in this file."""
        if not isinstance(name, cst.Name):
            return None
        scope: Scope | None = self.scopes.get(name)
        if scope is None:
            return None
        found = list(scope[name.value])  # the assignments of the name visible here
        if len(found) != 1 or not isinstance(found[0].node, cst.FunctionDef) or not is_kernel(found[0].node):
            return None
        return found[0].node

    def launched(self, call: cst.CSTNode | None) -> cst.FunctionDef | None:
        """The kernel of `kernel[grid](...)`, when it is this file's."""
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Subscript):
            return self.kernel(call.func.value)
        return None

    def kernel_effects(self, kernel: cst.FunctionDef) -> KernelEffects:
        if id(kernel) not in self._kernel_effects:
            self._kernel_effects[id(kernel)] = kernel_effects(kernel)
        return self._kernel_effects[id(kernel)]

    def launch_parameter(self, call: cst.Call, arg: cst.Arg) -> str | None:
        """The name of the kernel parameter `arg` of a launch is passed to; None when it cannot tell."""
        kernel = self.launched(call)
        if kernel is None or arg.star:
            return None
        if arg.keyword is not None:
            return arg.keyword.value
        if any(a.star or a.keyword is not None for a in call.args[:call.args.index(arg)]):
            return None
        params = [*kernel.params.posonly_params, *kernel.params.params]
        index = list(call.args).index(arg)
        return params[index].name.value if index < len(params) else None


def _imported_module(statement: cst.Import | cst.ImportFrom, name: str) -> str:
    """The module `name` comes from in an import statement: `torch.nn.functional` for `import torch.nn.functional as
    F` and for `from torch.nn.functional import pad`; "" for a relative import (the package's own)."""
    if isinstance(statement, cst.ImportFrom):
        if statement.relative or statement.module is None:
            return ""
        return dotted(statement.module) or ""
    for alias in statement.names:
        full = dotted(alias.name) or ""
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name) and alias.asname.name.value == name:
            return full
        if alias.asname is None and full.split(".")[0] == name:
            return name
    return ""


def _torch_module(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")
