"""view_to_copy: a view (narrow, slice, view, ...) -> `.clone()`, so in-place edits no longer land."""

from __future__ import annotations

import libcst as cst

from teeth.equivalence.effects import dotted
from teeth.operators.base import Example, Operator, method_call, narrowing_slices, slices_no_rows, torch_call

VIEW_METHODS = ("narrow", "view", "view_as", "as_strided", "select", "transpose", "permute", "expand",
                "expand_as", "unsqueeze", "squeeze", "t", "unflatten", "unfold", "diagonal", "movedim")


def _clone(node: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=node, attr=cst.Name("clone")))


class ViewToCopy(Operator):
    name = "view_to_copy"
    summary = "a view -> .clone()"
    bug = (
        "Reads of a group's rows must be views of the batch so that in-place edits land in the "
        "batch's rows. A copy looks identical to every read-only test; only a test that edits "
        "in place and reads the batch afterwards can tell the difference."
    )
    killing_test = (
        "Edit one group's rows in place (`x[:] = 0`, `x.mul_(2)`), then read the batch or the model's "
        "output afterwards and assert that the edit landed in that group's rows."
    )
    node_types = (cst.Call, cst.Subscript)
    rules = (*Operator.rules, "view_only_read", "view_read_at_once", "view_returned_to_readers", "view_of_fresh",
             "view_of_fresh_local", "returned_view_of_fresh_local", "disjoint_views_of_fresh_local")

    def mutate(self, node, ctx):
        parent = ctx.parent
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("clone", "contiguous"):
            return  # already copied
        if isinstance(node, cst.Subscript):
            if narrowing_slices(node) and not slices_no_rows(node, ctx) and not _no_tensor(node.value, ctx):
                yield _clone(node)
        elif (method_call(node, *VIEW_METHODS) and not _functional(node.func.value)) or torch_call(
                node, "narrow", "select", "as_strided"):
            yield _clone(node)

    def examples(self):
        return [
            Example("rows = t.narrow(0, start, size)", ("rows = t.narrow(0, start, size).clone()",)),
            Example("rows = t[start:stop]", ("rows = t[start:stop].clone()",)),
            Example("scaled = x * rstd[:, None]", ()),
            Example("rows = t.narrow(0, start, size).clone()", ()),
            Example("cols = F.unfold(x, kernel_size=3)", ()),  # im2col: a new tensor, not a view
            Example("hw = x.shape[-2:]", ()),  # sizes, not a tensor
            Example("hw = x.size()[-2:]", ()),
            # lists, tuples and sizes: their slice has no `.clone()`
            Example("def f(x, *sizes):\n    return tuple(sizes[-2:])\n", ()),
            Example("def f(x, dims: tuple[int, ...]):\n    return dims[1:]\n", ()),
            Example("def f(x):\n    shape = list(x.shape)\n    return shape[:-1]\n", ()),
            Example("def f(x, dims):\n    return dims[1:]\n", ("def f(x, dims):\n    return dims[1:].clone()\n",)),
            Example("def f(x, dims: tuple):\n    dims = x * 2\n    return dims[1:]\n",
                    ("def f(x, dims: tuple):\n    dims = x * 2\n    return dims[1:].clone()\n",)),
            Example("def f(x, *idx):\n    idx = idx[len(idx) - 2:]\n    return x[idx]\n", ()),  # still a tuple
            Example("def f(x, i):\n    shape = []\n    shape = shape[:i] + list(x.shape) + shape[i:]\n    return shape[1:]\n",
                    ()),
            Example("def f(x, i):\n    shape = []\n    shape = shape[:i] + x\n    return shape[1:]\n",
                    ("def f(x, i):\n    shape = []\n    shape = shape[:i].clone() + x\n    return shape[1:]\n",
                     "def f(x, i):\n    shape = []\n    shape = shape[:i] + x\n    return shape[1:].clone()\n")),
        ]


SEQUENCES = frozenset({"tuple", "list", "Tuple", "List", "Sequence", "Size", "torch.Size", "typing.Tuple",
                       "typing.List", "typing.Sequence"})


def _sequence(value: cst.BaseExpression) -> bool:
    """A list or tuple made here: a display, a comprehension, `list(...)`, `tuple(...)`, `torch.Size(...)`."""
    if isinstance(value, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    return isinstance(value, cst.Call) and dotted(value.func) in ("list", "tuple", "torch.Size", "Size")


def _no_tensor(value: cst.BaseExpression, ctx) -> bool:
    """Is the sliced value surely no tensor, so that its slice has no `.clone()` (the mutant would only raise an
    `AttributeError`, a kill that models no view bug): a list or tuple made here, or a name every binding of which
    in the function makes one: a display, `list(...)`/`tuple(...)`/`torch.Size(...)`, a slice of the name itself or a
    sum of such (`shape = shape[:i] + list(s) + shape[i:]`), its `*args` parameter (a tuple), or a parameter annotated
    as a sequence or sizes (`sizes: tuple[int, ...]`, `torch.Size`, `Sequence[int]`)?"""
    if _sequence(value):
        return True
    if not isinstance(value, cst.Name) or ctx.function is None:
        return False
    name, bindings, params = value.value, ctx.bindings, ctx.function.node.params
    declared = [p for p in (*params.posonly_params, *params.params, *params.kwonly_params,
                            *([params.star_arg] if isinstance(params.star_arg, cst.Param) else []))
                if p.name.value == name]
    assigns = bindings.assigned.get(name, [])
    if bindings.bound.get(name) != len(assigns) + len(declared):
        return False  # bound otherwise too: a loop target, an unpacking, `+=`, an import
    if declared and not (declared[0] is params.star_arg or _sequence_annotation(declared[0])):
        return False  # a parameter that may be a tensor
    if not declared and not assigns:
        return False
    return all(_sequence_of(v, name) for v in assigns)


def _sequence_of(value: cst.BaseExpression, name: str) -> bool:
    """A list or tuple made here, a slice of `name` itself, or a sum of those: a sequence when `name` is one."""
    if _sequence(value):
        return True
    if isinstance(value, cst.Subscript):
        return isinstance(value.value, cst.Name) and value.value.value == name and \
            all(isinstance(e.slice, cst.Slice) for e in value.slice)
    return isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) and \
        _sequence_of(value.left, name) and _sequence_of(value.right, name)


def _sequence_annotation(param: cst.Param) -> bool:
    if param.annotation is None:
        return False
    annotation = param.annotation.annotation
    head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    return dotted(head) in SEQUENCES


def _functional(receiver: cst.BaseExpression) -> bool:
    """`F`, `nn.functional` or `torch.nn.functional`: their functions return new tensors, never views."""
    return dotted(receiver) in ("F", "nn.functional", "torch.nn.functional")
