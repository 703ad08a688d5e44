"""Which expressions are known to be tensors: a copy (`.clone()`) of anything else may raise or differ."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.effects import ATTRIBUTES, FUNCTION_MODULES, TENSOR_ONLY, TENSOR_TUPLE_ATTRIBUTES, TUPLES, \
    dotted, function_effect, method_effect
from teeth.equivalence.flow import Flow, assigned_value, binding_site, binds, own_nodes
from teeth.equivalence.held import is_method
from teeth.equivalence.schemas import operator_name, rejects_non_tensor_first, returns_tensors_only

_ANNOTATIONS = ("Tensor", "torch.Tensor")
_DEPTH = 8  # how many bindings a value is followed through (its own operands and receivers are walked whole)


def is_tensor(expr: cst.BaseExpression, flow: Flow, seen: frozenset[str] = frozenset(), depth: int = 0) -> bool:
    """Is `expr` a tensor on every path: a torch call's result (the effects table says fresh or alias), a tensor's
    slice or method result, a tensor-only method's result, a parameter annotated `Tensor` (or `Optional[Tensor]`), an
    element unpacked from a tensor or a tuple of them, or a name whose reaching binding (or every binding) is one?
    Anything else (a list, a tuple, an unannotated parameter) is unknown."""
    if depth > _DEPTH:
        return False
    deeper = depth + 1
    if isinstance(expr, cst.Subscript):  # `x[:, 0]` proves no tensor: a numpy array takes it too, and has no `.clone()`
        if _tuple_call(expr.value):  # `x.split(2)[0]` is a tensor, `x.split(2)[1:]` a tuple of them
            return _single_index(expr) and _tensors(expr.value, flow, seen, deeper)
        if isinstance(expr.value, cst.Call) and _single_index(expr) and _tensors(expr.value, flow, seen, deeper):
            return True  # an element of a package function's tuple of tensors (`helper(x)[0]`)
        return is_tensor(expr.value, flow, seen, depth)
    if isinstance(expr, cst.Attribute):
        row = ATTRIBUTES.get(expr.attr.value)
        if row is not None:
            return row.result == "alias" and is_tensor(expr.value, flow, seen, deeper)
        return _attribute_is_tensor(expr.attr.value, flow, seen, deeper)
    if isinstance(expr, cst.Call) and flow.qualified(expr.func) in _TENSOR_CLASSES:
        return True  # `nn.Parameter(torch.zeros(n))`: a tensor whatever it is given
    if isinstance(expr, cst.Call):
        return not _tuple_call(expr) and not (isinstance(expr.func, (cst.Name, cst.Attribute)) and
                                              returns_tensors(expr, flow, several=True)) and \
            _tensors(expr, flow, seen, depth, one=True)
    if isinstance(expr, (cst.BinaryOperation, cst.Comparison)):  # a tensor's arithmetic makes a tensor
        operands = [expr.left, expr.right] if isinstance(expr, cst.BinaryOperation) else \
            [expr.left] if len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, (
                cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)) \
            else []
        return any(is_tensor(o, flow, seen, depth) for o in operands)
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return is_tensor(expr.expression, flow, seen, depth)
    if isinstance(expr, cst.IfExp):  # `a if c else b`: a tensor either way
        return is_tensor(expr.body, flow, seen, depth) and is_tensor(expr.orelse, flow, seen, depth)
    if isinstance(expr, cst.Name):
        return _name_is_tensor(expr, flow, seen, deeper)
    return False


_TENSOR_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                             "torch.nn.parameter.Buffer", "torch.Tensor"})


def _attribute_is_tensor(name: str, flow: Flow, seen: frozenset[str], depth: int) -> bool:
    """`obj.name` (not a tensor's own attribute) is a tensor when every value the package binds to an attribute of
    that name, of any object (`Callees.attribute_values`), is a tensor or None (a view of None raises, in the mutant
    as in the original), and there is one; by induction over the run, a value made from the attribute itself
    (`self.w = self.w.t()`) is one if the earlier values were. Code outside the package that sets it is not read."""
    key = "." + name
    if key in seen:
        return True
    values = flow.callees.attribute_values(name) if flow.callees is not None else None
    return bool(values) and all(_is_none(value) or is_tensor(value, where, seen | {key}, depth)
                                for where, value in values)


def returns_tensors(call: cst.Call, flow: Flow, several: bool = False) -> bool:
    """Is `call` a function of torch (by the file's imports) that stands for an ATen operator every overload of
    which returns one tensor (`torch.linalg.cholesky`), or with `several` a tuple of tensors (`torch.linalg.eigh`)?"""
    qualified = flow.qualified(call.func)
    if qualified is None or not qualified.startswith("torch."):
        return False
    operator = operator_name(qualified)
    return operator is not None and returns_tensors_only(operator, several)


def _paired(targets: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """`a, b = x, y`: a tuple of names given a tuple literal of as many values, nothing starred."""
    return isinstance(targets, (cst.Tuple, cst.List)) and isinstance(value, cst.Tuple) and \
        len(targets.elements) == len(value.elements) and \
        not any(isinstance(e, cst.StarredElement) for e in (*targets.elements, *value.elements))


def _tuple_call(expr: cst.BaseExpression) -> bool:
    """A call that may return a tuple: `x.split(2)`, `x.sort()`; `x.nonzero()` only with `as_tuple=` not False."""
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in TUPLES):
        return False
    return _as_tuple(expr) if expr.func.attr.value == "nonzero" else True


def _as_tuple(call: cst.Call) -> bool:
    """`nonzero(as_tuple=...)` given anything but a literal False: may return a tuple of index tensors."""
    flag = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "as_tuple"]
    return bool(flag) and not (isinstance(flag[0], cst.Name) and flag[0].value == "False")


def _single_index(node: cst.Subscript) -> bool:
    return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and \
        node.slice[0].slice.star is None


def _tensors(expr: cst.BaseExpression, flow: Flow, seen: frozenset[str], depth: int, one: bool = False) -> bool:
    """Is `expr` a tensor or a tuple of them: a torch function's or a tensor method's result (the effects table
    says fresh or alias), a package function's (`CalleeEffects.tensor`, `.tensors`), an attribute holding a tuple of
    tensors (`ctx.saved_tensors`), or any expression `is_tensor` proves? Its elements, unpacked or indexed, are
    tensors. With `one`, a package function must return one tensor."""
    if isinstance(expr, cst.Attribute) and expr.attr.value in TENSOR_TUPLE_ATTRIBUTES:
        return True
    if not isinstance(expr, cst.Call):
        return is_tensor(expr, flow, seen, depth)
    func = expr.func
    if flow.callees is not None and isinstance(func, (cst.Name, cst.Attribute)) and \
            flow.callees.function(flow, expr) is not None:  # a function of the package: by its returns
        effects = flow.callees.effects(flow, expr)
        if effects is None:
            return False
        return effects.tensor or (not one and effects.tensors) or \
            (effects.tensor_given and _given_tensors(expr, effects, flow, seen, depth))
    if not isinstance(func, cst.Attribute):
        return False
    if dotted(func.value) in FUNCTION_MODULES:  # torch.cat(...), F.pad(...)
        row = function_effect(expr, flow)
        if row is None and returns_tensors(expr, flow):
            return True
        return row is not None and row.result != "scalar"
    if returns_tensors(expr, flow) or returns_tensors(expr, flow, several=True):  # by torch's schema: a tensor, or
        return True  # a tuple of them whose elements are (`w, v = torch.linalg.eigh(a)`)
    row = method_effect(expr, flow)  # a method: of a tensor, or one only tensors have
    return row is not None and row.result != "scalar" and (
        func.attr.value in TENSOR_ONLY or is_tensor(func.value, flow, seen, depth))


def _given_tensors(call: cst.Call, effects, flow: Flow, seen: frozenset[str], depth: int) -> bool:
    """Does `call` give a tensor to each parameter without a default of the callee (`CalleeEffects.required`), by
    position or keyword, nothing starred?"""
    if any(a.star for a in call.args):
        return False
    given = {flow.callees.parameter(flow, call, a, effects): a.value for a in call.args}
    return all(name in given and is_tensor(given[name], flow, seen, depth + 1) for name in effects.required)


def _param_is_tensor(param: cst.Param, flow: Flow) -> bool:
    """Annotated `Tensor`, or `Optional[Tensor]` (`Tensor | None`): a view of None raises before a copy would, in the
    mutant as in the original, so None is as good as a tensor here; a default other than None is not."""
    if id(param) in flow.assumed:
        return True  # `CalleeEffects.tensor_given`: what the function returns when given tensors
    if param.star not in ("", cst.MaybeSentinel.DEFAULT) or param.annotation is None:
        return False
    if param.default is not None and not _is_none(param.default):
        return False
    return _tensor_annotation(param.annotation.annotation, optional=True, flow=flow)


def _passed_tensors(param: cst.Param, flow: Flow, depth: int) -> bool:
    """Is `param` a parameter of a module-private function of the package that every call in the package
    (`Callees.calls`) gives a tensor (`is_tensor` in the caller's own file), or None (a view of None raises before a
    copy would), whether by position or by keyword? A call that leaves it to a default other than None, or passes
    `*args`/`**kwargs`, is unknown."""
    callees = flow.callees
    parameters = flow.parent(param)
    function = flow.parent(parameters) if isinstance(parameters, cst.Parameters) else None
    if callees is None or depth > _DEPTH or not isinstance(function, cst.FunctionDef) or \
            param.star not in ("", cst.MaybeSentinel.DEFAULT):
        return False
    calls = callees.calls(flow, function)
    if not calls:
        return False
    positional = [p.name.value for p in (*parameters.posonly_params, *parameters.params)]
    if is_method(flow, function):
        positional = positional[1:]  # `obj._name(a)`: the first parameter is the object
    name = param.name.value
    if name not in positional and param not in parameters.kwonly_params:
        return False
    for caller, call in calls:
        if any(a.star for a in call.args):
            return False
        passed = [a.value for i, a in enumerate(call.args) if (a.keyword.value == name if a.keyword is not None else
                                                                 i < len(positional) and positional[i] == name)]
        if not passed:
            if param.default is None or not _is_none(param.default):
                return False
        elif not (_is_none(passed[0]) or is_tensor(passed[0], caller, frozenset(), depth + 1)):
            return False
    return True


def _checked_before(use: cst.Name, flow: Flow) -> bool:
    """Has the function, on every path to `use` and after the last binding of its name before it, made sure the value
    is a tensor: `assert isinstance(x, torch.Tensor)` (or `torch.is_tensor(x)`), `if not isinstance(x, Tensor): raise
    ...`, a statement that calls a method only tensors have on it (`n = x.dim()`, `if x.ndimension() < 2:`), or one
    that hands it to a function of the package that checks that parameter so (`CalleeEffects.checked`)? Any other
    value raises there, before the view, in the mutant as in the original."""
    name = use.value
    node = flow.statement(use) or flow.statement_part(use)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        parent = flow.parent(node)
        if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine)):
            body = list(parent.body)
            for earlier in reversed(body[:body.index(node)]):
                if _none_default(earlier, name, flow):
                    continue  # a tensor stays one, None becomes one
                if binds(earlier, name):
                    return False  # checked, if at all, before another value was bound
                if _guards(earlier, name, flow):
                    return True
            owner = flow.parent(parent)
            if isinstance(owner, (cst.For, cst.While)) and binds(owner, name):
                return False  # a later round sees what this one binds
        node = parent
    return False


def _guards(statement: cst.CSTNode, name: str, flow: Flow) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(_guards(small, name, flow) for small in reversed(statement.body))
    if isinstance(statement, cst.Assert):
        return any(_tensor_test(part, name, flow) for part in _conjuncts(statement.test))
    if isinstance(statement, cst.If) and isinstance(statement.test, cst.UnaryOperation) and \
            isinstance(statement.test.operator, cst.Not) and _tensor_test(statement.test.expression, name, flow):
        body = statement.body.body
        last = body[-1] if body else None
        if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise):
            return True
    if isinstance(statement, (cst.If, cst.While)):  # the first test always runs
        return any(_checks(node, name, flow) for node in _unconditional(statement.test))
    if isinstance(statement, (cst.Expr, cst.Assign, cst.AnnAssign, cst.Return)):
        return any(_checks(node, name, flow) for node in _unconditional(statement))
    return False


def _checks(node: cst.CSTNode, name: str, flow: Flow) -> bool:
    """A call that raises unless `name` is a tensor: a tensor-only method of it, a torch function given it first that
    takes nothing else there (`torch.isnan(x)`), or a function of the package whose parameter it is passed to is
    checked there."""
    if _tensor_method_on(node, name) or _torch_function_of(node, name, flow):
        return True
    if not isinstance(node, cst.Call) or flow.callees is None or \
            not any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
        return False
    effects = flow.callees.effects(flow, node) if flow.callees.function(flow, node) is not None else None
    if effects is None or not effects.checked:
        return False
    return any(isinstance(a.value, cst.Name) and a.value.value == name and
               flow.callees.parameter(flow, node, a, effects) in effects.checked for a in node.args)


def checked_at_entry(function: cst.FunctionDef, name: str, flow: Flow, before: cst.CSTNode | None = None) -> bool:
    """Does every call of `function` raise unless its parameter `name` is a tensor: a statement of its body that
    checks it (`_guards`) comes before any that binds the name again or may return (and, given `before`, before the
    statement of the body that holds that node)?"""
    last = flow.body_statement(before)[1] if before is not None else None
    for statement in function.body.body if isinstance(function.body, cst.IndentedBlock) else ():
        if statement is last:
            return False
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]:
            if _guards(small, name, flow):
                return True  # a compound statement's test, an assignment's value: before anything it binds
            if _none_default(small, name, flow):
                continue
            if binds(small, name) or any(isinstance(n, (cst.Return, cst.Yield)) for n in own_nodes(small)):
                return False
    return False


def _none_default(statement: cst.CSTNode, name: str, flow: Flow) -> bool:
    """`if name is None: name = torch.zeros(...)`: no `else`, and every binding of the name in it is a tensor. A
    tensor keeps its value; None (as good as a tensor here: a view of None raises, in the mutant as in the
    original) becomes a tensor."""
    if not isinstance(statement, cst.If) or statement.orelse is not None or \
            not isinstance(statement.test, cst.Comparison) or len(statement.test.comparisons) != 1:
        return False
    test = statement.test
    if not (isinstance(test.left, cst.Name) and test.left.value == name and
            isinstance(test.comparisons[0].operator, cst.Is) and _is_none(test.comparisons[0].comparator)):
        return False
    for line in statement.body.body:
        if not binds(line, name):
            continue
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        for small in line.body:
            value = assigned_value(small, name)
            if binds(small, name) and (value is None or not is_tensor(value, flow)):
                return False
    return True


# Methods a tensor has that return no tensor, and Python's lists, tuples and numpy arrays lack (numpy's `size` is
# a number, not callable): a call of one raises on anything else.
TENSOR_ONLY_QUERIES = frozenset("dim ndimension size numel nelement element_size is_floating_point is_contiguous "
                                "stride storage_offset data_ptr".split())


def _conjuncts(test: cst.BaseExpression):
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _conjuncts(test.left)
        yield from _conjuncts(test.right)
    else:
        yield test


def _tensor_test(test: cst.BaseExpression, name: str, flow: Flow) -> bool:
    """`isinstance(name, torch.Tensor)` or `torch.is_tensor(name)`."""
    if not isinstance(test, cst.Call) or not test.args or not isinstance(test.args[0].value, cst.Name) or \
            test.args[0].value.value != name:
        return False
    if isinstance(test.func, cst.Name) and test.func.value == "isinstance" and not flow.bound(test.func):
        return len(test.args) == 2 and _tensor_type(test.args[1].value, flow)
    return flow.qualified(test.func) == "torch.is_tensor"


def _unconditional(node: cst.CSTNode):
    """The nodes of a statement that always run with it: not inside a conditional expression, a boolean operation's
    later operand, a lambda or a comprehension."""
    yield node
    for child in node.children:
        if isinstance(child, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            continue
        if isinstance(node, cst.IfExp) and child is not node.test:
            continue
        if isinstance(node, cst.BooleanOperation) and child is node.right:
            continue
        yield from _unconditional(child)


def _tensor_method_on(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
        isinstance(node.func.value, cst.Name) and node.func.value.value == name and \
        node.func.attr.value in TENSOR_ONLY | TENSOR_ONLY_QUERIES


def _torch_function_of(node: cst.CSTNode, name: str, flow: Flow) -> bool:
    """`torch.f(name, ...)` (or `f` imported from torch) with `name` its first argument, given positionally, and
    `f` a torch function that raises unless that argument is a tensor (`schemas.rejects_non_tensor_first`)."""
    if not isinstance(node, cst.Call) or not node.args or node.args[0].keyword is not None or node.args[0].star or \
            not isinstance(node.args[0].value, cst.Name) or node.args[0].value.value != name:
        return False
    qualified = flow.qualified(node.func)
    return qualified is not None and qualified.count(".") == 1 and qualified.startswith("torch.") and \
        rejects_non_tensor_first(qualified.split(".")[1])


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def _tensor_type(expr: cst.BaseExpression, flow: Flow) -> bool:
    """Does the annotation name torch's tensor type: `Tensor`, `torch.Tensor`, a typed one (`BoolTensor`,
    `torch.LongTensor`), by the import that binds its name, or a jaxtyping annotation of one (`Float[Tensor, "b n"]`)?
    A name the file does not bind at all is read by its text; one bound to anything but torch's is no tensor type."""
    if isinstance(expr, cst.SimpleString):
        return expr.value.strip("'\"") in _ANNOTATIONS
    if isinstance(expr, cst.Subscript) and expr.slice and isinstance(expr.slice[0].slice, cst.Index) and \
            (flow.qualified(expr.value) or "").startswith("jaxtyping."):
        return _tensor_type(expr.slice[0].slice.value, flow)
    head = expr
    while isinstance(head, cst.Attribute):
        head = head.value
    if not isinstance(head, cst.Name):
        return False
    if not flow.bound(head):
        return dotted(expr) in _ANNOTATIONS
    return _torch_tensor_type(flow.qualified(expr) or "")


def _torch_tensor_type(qualified: str) -> bool:
    """`torch.Tensor`, or one of torch's typed tensor classes (`torch.BoolTensor`, `torch.cuda.FloatTensor`)."""
    if qualified == "torch.Tensor":
        return True
    module, _, name = qualified.rpartition(".")
    if module not in ("torch", "torch.cuda") or not name.endswith("Tensor"):
        return False
    try:
        import importlib

        import torch
        return getattr(importlib.import_module(module), name, None) in torch._tensor_classes
    except (ImportError, AttributeError):
        return False


def _tensor_annotation(expr: cst.BaseExpression, optional: bool, flow: Flow) -> bool:
    """`Tensor`, `torch.Tensor` (`_tensor_type`); with `optional`, also `Optional[Tensor]`, `Union[Tensor, None]`,
    `Tensor | None`."""
    if _tensor_type(expr, flow):
        return True
    if not optional:
        return False
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        parts = [expr.left, expr.right]
    elif isinstance(expr, cst.Subscript) and (dotted(expr.value) or "").split(".")[-1] in ("Optional", "Union") and \
            all(isinstance(e.slice, cst.Index) for e in expr.slice):
        parts = [e.slice.value for e in expr.slice] + ([cst.Name("None")] if len(expr.slice) == 1 else [])
    else:
        return False
    return all(_is_none(p) or _tensor_annotation(p, False, flow) for p in parts) and \
        any(_tensor_annotation(p, False, flow) for p in parts)


def _name_is_tensor(use: cst.Name, flow: Flow, seen: frozenset[str], depth: int) -> bool:
    """The binding of `use` that reaches it is a tensor; failing that (a loop, a branch), every binding of the name
    in its function is (by induction over the run: each binding makes a tensor if the earlier values were); or
    whatever was bound, the function made sure it is one before the use (`_checked_before`)."""
    if use.value in seen:
        return True
    return _bound_tensor(use, flow, seen, depth) or _checked_before(use, flow)


def _bound_tensor(use: cst.Name, flow: Flow, seen: frozenset[str], depth: int) -> bool:
    reaching = flow.reaching(use)
    if reaching is not None:
        if reaching.param is not None:
            return _param_is_tensor(reaching.param, flow) or _passed_tensors(reaching.param, flow, depth)
        return is_tensor(reaching.value, flow, seen, depth)
    scope = flow.scopes.get(use)
    found = list(scope[use.value]) if scope is not None else []
    if not found or any(getattr(a, "node", None) is None for a in found) or \
            not all(flow.function_scope(a.node) is not None or isinstance(a.node, cst.Param) or
                    _iterated_into(a.node, flow) for a in found):
        return False  # a builtin (no node), a global, a name of an enclosing function
    sites = flow.reaching_sites(use)
    if sites:  # only the bindings that may reach the use need be tensors; the others not judged, a use of the name
        placed = {id(a.node): binding_site(a.node, flow) for a in found}  # in their values is followed to its own
        if sites <= set(placed.values()) and \
                _each_tensor(use, [a for a in found if placed[id(a.node)] in sites], flow, seen, depth):
            return True
    return _each_tensor(use, found, flow, seen | {use.value}, depth)  # every binding: by induction over the run


def _each_tensor(use: cst.Name, found: list, flow: Flow, inner: frozenset[str], depth: int) -> bool:
    """Is every binding in `found` (scope assignments of `use`'s name) a tensor, the names in `inner` taken to be?"""
    for assignment in found:
        node = assignment.node
        if isinstance(node, cst.Param):
            if not (_param_is_tensor(node, flow) or _passed_tensors(node, flow, depth) or
                    _checked_param(node, use, flow)):
                return False
            continue
        target = flow.parent(node)
        if isinstance(target, (cst.CompFor, cst.For)) and target.target is node:  # `for y in x`: a tensor's rows,
            if not (is_tensor(target.iter, flow, inner, depth) or _tensors(target.iter, flow, inner, depth)):
                return False  # or the tensors of `x.unbind(0)`
            continue
        if isinstance(target, cst.Element):  # `_, order = x.sort()`: an element of a tensor or a tuple of them
            tuple_, assign = flow.parent(target), flow.parent(flow.parent(flow.parent(target)))
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or assign.targets[0].target is not tuple_:
                return False
            if _paired(tuple_, assign.value):  # `a, b = a.bool(), b.bool()`: the value in the same place
                if not is_tensor(assign.value.elements[list(tuple_.elements).index(target)].value, flow, inner, depth):
                    return False
            elif not _tensors(assign.value, flow, inner, depth):
                return False
            continue
        statement = flow.parent(target) if isinstance(target, cst.AssignTarget) else target
        value = assigned_value(statement, use.value)
        if value is None or not is_tensor(value, flow, inner, depth):
            return False
    return True


def _checked_param(param: cst.Param, use: cst.Name, flow: Flow) -> bool:
    """Has the function checked its parameter to be a tensor (`checked_at_entry`) in a statement of its body before
    the one holding `use`? A check after it comes too late: the view, or its copy, was made before."""
    parameters = flow.parent(param)
    function = flow.parent(parameters) if isinstance(parameters, cst.Parameters) else None
    return isinstance(function, cst.FunctionDef) and flow.body_statement(use)[0] is function.body and \
        checked_at_entry(function, param.name.value, flow, before=use)


def _iterated_into(node: cst.CSTNode, flow: Flow) -> bool:
    """Is `node` the plain name a comprehension's `for` binds (its scope the comprehension's)?"""
    parent = flow.parent(node)
    return isinstance(parent, cst.CompFor) and parent.target is node


# Methods (and torch functions) whose result is a boolean tensor when called on a tensor.
_MASK_CALLS = frozenset("bool eq ne lt le gt ge isnan isinf isfinite isneginf isposinf logical_not logical_and "
                        "logical_or logical_xor isin".split())
_MASK_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def is_mask(expr: cst.BaseExpression, flow: Flow, depth: int = 0) -> bool:
    """Is `expr` a boolean tensor on every path: a tensor's comparison, `~`, `&`, `|`, `^` of masks, `.bool()` or a
    predicate (`isnan`, `logical_and`, ...) of a tensor, or a name whose reaching binding is one?"""
    if depth > _DEPTH:
        return False
    deeper = depth + 1
    if isinstance(expr, cst.Comparison):
        return len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, _MASK_COMPARISONS) and \
            is_tensor(expr.left, flow)
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.BitInvert) and is_mask(expr.expression, flow, deeper)
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and \
            is_mask(expr.left, flow, deeper) and is_mask(expr.right, flow, deeper)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _MASK_CALLS:
        if dotted(expr.func.value) == "torch":  # torch.isnan(x): the first argument a tensor
            first = expr.args[0] if expr.args else None
            return first is not None and first.keyword is None and not first.star and is_tensor(first.value, flow)
        return is_tensor(expr.func.value, flow)
    if isinstance(expr, cst.Name):
        reaching = flow.reaching(expr)
        return reaching is not None and reaching.value is not None and is_mask(reaching.value, flow, deeper)
    return False


