"""Equivalent-mutant rules: mutants that provably cannot change what the code computes, recorded `skipped`.

Each rule reads the code around a mutant through libcst metadata (ScopeProvider for a name's assignments and
uses, ParentNodeProvider for where a value goes) and gives the reason it is equivalent, or None. The rules are
deliberately conservative: anything they cannot see through (an unknown callee, a name stored in an attribute or
a container, a closure, a global) keeps the mutant. Each rule's examples are its unit tests: every mutant the rule's
operators make of `suppresses` is skipped, and none of `keeps`.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import (ComprehensionScope, FunctionScope, MetadataWrapper, ParentNodeProvider, Scope,
                             ScopeProvider)

from teeth.kernel_context import is_kernel
from teeth.operators.view_to_copy import VIEW_METHODS

# Calls that read their tensor arguments and return a new tensor (or a non-tensor): a view passed to one is only read.
PURE_FUNCTIONS = {
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "matmul", "mm", "bmm", "einsum",
    "where", "allclose", "isclose", "equal", "sum", "mean", "prod", "amax", "amin", "max", "min", "exp", "log",
    "sqrt", "rsqrt", "abs", "sigmoid", "tanh", "softmax", "log_softmax", "dot", "outer", "maximum", "minimum",
    "clamp", "add", "sub", "mul", "div", "pow", "norm", "any", "all", "argmax", "argmin", "cumsum", "isnan",
    "isinf", "isfinite", "neg", "square", "zeros_like", "ones_like", "empty_like", "full_like", "linear",
    "index_select", "gather", "masked_select", "silu", "gelu", "relu", "dropout",
    "argsort", "sort", "topk", "searchsorted", "bucketize", "unique", "bincount", "diff", "flip", "log2", "cumprod",
    # builtins
    "len", "isinstance", "float", "int", "bool", "str", "repr", "print",
}
# Methods that do not write their receiver and return a new tensor or a plain value.
PURE_METHODS = {
    "sum", "mean", "prod", "amax", "amin", "max", "min", "norm", "std", "var", "abs", "exp", "log", "sqrt", "rsqrt",
    "sigmoid", "tanh", "neg", "pow", "matmul", "mm", "bmm", "softmax", "log_softmax", "cumsum", "argmax", "argmin",
    "any", "all", "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isfinite", "allclose", "equal", "size", "dim",
    "numel", "nelement", "item", "tolist", "clone", "is_contiguous", "stride", "storage_offset", "data_ptr",
    "element_size", "add", "sub", "mul", "div", "square", "clamp", "masked_fill", "index_select", "gather",
    "index_add", "index_copy", "scatter", "scatter_add", "new_zeros", "new_ones", "new_empty", "new_full",
}
PURE_ATTRIBUTES = {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "is_leaf"}
# Expressions whose result may share storage with their receiver: what happens to the result happens to it.
ALIAS_METHODS = {*VIEW_METHODS, "to", "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte",
                 "type", "type_as", "contiguous",
                 "reshape", "reshape_as", "flatten", "detach", "view_as_real", "split", "chunk", "unbind"}
ALIAS_ATTRIBUTES = {"T", "mT", "H", "mH", "real", "imag", "data"}
# In-place methods that change a tensor's strides (after them a contiguous tensor may not be).
LAYOUT_CHANGING = {"transpose_", "t_", "swapdims_", "swapaxes_", "as_strided_", "resize_", "resize_as_", "set_",
                   "squeeze_", "unsqueeze_"}
# Calls whose result is always a fresh contiguous tensor.
CONTIGUOUS_MAKERS = {"empty", "zeros", "ones", "full", "rand", "randn", "arange", "tensor"}
# Fresh allocations shaped like another tensor: their storage is new, shared with nothing.
FRESH_MAKERS = {*CONTIGUOUS_MAKERS, "zeros_like", "ones_like", "empty_like", "full_like"}
# In-place methods that write only their receiver: their other tensor arguments (index, src, mask) are read.
RECEIVER_WRITING_METHODS = {
    "scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_", "index_fill_", "index_put_",
    "masked_fill_", "masked_scatter_", "copy_", "put_", "add_", "sub_", "mul_", "div_", "addcmul_", "addcdiv_",
    "lerp_", "clamp_", "where_",
}

# torch.X calls that always return a new tensor (never one of their arguments, never a view of one).
FRESH_FUNCTIONS = {"tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye", "rand",
                   "randn", "randint", "randperm", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                   "randn_like", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "matmul",
                   "mm", "bmm", "where", "clone", "cumsum", "index_select", "gather", "masked_select", "nonzero",
                   "repeat_interleave", *FRESH_MAKERS, "argsort", "flip"}
# Methods that always return a new tensor (not `to`, `float`, `contiguous`, `reshape`: those may return their receiver).
FRESH_METHODS = {"clone", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "matmul", "mm", "bmm",
                 "repeat", "repeat_interleave", "nonzero", "sum", "mean", "prod", "amax", "amin", "cumsum", "cumprod",
                 "exp", "log", "sqrt", "abs", "neg", "add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt",
                 "ge", "index_select", "gather", "masked_select", "masked_fill", "index_add", "index_copy", "scatter",
                 "scatter_add", "scatter_reduce", "softmax", "log_softmax", "argsort", "argmax", "argmin"}

_DEPTH = 12  # how many bindings a view is followed through


@dataclass(frozen=True)
class Rule:
    name: str
    reason: str  # recorded as the skip reason: "equivalent: <reason> (rule <name>)"
    operators: tuple[str, ...] | None  # the operators it judges; None: any mutant of the node it looks at
    suppresses: tuple[str, ...]  # examples: every mutant of `operators` here is equivalent
    keeps: tuple[str, ...]  # examples: mutants of `operators` here that are not


RULES = (
    Rule(
        "view_only_read", "the view is only read: nothing writes through it or its base, and it never escapes",
        ("view_to_copy",),
        suppresses=(
            "def splice(full, edited, start, stop):\n    pre = full.narrow(0, 0, start)\n"
            "    post = full.narrow(0, stop, full.shape[0] - stop)\n    return torch.cat([pre, edited, post], dim=0)\n",
            "def f(x, half):\n    x1, x2 = x[..., :half], x[..., half:]\n    return torch.cat((-x2, x1), dim=-1)\n",
            "def lengths(cu):\n    return cu[1:] - cu[:-1]\n",
            "def f(x, n):\n    head = x[:n]\n    total = head.sum() + head.float().mean()\n    return total * head.shape[0]\n",
            "def f(x, n):\n    return torch.cat([torch.narrow(x, 0, 0, n), x])\n",
            "def f(x, n):\n    rows = x[:n]\n    def total():\n        return rows.sum()\n    return total\n",
        ),
        keeps=(
            "def f(full, n):\n    rows = full[:n]\n    rows.zero_()\n    return full\n",  # written through
            "def f(full, n):\n    rows = full[:n]\n    rows += 1\n    return full\n",  # augmented: in place
            "def f(full, n, v):\n    rows = full[:n]\n    rows[0] = v\n    return full\n",  # stored into
            "def f(full, n):\n    return full[:n]\n",  # returned: the caller may write through it
            "def f(self, full, n):\n    self.rows = full[:n]\n",  # stored in an attribute
            "def f(full, n):\n    parts = [full[:n]]\n    return parts\n",  # stored in a container
            "def f(full, n):\n    rows = full[:n]\n    helper(rows)\n",  # an unknown callee may write
            "def f(full, n):\n    rows = full[:n]\n    full.mul_(2)\n    return rows.sum()\n",  # the base written
            "def f(full, n):\n    rows = full[:n]\n    full += 1\n    return rows.sum()\n",  # the base, in place
            "def f(full, n):\n    rows = full[:n]\n    other = full[n:]\n    other.zero_()\n    return rows.sum()\n",
            "def f(full, n):\n    rows = full[:n]\n    alias = rows.view(-1)\n    alias.zero_()\n    return full\n",
            "def f(full, n):\n    rows = full[:n]\n    def g():\n        return rows\n    return g\n",  # returned by a closure
            "def f(full, n):\n    rows = full[:n]\n    torch.add(full, 1, out=rows)\n    return full\n",
        ),
    ),
    Rule(
        "already_contiguous", "the tensor is already contiguous here: .contiguous() returns it unchanged",
        ("stride_assumption",),
        suppresses=(
            "def f(x):\n    x = x.contiguous()\n    return x.stride(0)\n",
            "@ensure_contiguous\ndef f(x, w):\n    return x.stride(0), w.stride(1)\n",
            "class K:\n    @staticmethod\n    @utils.ensure_contiguous\n    def forward(ctx, x):\n"
            "        return x.stride()\n",
            "def f(n):\n    out = torch.empty(n, 4)\n    return out.stride(0)\n",
            "def f(x, y):\n    if y:\n        x = x.contiguous()\n        s = x.stride(0)\n    return y\n",
        ),
        keeps=(
            "def f(x):\n    return x.stride(0)\n",  # a parameter, no decorator
            "def f(x):\n    s = x.stride(0)\n    x = x.contiguous()\n    return s\n",  # made contiguous after
            "def f(x, y):\n    if y:\n        x = x.contiguous()\n    return x.stride(0)\n",  # on one path only
            "def f(x):\n    x = x.contiguous()\n    x.transpose_(0, 1)\n    return x.stride(0)\n",  # relaid
            "def f(x):\n    x = x.contiguous()\n    x = x.t()\n    return x.stride(0)\n",  # rebound to a view
            "@other_decorator\ndef f(x):\n    return x.stride(0)\n",  # not a configured decorator
            "@ensure_contiguous\ndef f(x):\n    y = x.t()\n    return y.stride(0)\n",  # a view of the argument
        ),
    ),
    Rule(
        "unread_launch_keyword", "the launched @triton.jit kernel never reads this keyword's parameter",
        None,
        suppresses=(
            "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr, n)\n\n"
            "def launch(x, n, block):\n    k[(n,)](x, n, BLOCK_SIZE=block)\n",
            "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr, n)\n\n"
            "def launch(x, n):\n    k[(n,)](x, n, BLOCK_SIZE=128)\n",
        ),
        keeps=(
            "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr + tl.arange(0, BLOCK_SIZE), n)\n\n"
            "def launch(x, n, block):\n    k[(n,)](x, n, BLOCK_SIZE=block)\n",  # the kernel reads it
            "from elsewhere import k\n\ndef launch(x, n):\n    k[(n,)](x, n, BLOCK_SIZE=128)\n",  # kernel not seen
            "@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(x_ptr, n)\n\n"
            "def launch(x, n):\n    k = other\n    k[(n,)](x, n, BLOCK_SIZE=128)\n",  # rebound: not that kernel
        ),
    ),
    Rule(
        "view_read_at_once", "the view is read once where it is made, by an operation that returns a new value, in a "
        "statement that writes nothing: no write can land between making it and reading it",
        ("view_to_copy",),
        suppresses=(
            "def f(boxes):\n    check(boxes)\n    return (boxes[:, 4:, 2] - boxes[:, :4, 2] + 1)[:, 0]\n",
            "def f(x, order):\n    keep = [order[0]]\n    return torch.max(x[0], x[order[1:]]), keep\n",
            "def f(x, n):\n    helper(x)\n    return x.narrow(0, 0, n).sum(), torch.cat([x[:n], x])\n",
            "def f(x, n):\n    while x[:n].sum() > 0:\n        x = helper(x)\n    return x\n",
        ),
        keeps=(
            "def f(x, n):\n    return x[:n]\n",  # returned: the caller may write through it
            "def f(x, n):\n    helper(x[:n])\n",  # an unknown callee may write through it
            "def f(x, n):\n    return x[:n] + x.add_(1)\n",  # the base written after the view is made, then read
            "def f(x, n):\n    return x[:n] + helper(x)\n",  # an unknown callee in the same statement
            "def f(x, n):\n    x += x[:n]\n",  # read while its base is written in place
            "def f(x, n):\n    torch.add(x[:n], 1, out=x)\n",  # out= writes the base while the view is read
            "def f(x, n):\n    rows = x[:n]\n    helper(x)\n    return rows.sum()\n",  # named: read later
            "def f(x, n):\n    return [r.sum() for r in x[:n]]\n",  # iterated: its rows are views too
        ),
    ),
    Rule(
        "view_of_fresh", "the view is of a tensor made in the same expression that nothing else holds: no one else can "
        "see through it, and a copy holds the same values",
        ("view_to_copy",),
        suppresses=(
            "def f(images):\n    return torch.stack(images, dim=0).permute(0, 3, 1, 2)\n",
            "def f(x, h, w):\n    dst = torch.tensor([[0, 0], [w - 1, h - 1]]).expand(x.shape[0], -1, -1)\n"
            "    return crop(x, dst)\n",
            "def f(a, b):\n    return helper((a + b)[:, :4].unsqueeze(0))\n",
            "def f(x):\n    return torch.narrow(x.clone(), 0, 0, 1)\n",
        ),
        keeps=(
            "def f(x):\n    return x.permute(1, 0)\n",  # a view of the argument: the caller holds its base
            "def f(x):\n    y = torch.cat([x, x])\n    return y[:2], y\n",  # the base is named and returned too
            "def f(x):\n    return x.float().view(-1)\n",  # .float() may return x itself
            "def f(x):\n    return helper(x).view(-1)\n",  # an unknown callee may return a view of x
            "def f(x):\n    return torch.as_tensor(x).view(-1)\n",  # as_tensor may return x itself
            "def f(x, out):\n    return torch.cat([x, x], out=out)[:2]\n",  # out= returns the caller's tensor
        ),
    ),
)
RULES = (*RULES, Rule(
    "returned_view_of_fresh_local",
    "the view is returned and its base is a fresh local nothing else holds: a write through it reaches nothing else",
    ("view_to_copy",),
    suppresses=(
        # torchmetrics.utilities.data._top_k_with_half_precision_support
        "def top(x, k, dim):\n    idx = torch.argsort(x, dim=dim, stable=True).flip(dim)\n"
        "    return idx.narrow(dim, 0, k)\n",
        "def f(n, k):\n    buf = torch.zeros(n, 4)\n    total = buf.sum()\n    return buf[:k]\n",
    ),
    keeps=(
        "def f(x, k):\n    return x[:k]\n",  # the base is the caller's
        "def f(x, k):\n    idx = x.argsort()\n    idx = x\n    return idx[:k]\n",  # bound to the argument too
        "def f(x, k):\n    idx = x.flip(0)\n    keep(idx)\n    return idx[:k]\n",  # handed on: another holder
        "def f(x, k):\n    idx = x.flip(0)\n    v = idx[:k]\n    v.zero_()\n    return idx\n",  # not returned itself
        "def f(x, k):\n    idx = x.view(-1)\n    return idx[:k]\n",  # a view of the argument, not fresh
        "def f(x, k):\n    idx = x.flip(0)\n    def total():\n        return idx.sum()\n    register(total)\n"
        "    return idx[:k]\n",  # read by a closure, maybe after a write through the returned view
    ),
),
    Rule(
        "view_of_fresh_local", "the view is of a local made fresh in this function (only written into or read since) "
        "whose name the view's statement rebinds or returns: only the view reaches its storage",
        ("view_to_copy",),
        suppresses=(
            "def f(x, idx, n):\n    out = x.new_zeros(n + 1, 4)\n    out[idx] = x\n    out = out[:n]\n    return out\n",
            "def f(x, b, n):\n    mask = torch.zeros(b * n + 1, dtype=torch.bool)\n    mask[x] = 1\n"
            "    mask = mask[:b * n]\n    mask = mask.view(b, n)\n    return mask\n",
            "def f(x, size):\n    out = torch.as_tensor(0.0)\n    out = out.repeat(size)\n    out.fill_(1)\n"
            "    out = out.view(2, -1)\n    return out\n",
            "def f(a, b, n):\n    hits = (a == b).nonzero()\n    hits = hits.view(-1)[:n]\n    return hits\n",
        ),
        keeps=(
            "def f(x, n):\n    return x[:n]\n",  # a view of a parameter: the caller holds the base
            "def f(n):\n    out = torch.zeros(n)\n    keep = out\n    out = out[:2]\n    return out, keep\n",  # aliased
            "def f(n):\n    out = torch.zeros(n)\n    head = out[:2]\n    out.fill_(1)\n    return head\n",  # base used
            "def f(x, n):\n    out = helper(x)\n    out = out[:n]\n    return out\n",  # not known to be fresh
            "def f(x, n):\n    out = x.to(torch.float32)\n    out = out[:n]\n    return out\n",  # `to` may return x
            "def f(n):\n    out = torch.zeros(n)\n    register(out)\n    out = out[:2]\n    return out\n",  # escaped
            "def f(n, c):\n    out = torch.zeros(n)\n    if c:\n        keep.append(out)\n    out = out[:2]\n"
            "    return out\n",  # escaped on one path
            "def f(x, n):\n    out = x\n    out = out[:n]\n    return out\n",  # the parameter under another name
            "def f(n):\n    def g():\n        return out\n    out = torch.zeros(n)\n    keep = g()\n    out = out[:2]\n"
            "    return out, keep\n",  # a closure hands the base out
        ),
    ),
)
RULES_BY_NAME = {rule.name: rule for rule in RULES}
# Methods whose result never shares storage with anything (a returned view's base; a narrower set than FRESH_METHODS).
FRESH_RESULT_METHODS = {"clone", "flip", "argsort", "cumsum", "new_zeros", "new_ones", "new_empty", "new_full"}


def rule_reason(rule: Rule) -> str:
    return f"equivalent: {rule.reason} (rule {rule.name})"


class EquivalenceRules:
    """The rules over one parsed file; `reason(node, replacement, operator)` for each mutant found in it."""

    def __init__(self, wrapper: MetadataWrapper, contiguous_decorators: list[str] | tuple[str, ...] = ()):
        self.module = wrapper.module
        self.scopes = wrapper.resolve(ScopeProvider)
        self.parents = wrapper.resolve(ParentNodeProvider)
        self.contiguous_decorators = set(contiguous_decorators)

    def reason(self, node: cst.CSTNode, replacement: cst.CSTNode, operator: str) -> str | None:
        for rule in RULES:  # each rule's judge is the method named after it
            if (rule.operators is None or operator in rule.operators) and getattr(self, f"_{rule.name}")(
                    node, replacement):
                return rule_reason(rule)
        return None

    # -- view_only_read ------------------------------------------------------------------------------------------

    def _view_only_read(self, node, replacement) -> bool:
        root = _root_name(node)
        if root is None or not self._only_read(node, set(), _DEPTH):
            return False
        return self._name_only_read(root, {id(node)}, set(), _DEPTH)

    def _only_read(self, node: cst.CSTNode, seen: set, depth: int, bind: bool = True) -> bool:
        """Is the value of `node` only read where it goes (no write through it, no escape)? With `bind` False it
        must also never be bound to a name: it is read where it is made."""
        if depth <= 0:
            return False
        parent = self.parents.get(node)
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
                               cst.Expr, cst.If, cst.While, cst.Assert, cst.FormattedStringExpression)):
            return True
        if isinstance(parent, (cst.Index, cst.Slice)):
            return True  # used as an index: read
        if isinstance(parent, cst.AugAssign):
            return parent.target is not node  # `rows += 1` writes rows in place
        if isinstance(parent, (cst.BooleanOperation, cst.IfExp)):
            if isinstance(parent, cst.IfExp) and parent.test is node:
                return True
            return self._only_read(parent, seen, depth - 1, bind)  # the result may be this value
        if isinstance(parent, cst.Attribute) and parent.value is node:
            holder = self.parents.get(parent)
            if isinstance(holder, cst.Call) and holder.func is parent:
                if parent.attr.value in PURE_METHODS:
                    return True
                if parent.attr.value in ALIAS_METHODS:
                    return self._only_read(holder, seen, depth - 1, bind)
                return False  # an in-place or unknown method
            if parent.attr.value in PURE_ATTRIBUTES:
                return self._assigned_to(parent) is None
            if parent.attr.value in ALIAS_ATTRIBUTES:
                return self._only_read(parent, seen, depth - 1, bind)
            return False
        if isinstance(parent, cst.Subscript) and parent.value is node:
            if self._assigned_to(parent) is not None:
                return False  # `rows[0] = v`
            return self._only_read(parent, seen, depth - 1, bind)  # indexing: a view, or a copy
        if isinstance(parent, cst.Arg):
            call = self.parents.get(parent)
            if not isinstance(call, cst.Call) or parent.star or (parent.keyword and parent.keyword.value == "out"):
                return False
            name = _callee_name(call)
            if name in PURE_FUNCTIONS:
                return True
            if name in ALIAS_METHODS and call.args and call.args[0] is parent and _is_torch(call):
                return self._only_read(call, seen, depth - 1, bind)  # torch.narrow(rows, ...): another view
            return self._read_by_fresh_receiver(call)
        if isinstance(parent, cst.Element):
            container = self.parents.get(parent)
            holder = self.parents.get(container)
            if isinstance(container, (cst.List, cst.Tuple)) and isinstance(holder, cst.Arg) and not holder.star:
                call = self.parents.get(holder)
                if isinstance(call, cst.Call) and _callee_name(call) in PURE_FUNCTIONS and not (
                        holder.keyword and holder.keyword.value == "out"):
                    return True
            if isinstance(container, cst.Tuple) and isinstance(holder, cst.Assign) and bind:
                name = self._unpacked_to(holder, container, parent)
                return name is not None and self._name_only_read(name, {id(node)}, seen, depth - 1)
            return False
        if isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is node:
            return self._only_read(parent, seen, depth - 1)  # each element of the new list is this value
        if isinstance(parent, cst.CompFor) and parent.iter is node:
            target = parent.target  # the elements are bound to the comprehension's name: each must be only read
            return isinstance(target, cst.Name) and self._name_only_read(target, set(), seen, depth - 1)
        if isinstance(parent, cst.Assign) and parent.value is node and bind:
            targets = [t.target for t in parent.targets]
            if all(isinstance(t, cst.Name) for t in targets):
                return all(self._name_only_read(t, set(), seen, depth - 1, after=parent) for t in targets)
            return False
        return False  # returned, yielded, stored, iterated, captured: it escapes

    # -- view_of_fresh_local -------------------------------------------------------------------------------------

    def _view_of_fresh_local(self, node, replacement) -> bool:
        """The view's base is a local made fresh in the same block (only written into, or read, since) whose name
        the view's statement rebinds or returns: no other reference to the storage exists. (A fresh temporary base is
        view_of_fresh's.)"""
        base = _view_base(node)
        if not isinstance(base, cst.Name):
            return False
        statement = self._small_statement(node)
        if not isinstance(statement, cst.Return) and _assigned_value(statement, base.value) is None:
            return False  # the old value stays reachable under its name
        return self._sole_before(base.value, statement, node, _DEPTH)

    def _small_statement(self, node: cst.CSTNode) -> cst.BaseSmallStatement | None:
        """The simple statement (an assignment, expression, return) `node` is in; None inside a compound header."""
        while node is not None and not isinstance(node, cst.BaseSmallStatement):
            if isinstance(node, (cst.BaseCompoundStatement, cst.FunctionDef)):
                return None
            node = self.parents.get(node)
        return node

    def _sole_before(self, name: str, statement: cst.BaseSmallStatement, view: cst.CSTNode | None, depth: int) -> bool:
        """Is the value `name` holds at `statement` fresh and held by nothing else? Walks back through its block."""
        line = self.parents.get(statement)
        block = self.parents.get(line)
        if depth <= 0 or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or \
                not isinstance(block, cst.IndentedBlock):
            return False
        scope = self.scopes.get(statement)
        if not isinstance(scope, FunctionScope) or name not in scope.assignments or \
                any(a.scope is not scope for a in scope.assignments[name]):
            return False  # not a local of this function (a global, a closure's)
        uses = _uses(scope, name)
        if any(use.scope is not scope for use in uses):
            return False  # a nested function or comprehension sees it
        inside = {id(view)} if view is not None else set()
        for access in uses:  # the other uses in the view's own statement only read it
            if self._within(access.node, {id(statement)}) and not self._within(access.node, inside) and \
                    not self._only_read(access.node, set(), _DEPTH, bind=False):
                return False
        body = list(block.body)
        for earlier in reversed(body[:body.index(line)]):
            if not isinstance(earlier, cst.SimpleStatementLine):
                if any(isinstance(n, cst.Name) and n.value == name for n in _walk(earlier)):
                    return False  # used or bound on some path only
                continue
            for small in earlier.body:
                made = _assigned_value(small, name)
                if made is not None:
                    if _fresh(made):
                        return True
                    rebased = _view_base(made)
                    return isinstance(rebased, cst.Name) and rebased.value == name and \
                        self._sole_before(name, small, made, depth - 1)
                if not self._only_written_into(small, name):
                    return False
        return False  # a parameter, or made in another block

    def _only_written_into(self, statement: cst.BaseSmallStatement, name: str) -> bool:
        """Does `statement` use `name` only to write into it (`name[i] = v`, `name.fill_(v)`) or to read it?"""
        for use in _walk(statement):
            if not (isinstance(use, cst.Name) and use.value == name):
                continue
            parent = self.parents.get(use)
            if isinstance(parent, cst.Attribute) and parent.attr is use:
                continue  # an attribute called `name`
            if isinstance(parent, cst.Subscript) and parent.value is use and self._assigned_to(parent) is not None:
                continue  # `name[i] = v`
            if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value.endswith("_") and \
                    isinstance(statement, cst.Expr) and statement.value is self.parents.get(parent):
                holder = statement.value
                if not any(isinstance(n, cst.Name) and n.value == name for a in holder.args for n in _walk(a)):
                    continue  # `name.fill_(v)`: in place, the result dropped
            if self._only_read(use, set(), _DEPTH, bind=False):
                continue
            return False
        return True

    def _name_only_read(self, name: cst.Name, inside: set[int], seen: set, depth: int,
                        after: cst.CSTNode | None = None) -> bool:
        """Is every use of the local `name` (in its function) a read? `inside`: nodes whose uses are the mutant's own;
        `after`: the binding whose value is followed: a use in a statement of the function's body before it cannot
        see that value (`if ...: return x` before `x = [...]`)."""
        scope = self.scopes.get(name)
        if not isinstance(scope, (FunctionScope, ComprehensionScope)) or name.value not in scope.assignments:
            return False
        if isinstance(scope, ComprehensionScope):
            fors = [self.parents.get(a.node) for a in scope.assignments[name.value]]
            if not all(isinstance(f, cst.CompFor) and f.target is a.node
                       for f, a in zip(fors, scope.assignments[name.value])):
                return False  # a comprehension's own name: only its `for` target (a walrus could leak it)
            for comp_for in fors:  # its values are the iterable's elements: nothing may write those either
                if not self._iterable_only_read(comp_for, seen, depth - 1):
                    return False
        key = (id(scope), name.value)
        if key in seen:
            return True  # already being checked: every use is looked at once
        seen.add(key)
        for assignment in scope.assignments[name.value]:
            if assignment.scope is not scope or isinstance(self.parents.get(assignment.node), cst.AugAssign):
                return False
        for use in _uses(scope, name.value):  # a nested function's use counts like any other: only a read is fine
            if self._within(use.node, inside) or (after is not None and self._runs_before(use.node, after)):
                continue
            if not isinstance(use.node, cst.Name) or not self._only_read(use.node, seen, depth):
                return False
        return True

    def _returned_view_of_fresh_local(self, node, replacement) -> bool:
        """`return idx.narrow(...)` with `idx` bound only to fresh results and otherwise only read, in this function."""
        if not isinstance(self.parents.get(node), cst.Return):
            return False
        root = _root_name(node)
        scope = self.scopes.get(root) if root is not None else None
        if not isinstance(scope, FunctionScope) or root.value not in scope.assignments:
            return False
        for assignment in scope.assignments[root.value]:
            statement = self.parents.get(assignment.node)
            if assignment.scope is not scope or not isinstance(statement, cst.AssignTarget) or \
                    not _is_fresh(self.parents.get(statement).value):
                return False
        for use in _uses(scope, root.value):
            if self._within(use.node, {id(node)}):
                continue
            if self.scopes.get(use.node) is not scope or not isinstance(use.node, cst.Name) or \
                    not self._only_read(use.node, set(), _DEPTH):
                return False  # read from a nested function (maybe after the return), or handed on
        return True

    def _read_by_fresh_receiver(self, call: cst.Call) -> bool:
        """`out.scatter_(dim, index, src)` with `out` allocated fresh in this function (`torch.zeros(...)`, bound
        once): the in-place method writes only `out`, whose storage nothing else shares, so its arguments are read."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in RECEIVER_WRITING_METHODS
                and isinstance(func.value, cst.Name)):
            return False
        receiver = func.value
        scope = self.scopes.get(receiver)
        if not isinstance(scope, FunctionScope) or receiver.value not in scope.assignments:
            return False
        for assignment in scope.assignments[receiver.value]:
            statement = self.parents.get(assignment.node)
            if assignment.scope is not scope or not isinstance(statement, cst.AssignTarget):
                return False
            value = self.parents.get(statement).value
            if not (isinstance(value, cst.Call) and _is_torch(value) and value.func.attr.value in FRESH_MAKERS):
                return False
        return True

    def _iterable_only_read(self, comp_for: cst.CompFor, seen: set, depth: int) -> bool:
        """`for y in xs` of a comprehension: is the local `xs` only read (a `return xs` before it ended the call)?"""
        iterable = comp_for.iter
        if not isinstance(iterable, cst.Name):
            return False
        scope = self.scopes.get(iterable)
        if not isinstance(scope, FunctionScope) or iterable.value not in scope.assignments:
            return False
        for use in _uses(scope, iterable.value):
            if use.node is iterable or self._within(use.node, {id(comp_for)}):
                continue
            if isinstance(self.parents.get(use.node), cst.Return) and self._runs_before(use.node, comp_for):
                continue
            if not isinstance(use.node, cst.Name) or not self._only_read(use.node, seen, depth):
                return False
        return True

    def _runs_before(self, node: cst.CSTNode, binding: cst.CSTNode) -> bool:
        """Is `node` in a statement of the function's body that comes before the one holding `binding`?"""
        def body_statement(n):
            while n is not None:
                parent = self.parents.get(n)
                if isinstance(parent, cst.IndentedBlock) and isinstance(self.parents.get(parent), cst.FunctionDef):
                    return parent, n
                if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                    return None, None
                n = parent
            return None, None
        block, statement = body_statement(node)
        bound_block, bound_statement = body_statement(binding)
        if block is None or block is not bound_block:
            return False
        body = list(block.body)
        return body.index(statement) < body.index(bound_statement)

    def _within(self, node: cst.CSTNode, ids: set[int]) -> bool:
        while node is not None:
            if id(node) in ids:
                return True
            node = self.parents.get(node)
        return False

    def _assigned_to(self, node: cst.CSTNode) -> cst.CSTNode | None:
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

    @staticmethod
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

    # -- already_contiguous --------------------------------------------------------------------------------------

    def _already_contiguous(self, node, replacement) -> bool:
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)):
            return False
        receiver = node.func.value
        scope = self.scopes.get(receiver)
        if not isinstance(scope, FunctionScope) or receiver.value not in scope.assignments:
            return False
        function = scope.node
        dominated = False
        for assignment in scope.assignments[receiver.value]:
            made = assignment.node
            if assignment.scope is not scope:
                return False
            if isinstance(made, cst.Param):
                if not self._decorated_contiguous(function):
                    continue  # a parameter: fine only if a contiguous rebinding comes first (below)
                dominated = True
                continue
            statement = self.parents.get(made)
            if not (isinstance(statement, cst.AssignTarget) and _makes_contiguous(self.parents.get(statement).value)):
                return False
            dominated = dominated or self._comes_before(self.parents.get(statement), node)
        if not dominated:
            return False
        for use in _uses(scope, receiver.value):
            holder = self.parents.get(use.node)
            if isinstance(holder, cst.Attribute) and holder.value is use.node and (
                    holder.attr.value in LAYOUT_CHANGING or self._assigned_to(holder) is not None):
                return False
        return True

    def _decorated_contiguous(self, function: cst.FunctionDef) -> bool:
        for decorator in function.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            dotted = _dotted(expr)
            if dotted and (dotted in self.contiguous_decorators or dotted.rsplit(".", 1)[-1]
                           in self.contiguous_decorators):
                return True
        return False

    def _comes_before(self, assign: cst.Assign, node: cst.CSTNode) -> bool:
        """Does the statement of `assign` always run before `node`, in the same block of the same function?"""
        line = self.parents.get(assign)  # the SimpleStatementLine
        block = self.parents.get(line)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return False
        statement = node
        while statement is not None and self.parents.get(statement) is not block:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            statement = self.parents.get(statement)
        if statement is None:
            return False
        body = list(block.body)
        return body.index(line) < body.index(statement)

    # -- unread_launch_keyword -----------------------------------------------------------------------------------

    def _unread_launch_keyword(self, node, replacement) -> bool:
        if _is_launch(node):
            return self._launch_change_unread(node, replacement)
        child, parent = node, self.parents.get(node)
        while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
            if isinstance(parent, cst.Arg) and parent.keyword is not None and _is_launch(self.parents.get(parent)):
                if parent.value is not child:
                    return False  # the keyword itself
                if any(isinstance(n, cst.Call) for n in _walk(parent.value)):
                    return False  # evaluating the mutated value could fail
                return self._unread(self.parents.get(parent), parent.keyword.value) is not None
            child, parent = parent, self.parents.get(parent)
        return False

    def _launch_change_unread(self, launch: cst.Call, replacement) -> bool:
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
            return self._unread(launch, arg.keyword.value) is not None
        if len(old) == len(new) + 1:
            dropped = next((i for i in range(len(new)) if not old[i].deep_equals(new[i])), len(new))
            if not all(a.deep_equals(b) for a, b in zip(old[dropped + 1:], new[dropped:])):
                return False
            arg = old[dropped]
            if arg.keyword is None:
                return False
            param = self._unread(launch, arg.keyword.value)
            return param is not None and param.default is not None  # dropped: the default must stand in
        return False

    def _unread(self, launch: cst.Call, keyword: str) -> cst.Param | None:
        """The launched kernel's parameter `keyword` when the kernel is defined in this file and never reads it."""
        kernel = self._kernel(launch.func.value)
        if kernel is None:
            return None
        params = kernel.params
        param = next((p for p in (*params.params, *params.kwonly_params) if p.name.value == keyword), None)
        if param is None:
            return None
        scope = self.scopes.get(kernel.body)
        if not isinstance(scope, FunctionScope) or any(True for _ in _uses(scope, keyword)):
            return None
        return param

    def _kernel(self, name: cst.BaseExpression) -> cst.FunctionDef | None:
        if not isinstance(name, cst.Name):
            return None
        scope: Scope | None = self.scopes.get(name)
        if scope is None:
            return None
        found = list(scope[name.value])  # the assignments of the name visible here
        if len(found) != 1 or not isinstance(found[0].node, cst.FunctionDef) or not is_kernel(found[0].node):
            return None
        return found[0].node

    # -- view_read_at_once ---------------------------------------------------------------------------------------

    def _view_read_at_once(self, node, replacement) -> bool:
        return self._read_here(node, _DEPTH) and self._writes_nothing(self._statement_part(node))

    def _read_here(self, node: cst.CSTNode, depth: int) -> bool:
        """Is the (unnamed) value of `node` read right where it is made, into a new value?"""
        if depth <= 0:
            return False
        parent = self.parents.get(node)
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
                               cst.Index, cst.Slice)):
            return True  # arithmetic, a comparison, an index: a new value
        if isinstance(parent, cst.Attribute) and parent.value is node:
            holder = self.parents.get(parent)
            if isinstance(holder, cst.Call) and holder.func is parent:
                if parent.attr.value in PURE_METHODS and not _has_out(holder):
                    return True
                return parent.attr.value in ALIAS_METHODS and self._read_here(holder, depth - 1)
            if parent.attr.value in PURE_ATTRIBUTES:
                return self._assigned_to(parent) is None
            return parent.attr.value in ALIAS_ATTRIBUTES and self._read_here(parent, depth - 1)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return self._assigned_to(parent) is None and self._read_here(parent, depth - 1)
        if isinstance(parent, cst.Element):  # `torch.cat([x[:n], y])`
            container = self.parents.get(parent)
            if not isinstance(container, (cst.List, cst.Tuple)):
                return False
            parent = self.parents.get(container)
        if isinstance(parent, cst.Arg) and not parent.star:
            call = self.parents.get(parent)
            return isinstance(call, cst.Call) and _callee_name(call) in PURE_FUNCTIONS and not _has_out(call)
        return False

    def _statement_part(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The simple statement `node` is in, or the part of a compound one (an `if`'s test), or a lambda's body."""
        child, parent = node, self.parents.get(node)
        while parent is not None:
            if isinstance(parent, cst.BaseSmallStatement):
                return parent
            if isinstance(parent, (cst.BaseCompoundStatement, cst.Lambda)):
                return child
            child, parent = parent, self.parents.get(parent)
        return None

    @staticmethod
    def _writes_nothing(part: cst.CSTNode | None) -> bool:
        """Does evaluating `part` call only functions and methods that write no tensor?"""
        if part is None:
            return False
        for call in _walk(part):
            if not isinstance(call, cst.Call):
                continue
            if _has_out(call):
                return False
            method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
            if _callee_name(call) not in PURE_FUNCTIONS and method not in PURE_METHODS | set(ALIAS_METHODS):
                return False
        return True

    # -- view_of_fresh -------------------------------------------------------------------------------------------

    def _view_of_fresh(self, node, replacement) -> bool:
        base = node
        for _ in range(_DEPTH):
            if isinstance(base, cst.Subscript):
                base = base.value
            elif isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and _is_torch(base) and \
                    base.func.attr.value in ALIAS_METHODS:
                if not base.args or base.args[0].keyword is not None:
                    return False
                base = base.args[0].value  # torch.narrow(fresh, ...)
            elif isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and not _is_torch(base) and \
                    base.func.attr.value in ALIAS_METHODS:
                base = base.func.value  # fresh.permute(...), or fresh.float(): fresh itself or a copy
            elif isinstance(base, cst.Attribute) and base.attr.value in ALIAS_ATTRIBUTES:
                base = base.value
            else:
                return base is not node and _fresh(base)
        return False


def _has_out(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args)


def _fresh(expr: cst.BaseExpression) -> bool:
    """Does `expr` always make a new tensor (arithmetic, a torch factory, cat/stack, .clone())?"""
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
        return True
    if not isinstance(expr, cst.Call) or _has_out(expr) or not isinstance(expr.func, cst.Attribute):
        return False
    if _is_torch(expr):
        return expr.func.attr.value in FRESH_FUNCTIONS
    return expr.func.attr.value in FRESH_METHODS


def _uses(scope: Scope, name: str):
    """Every access of `name` that refers to the scope's own assignments of it, nested scopes included."""
    uses = {id(a): a for a in scope.accesses[name]}
    for assignment in scope.assignments[name]:
        for access in assignment.references:
            uses[id(access)] = access
    return list(uses.values())


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _root_name(node: cst.CSTNode) -> cst.Name | None:
    """The local a view is taken of: `full` in `full.narrow(...)[1:].t()`."""
    while True:
        if isinstance(node, cst.Name):
            return node
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if _is_torch(node):
                if not node.args:
                    return None
                node = node.args[0].value
            elif node.func.attr.value in ALIAS_METHODS:
                node = node.func.value
            else:
                return None
        elif isinstance(node, cst.Attribute) and node.attr.value in ALIAS_ATTRIBUTES:
            node = node.value
        else:
            return None


def _view_base(node: cst.CSTNode) -> cst.BaseExpression | None:
    """What a view chain is taken of: `out` in `out[:n].view(b, n)`, the call in `(a == b).nonzero().view(-1)`."""
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not _is_torch(node) and \
                node.func.attr.value in ALIAS_METHODS:
            node = node.func.value
        elif isinstance(node, cst.Call) and _is_torch(node) and node.func.attr.value in ALIAS_METHODS:
            if not node.args:
                return None
            node = node.args[0].value
        elif isinstance(node, cst.Attribute) and node.attr.value in ALIAS_ATTRIBUTES:
            node = node.value
        else:
            return node


def _assigned_value(statement: cst.BaseSmallStatement, name: str) -> cst.BaseExpression | None:
    """`EXPR` when `statement` is `name = EXPR` (or `name: T = EXPR`)."""
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0].target, cst.Name) and statement.targets[0].target.value == name:
        return statement.value
    if isinstance(statement, cst.AnnAssign) and isinstance(statement.target, cst.Name) and \
            statement.target.value == name and statement.value is not None:
        return statement.value
    return None


