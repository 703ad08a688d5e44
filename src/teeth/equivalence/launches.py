"""Launch rules: a change to a kernel launch's argument that the launched @triton.jit kernel never reads."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import FunctionScope

from teeth.equivalence.base import Context, Mutation, Rule, rule
from teeth.equivalence.flow import uses, walk


@rule
class UnreadLaunchKeyword(Rule):
    name = "unread_launch_keyword"
    reason = "the launched @triton.jit kernel never reads this keyword's parameter"
    examples_operators = ("shape_dependent_split", "generic.number")
    suppresses = (
        "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr, n)\n\n"
        "def launch(x, n, block):\n    k[(n,)](x, n, BLOCK_SIZE=block)\n",
        "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr, n)\n\n"
        "def launch(x, n):\n    k[(n,)](x, n, BLOCK_SIZE=128)\n",
    )
    keeps = (
        "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr + tl.arange(0, BLOCK_SIZE), n)\n\n"
        "def launch(x, n, block):\n    k[(n,)](x, n, BLOCK_SIZE=block)\n",  # the kernel reads it
        "from elsewhere import k\n\ndef launch(x, n):\n    k[(n,)](x, n, BLOCK_SIZE=128)\n",  # kernel not seen
        "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr, n)\n\n"
        "def launch(x, n):\n    k = other\n    k[(n,)](x, n, BLOCK_SIZE=128)\n",  # rebound: not that kernel
    )

    def judge(self, mutant: Mutation, ctx: Context) -> bool:
        flow, node = ctx.flow, mutant.node
        if _is_launch(node):
            return _launch_change_unread(ctx, node, mutant.replacement)
        child, parent = node, flow.parent(node)
        while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
            if isinstance(parent, cst.Arg) and parent.keyword is not None and _is_launch(flow.parent(parent)):
                if parent.value is not child:
                    return False  # the keyword itself
                if any(isinstance(n, cst.Call) for n in walk(parent.value)):
                    return False  # evaluating the mutated value could fail
                return unread(ctx, flow.parent(parent), parent.keyword.value) is not None
            child, parent = parent, flow.parent(parent)
        return False


def _launch_change_unread(ctx: Context, launch: cst.Call, replacement) -> bool:
    if not isinstance(replacement, cst.Call) or not replacement.func.deep_equals(launch.func):
        return False
    old, new = list(launch.args), list(replacement.args)
    if len(old) == len(new):
        changed = [i for i, (a, b) in enumerate(zip(old, new)) if not a.deep_equals(b)]
        if len(changed) != 1:
            return False
        arg, moved = old[changed[0]], new[changed[0]]
        if arg.keyword is None or moved.keyword is None or moved.keyword.value != arg.keyword.value:
            return False
        return unread(ctx, launch, arg.keyword.value) is not None
    if len(old) == len(new) + 1:
        dropped = next((i for i in range(len(new)) if not old[i].deep_equals(new[i])), len(new))
        if not all(a.deep_equals(b) for a, b in zip(old[dropped + 1:], new[dropped:])):
            return False
        arg = old[dropped]
        if arg.keyword is None:
            return False
        param = unread(ctx, launch, arg.keyword.value)
        return param is not None and param.default is not None  # dropped: the default must stand in
    return False


def unread(ctx: Context, launch: cst.Call, keyword: str) -> cst.Param | None:
    """The launched kernel's parameter `keyword` when the kernel is defined in this file and never reads it."""
    kernel = ctx.flow.launched(launch)
    if kernel is None:
        return None
    params = kernel.params
    param = next((p for p in (*params.params, *params.kwonly_params) if p.name.value == keyword), None)
    if param is None:
        return None
    scope = ctx.flow.scopes.get(kernel.body)
    if not isinstance(scope, FunctionScope) or any(True for _ in uses(scope, keyword, ctx.flow)):
        return None
    return param


def _is_launch(node) -> bool:
    """`kernel[grid](...)` with `kernel` a plain name."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript) and isinstance(node.func.value, cst.Name)
