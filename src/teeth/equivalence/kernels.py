"""A @triton.jit kernel's own effects, from its body: the parameters it reads and the pointer parameters it stores into.

A pointer parameter is stored into when a `tl.store` or `tl.atomic_*` writes through a pointer derived from it (by
arithmetic, `tl.make_block_ptr`, `tl.advance`, any name assigned from it). A parameter handed to anything but a `tl.`
function (another kernel, a helper) may be written there: it counts as stored into. Every other parameter is only
read, so a tensor passed to it is only read by the launch.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from teeth.equivalence.effects import dotted


@dataclass(frozen=True)
class KernelEffects:
    params: tuple[str, ...]
    read: frozenset[str]  # parameters the body uses at all
    stored: frozenset[str]  # pointer parameters written through


def _names(node: cst.CSTNode) -> set[str]:
    found = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            found.add(n.value)
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)  # `a.b`: `a`, never the attribute name
            continue
        elif isinstance(n, cst.Arg):
            stack.append(n.value)  # the value, never the keyword
            continue
        stack.extend(n.children)
    return found


_PLAIN = {"range", "min", "max", "len", "int", "float", "bool", "print"}  # builtins that write nothing


def _is_tl(call: cst.Call) -> str | None:
    """`store` for `tl.store(...)` (or `triton.language.store`)."""
    if isinstance(call.func, cst.Attribute) and dotted(call.func.value) in ("tl", "triton.language"):
        return call.func.attr.value
    return None


def kernel_effects(kernel: cst.FunctionDef) -> KernelEffects:
    params = tuple(p.name.value for p in (*kernel.params.posonly_params, *kernel.params.params,
                                            *kernel.params.kwonly_params))
    derived: dict[str, set[str]] = {p: {p} for p in params}  # name -> the parameters its value derives from
    assigns: list[tuple[set[str], set[str]]] = []
    written: list[cst.CSTNode] = []
    body_names: set[str] = set()
    stack: list[cst.CSTNode] = [kernel.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            body_names.add(node.value)
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            value = node.iter if isinstance(node, cst.For) else node.value
            if value is not None:
                assigns.append(({n for t in targets for n in _names(t)}, _names(value)))
        if isinstance(node, cst.Call):
            op = _is_tl(node)
            if op is not None and (op == "store" or op.startswith("atomic_")):
                if node.args:
                    written.append(node.args[0].value)
            elif op is None and not (isinstance(node.func, cst.Name) and node.func.value in _PLAIN):
                written.extend(a.value for a in node.args)  # a helper or another kernel may write what it is given
        stack.extend(node.children)
    changed = True
    while changed:  # to a fixed point: what each name's value derives from
        changed = False
        for targets, sources in assigns:
            origin = set().union(*(derived.get(s, set()) for s in sources)) if sources else set()
            for target in targets:
                if not origin <= derived.setdefault(target, set()):
                    derived[target] |= origin
                    changed = True
    stored = set()
    for pointer in written:
        for name in _names(pointer):
            stored |= derived.get(name, set())
    return KernelEffects(params, frozenset(p for p in params if p in body_names), frozenset(stored & set(params)))