def masked_index(expr: cst.BaseExpression, flow: Flow) -> bool:
    """`x[mask]` with one index, a boolean tensor: a tensor (or a list) indexed by a mask is always a new tensor, a
    copy of the rows it selects (an integer tensor's index is not: a 0-dim one selects, a view)."""
    return isinstance(expr, cst.Subscript) and _single_index(expr) and is_mask(expr.slice[0].slice.value, flow)


# Torch functions whose result has at least one dimension whatever their arguments (nonzero: two, unless given an
# `as_tuple=` other than False), and those shaped by a size argument: its first positional one (randint: its last),
# or `size=`.
_ONE_D = frozenset("arange randperm linspace logspace".split())
_SIZED = frozenset("zeros ones empty rand randn full randint".split())
# Methods whose result has at least one dimension: always (unsqueeze, flatten), or when given a shape of at least one
# dimension (view, reshape, expand, repeat).
_RANKED_METHODS = frozenset("unsqueeze flatten".split())
_SHAPED_METHODS = frozenset("view reshape expand repeat".split())


def _shape_of_one_or_more(args) -> bool:
    """Arguments that make a shape of at least one dimension: two or more sizes, one integer literal, or one tuple or
    list literal holding at least one size (a name might hold `()`, a 0-dim shape)."""
    if any(a.star or a.keyword is not None for a in args):
        return False
    if len(args) >= 2:
        return True
    if len(args) != 1:
        return False
    value = args[0].value
    if isinstance(value, (cst.Tuple, cst.List)):
        return bool(value.elements) and not any(isinstance(e, cst.StarredElement) for e in value.elements)
    return isinstance(value, cst.Integer) or (isinstance(value, cst.UnaryOperation) and
                                              isinstance(value.expression, cst.Integer))


