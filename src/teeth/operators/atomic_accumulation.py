"""atomic_accumulation: an ordered accumulation replaced by `tl.atomic_add`: the same math in another order."""

from __future__ import annotations

import libcst as cst

from teeth.operators.base import Example, Operator, positional
from teeth.operators.kernel_terms import add_terms, join_terms, tl_call

CODE = cst.Module([])


def _atomic(store: cst.Call, pointer: cst.BaseExpression, value: cst.BaseExpression) -> cst.Call:
    func = store.func.with_changes(attr=cst.Name("atomic_add"))
    args = list(store.args)
    args[0] = args[0].with_changes(value=pointer)
    args[1] = args[1].with_changes(value=value)
    return store.with_changes(func=func, args=args)


class AtomicAccumulation(Operator):
    name = "atomic_accumulation"
    summary = "tl.store(P, tl.load(P) + v) / a per-program partial store -> tl.atomic_add"
    bug = (
        "Batch-invariant kernels sum per-program partials and finalize them in a fixed order. "
        "Accumulating with tl.atomic_add into a shared buffer computes the same sum in whatever "
        "order programs finish: accurate every time, bitwise different between runs and between "
        "B=1 and B=N. On CPU the triton interpreter runs programs in a fixed order, so only a "
        "determinism check that shuffles the program order (or a batch-invariance check) kills it."
    )
    kills = ("determinism", "batch_invariance")
    kernel_only = True
    node_types = (cst.Call,)

    def mutate(self, node, parent=None, kernel=None):
        if not tl_call(node, "store"):
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
        ]