def _is_torch(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) and \
        call.func.value.value == "torch"


def _callee_name(call: cst.Call) -> str | None:
    """`cat` for `torch.cat(...)`, `F.softmax(...)` and `cat(...)`; None for a method of anything else."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and isinstance(func.value, (cst.Name, cst.Attribute)):
        dotted = _dotted(func.value)
        if dotted in ("torch", "F", "torch.nn.functional", "nn.functional"):
            return func.attr.value
    return None


def _dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = _dotted(expr.value)
        return f"{head}.{expr.attr.value}" if head else None
    return None


def _makes_contiguous(value: cst.BaseExpression) -> bool:
    """`x.contiguous()` or a fresh `torch.empty(...)`-like allocation."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return False
    if value.func.attr.value == "contiguous" and not value.args:
        return True
    return _is_torch(value) and value.func.attr.value in CONTIGUOUS_MAKERS


def _is_fresh(value: cst.BaseExpression) -> bool:
    """A call whose result never shares storage: `torch.zeros(...)`, `torch.argsort(x).flip(0)`, `x.clone()`."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return False
    if _is_torch(value):
        return value.func.attr.value in FRESH_FUNCTIONS
    return value.func.attr.value in FRESH_RESULT_METHODS


def _is_launch(node: cst.CSTNode | None) -> bool:
    """`kernel[grid](...)` with `kernel` a plain name."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript) and isinstance(node.func.value, cst.Name)
