"""view_to_copy: a view (narrow, slice, view, ...) -> `.clone()`, so in-place edits no longer land."""

from __future__ import annotations

import libcst as cst

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
    rules = (*Operator.rules, "view_only_read", "view_read_at_once", "view_of_fresh", "view_of_fresh_local",
             "returned_view_of_fresh_local", "disjoint_views_of_fresh_local")

    def mutate(self, node, ctx):
        parent = ctx.parent
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("clone", "contiguous"):
            return  # already copied
        if isinstance(node, cst.Subscript):
            if narrowing_slices(node) and not slices_no_rows(node, ctx):
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
        ]


def _functional(receiver: cst.BaseExpression) -> bool:
    """`F`, `nn.functional` or `torch.nn.functional`: their functions return new tensors, never views."""
    names = []
    while isinstance(receiver, cst.Attribute):
        names.append(receiver.attr.value)
        receiver = receiver.value
    if not isinstance(receiver, cst.Name):
        return False
    dotted = ".".join([receiver.value, *reversed(names)])
    return dotted in ("F", "nn.functional", "torch.nn.functional")
