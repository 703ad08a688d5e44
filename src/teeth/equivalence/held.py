"""A callee held in an attribute, `self.NAME(...)`: which class the instance is, when the class's own code fixes it
(`self.NAME = Cls(...)` at the top of `__init__`), and which of that class's methods a call runs; a module class of
torch is found through the file's imports and read from torch's own source file."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import libcst as cst

from teeth.equivalence.effects import dotted
from teeth.equivalence.flow import Flow, walk

MODULE_BASES = ("nn.Module", "torch.nn.Module", "Module")


def method_of(flow: Flow, node: cst.CSTNode, instance: str):
    """(method, class) when `node` is in a method (a function right in a class's body, undecorated) whose first
    parameter is `instance` and never rebound; None otherwise."""
    method = flow.parent(node)
    while method is not None and not isinstance(method, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        method = flow.parent(method)
    if not isinstance(method, cst.FunctionDef) or method.decorators:
        return None
    block = flow.parent(method)
    cls = flow.parent(block) if isinstance(block, cst.IndentedBlock) else None
    params = (*method.params.posonly_params, *method.params.params)
    if not isinstance(cls, cst.ClassDef) or not params or params[0].name.value != instance:
        return None
    scope = flow.scopes.get(params[0].name)
    if scope is None or len(list(scope.assignments[instance])) != 1:
        return None  # `self` rebound in the method
    return method, cls


def is_method(flow: Flow, function: cst.FunctionDef) -> bool | None:
    """False for a function at the top of its file, True for a method of a class there (defined in its body), None
    for anything else (a nested function, a method of a nested class)."""
    parent = flow.parent(function)
    if isinstance(parent, cst.Module):
        return False
    owner = flow.parent(parent) if isinstance(parent, cst.IndentedBlock) else None
    return True if isinstance(owner, cst.ClassDef) and isinstance(flow.parent(owner), cst.Module) else None


def made_once_in_init(flow: Flow, cls: cst.ClassDef, name: str) -> cst.Call | None:
    """`Cls(...)` when `self.NAME = Cls(...)` in the class's `__init__` (its first parameter `self`, at the top of
    its body) is the only store into that attribute anywhere in the class, the class has no member `NAME` and no
    `setattr`/`__setattr__`; None otherwise."""
    body = cls.body.body
    if any(binds_at_top(s, name) for s in body) or \
            any(isinstance(s, cst.FunctionDef) and s.name.value == "__setattr__" for s in body):
        return None
    init = [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"]
    if len(init) != 1 or init[0].decorators:
        return None
    params = (*init[0].params.posonly_params, *init[0].params.params)
    if not params:
        return None
    this = params[0].name.value
    made = []
    for node in walk(cls):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("setattr", "delattr"):
            return None
        targets = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets = [node.target]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        for target in targets:
            for n in walk(target):
                if isinstance(n, cst.Attribute) and n.attr.value == name:
                    made.append((node, n))
    if len(made) != 1:
        return None
    statement, target = made[0]
    line = flow.parent(statement)
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1 or \
            statement.targets[0].target is not target or not isinstance(target.value, cst.Name) or \
            target.value.value != this or not isinstance(statement.value, cst.Call) or \
            not isinstance(line, cst.SimpleStatementLine) or flow.parent(flow.parent(line)) is not init[0]:
        return None  # not `self.NAME = Cls(...)` at the top of `__init__`'s body (a branch may skip it)
    return statement.value


def call_method(klass: cst.ClassDef) -> cst.FunctionDef | None:
    """What calling an instance of `klass` runs: its own `forward` when it derives from `nn.Module` alone (no
    `__call__` of its own), its own `__call__` when it derives from nothing; undecorated, not async."""
    bases = [(dotted(b.value) or "") for b in klass.bases]
    if klass.keywords or any(not b for b in bases):
        return None
    members = {s.name.value: s for s in klass.body.body if isinstance(s, cst.FunctionDef)}
    if "__call__" in members:
        wanted = "__call__" if not bases or bases == ["object"] else None
    else:
        wanted = "forward" if len(bases) == 1 and bases[0] in MODULE_BASES else None
    method = members.get(wanted) if wanted else None
    if method is None or method.decorators or method.asynchronous is not None:
        return None
    return method


def torch_class(qualified: str):
    """The class torch names `qualified` (`torch.nn.Linear`) when it is a module class (`nn.Module`), else None."""
    try:
        import torch
    except ImportError:
        return None
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        return found if isinstance(found, type) and issubclass(found, torch.nn.Module) else None
    return None


def source_file(klass: type) -> Path | None:
    try:
        found = inspect.getsourcefile(klass)
    except (TypeError, OSError):
        return None
    return Path(found).resolve() if found else None


def binds_at_top(statement: cst.CSTNode, name: str) -> bool:
    if isinstance(statement, cst.FunctionDef):
        return statement.name.value == name
    if isinstance(statement, (cst.ClassDef,)):
        return statement.name.value == name
    if isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
        return any(binds_anywhere(n, name) for n in [statement])
    if isinstance(statement, cst.SimpleStatementLine):
        return any(binds_anywhere(small, name) for small in statement.body)
    return False


def binds_anywhere(node: cst.CSTNode, name: str) -> bool:
    from teeth.equivalence.flow import binds, walk

    if isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return True  # may bind it: counted, so the name is not taken as defined once
        return any((a.asname.name.value if a.asname else (dotted(a.name) or "")) == name for a in node.names)
    if isinstance(node, cst.Import):
        return any((a.asname.name.value if a.asname else (dotted(a.name) or "").split(".")[0]) == name for a in node.names)
    return any(isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n.name.value == name for n in walk(node)) or \
        binds(node, name)
