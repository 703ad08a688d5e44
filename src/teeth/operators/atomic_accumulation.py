"""atomic_accumulation: an ordered accumulation replaced by `tl.atomic_add`: the same math in another order."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from teeth.operators.base import Example, Operator, positional
from teeth.operators.kernel_terms import add_terms, join_terms, tl_call

CODE = cst.Module([])
TORCH_PARTIALS = """dw = torch.zeros_like(w)
for start, end in zip(bounds, bounds[1:]):
    part = g[start] * x[start]
    for t in range(start + 1, end):
        part = part + g[t] * x[t]
    dw = dw + part
"""


def _atomic(store: cst.Call, pointer: cst.BaseExpression, value: cst.BaseExpression) -> cst.Call:
    func = store.func.with_changes(attr=cst.Name("atomic_add"))
    args = list(store.args)
    args[0] = args[0].with_changes(value=pointer)
    args[1] = args[1].with_changes(value=value)
    return store.with_changes(func=func, args=args)


def _single_assign(statements) -> tuple[str, cst.BaseExpression] | None:
    """`x = x + E` as the only statement: (x, E)."""
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine) or len(statements[0].body) != 1:
        return None
    assign = statements[0].body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    name, value = assign.targets[0].target.value, assign.value
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) \
            and isinstance(value.left, cst.Name) and value.left.value == name:
        return name, value.right
    return None


class AtomicAccumulation(Operator):
    name = "atomic_accumulation"
    summary = "triton: a partial store -> tl.atomic_add; torch: per-sample partials -> one batched .sum(0)"
    bug = (
        "Batch-invariant kernels sum per-program partials and finalize them in a fixed order. "
        "Accumulating with tl.atomic_add into a shared buffer computes the same sum in whatever "
        "order programs finish: accurate every time, bitwise different between runs and between "
        "B=1 and B=N. On CPU the triton interpreter runs programs in a fixed order, so only a "
        "determinism check that shuffles the program order (or a batch-invariance check) kills it."
    )
    killing_test = (
        "Run the same inputs twice and compare bitwise (the program order shuffled, where the interpreter "
        "allows), or compare one sample's result at B=1 and inside a batch of N bitwise."
    )
    kills = (Check.DETERMINISM, Check.BATCH_INVARIANCE)
    node_types = (cst.Call, cst.For)

    def mutate(self, node, ctx):
        kernel = ctx.kernel
        if isinstance(node, cst.For):
            if kernel is None:
                yield from self._batched_reduction(node)
            return
        if kernel is None or not tl_call(node, "store"):
            return
        pointer, value = positional(node, 0, "pointer"), positional(node, 1, "value")
        if pointer is None or value is None:
            return
        added = self._read_modify_write(pointer.value, value.value)
        terms = add_terms(pointer.value)
        partial = isinstance(terms[0], cst.Name) and "part" in terms[0].value
        if added is not None and not partial:  # tl.store(P, tl.load(P) + v) -> tl.atomic_add(P, v)
            # (into a program's own slab of partials that would still be in order: no mutant)
            yield _atomic(node, pointer.value, added)
        if partial and kernel is not None:  # the program's own slab of partials -> one shared slab
            for index in range(1, len(terms)):
                if kernel.is_slab_term(terms[index]):
                    shared = join_terms([t for i, t in enumerate(terms) if i != index])
                    yield _atomic(node, shared, added if added is not None else value.value)

    @staticmethod
    def _batched_reduction(node: cst.For):
        """torch: per-sample partials summed in order -> one batched reduction over every token.

        for s, e in zip(b, b[1:]):            acc = acc + torch.stack([E(t) for t in range(b[0], b[-1])]).sum(0)
            part = E(s)                   ->
            for t in range(s + 1, e):
                part = part + E(t)
            acc = acc + part
        """
        iterable = node.iter
        if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip"
                and iterable.args and isinstance(node.body, cst.IndentedBlock)):
            return
        statements = list(node.body.body)
        inner = next((st for st in statements if isinstance(st, cst.For)), None)
        last = statements[-1] if statements else None
        if inner is None or not isinstance(inner.target, cst.Name) or not isinstance(inner.body, cst.IndentedBlock):
            return
        step = _single_assign(inner.body.body)
        total = _single_assign([last]) if isinstance(last, cst.SimpleStatementLine) else None
        if step is None or total is None:
            return
        part, term = step
        acc, added = total
        if not (isinstance(added, cst.Name) and added.value == part):
            return
        bounds = CODE.code_for_node(iterable.args[0].value)
        loop = inner.target.value
        batched = cst.parse_statement(
            f"{acc} = {acc} + torch.stack([{CODE.code_for_node(term)} for {loop} in "
            f"range({bounds}[0], {bounds}[-1])]).sum(0)\n")
        yield batched

    @staticmethod
    def _read_modify_write(pointer: cst.BaseExpression, value: cst.BaseExpression):
        """The `v` of `tl.load(P, ...) + v` when P is the store's own pointer."""
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
            for loaded, other in ((value.left, value.right), (value.right, value.left)):
                if tl_call(loaded, "load") and loaded.args and \
                        CODE.code_for_node(loaded.args[0].value) == CODE.code_for_node(pointer):
                    return other
        return None

    def examples(self):
        rmw = ("@triton.jit\ndef k(part_ptr, dy, V, D):\n    b = tl.program_id(0)\n"
               "    tl.store(part_ptr + b * V * D, tl.load(part_ptr + b * V * D) + dy)\n")
        shared = "@triton.jit\ndef k(out_ptr, dy, i):\n    tl.store(out_ptr + i, tl.load(out_ptr + i) + dy)\n"
        partial = ("@triton.jit\ndef k(part_ptr, acc, D, BLOCK: tl.constexpr):\n    b = tl.program_id(0)\n"
                   "    cols = tl.arange(0, BLOCK)\n    tl.store(part_ptr + b * D + cols, acc, mask=cols < D)\n")
        return [
            Example(rmw, (rmw.replace("tl.store(part_ptr + b * V * D, tl.load(part_ptr + b * V * D) + dy)",
                                      "tl.atomic_add(part_ptr, dy)"),)),
            Example(shared, (shared.replace("tl.store(out_ptr + i, tl.load(out_ptr + i) + dy)",
                                            "tl.atomic_add(out_ptr + i, dy)"),)),
            Example(partial, (partial.replace("tl.store(part_ptr + b * D + cols, acc",
                                              "tl.atomic_add(part_ptr + cols, acc"),)),
            Example(TORCH_PARTIALS, (TORCH_PARTIALS.split("for start")[0]
                                     + "dw = dw + torch.stack([g[t] * x[t] for t in range(bounds[0], bounds[-1])]).sum(0)\n",)),
        ]