def at_least_1d(expr: cst.BaseExpression, flow: Flow, depth: int = 0) -> bool:
    """Is `expr` a tensor of at least one dimension on every path: `torch.arange(n)`, `x.nonzero()`, a factory given
    a shape of one or more dimensions (`torch.randint(0, n, (k,))`, `torch.zeros(b, n)`), `.unsqueeze(d)`,
    `.flatten()`, `.view(-1)`, arithmetic with one of them, or a name whose reaching binding is one?"""
    if depth > _DEPTH:
        return False
    deeper = depth + 1
    if isinstance(expr, cst.Name):
        reaching = flow.reaching(expr)
        return reaching is not None and reaching.value is not None and at_least_1d(reaching.value, flow, deeper)
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        return at_least_1d(expr.left, flow, depth) or at_least_1d(expr.right, flow, depth)
    if not isinstance(expr, cst.Call) or flow.foreign(expr):
        return False
    func = expr.func
    positional = [a for a in expr.args if a.keyword is None]
    if isinstance(func, cst.Name) or (isinstance(func, cst.Attribute) and dotted(func.value) in FUNCTION_MODULES):
        name = func.value if isinstance(func, cst.Name) else func.attr.value
        if name in _ONE_D or (name == "nonzero" and not _as_tuple(expr)):
            return True
        if name not in _SIZED:
            return False
        sized = [a for a in expr.args if a.keyword is not None and a.keyword.value == "size"]
        if sized:
            return _shape_of_one_or_more([sized[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)])
        if name == "randint":
            return bool(positional) and _shape_of_one_or_more(positional[-1:])
        if name == "full":
            return bool(positional) and _shape_of_one_or_more(positional[:1])
        return _shape_of_one_or_more(positional)
    if not isinstance(func, cst.Attribute) or not is_tensor(func.value, flow):
        return False
    method = func.attr.value
    if method in _RANKED_METHODS or (method == "nonzero" and not _as_tuple(expr)):
        return True
    return method in _SHAPED_METHODS and _shape_of_one_or_more(list(expr.args))


def copying_index(expr: cst.BaseExpression, flow: Flow) -> bool:
    """An index of a tensor that always makes a new tensor: by a mask (`masked_index`), or with an integer tensor of at
    least one dimension among its indices (`x[idx]`, `x[rows, cols]`, `x[:, idx]`: advanced indexing copies, where a
    0-dim integer tensor would select, a view)."""
    if masked_index(expr, flow):
        return True
    return isinstance(expr, cst.Subscript) and is_tensor(expr.value, flow) and any(
        isinstance(e.slice, cst.Index) and at_least_1d(e.slice.value, flow) for e in expr.slice)
