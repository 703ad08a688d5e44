"""Static audit of triton kernel sources for batch-variant accumulation and tiling."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

__all__ = ["AuditFinding", "audit_paths", "audit_source", "RULES"]

RULES = {
    "atomic_accumulation": "tl.atomic_* inside a @triton.jit kernel: the sum's order follows "
    "program scheduling, so bits change from run to run and with the batch",
    "shape_dependent_block": "a block/chunk/split size derived from a token or batch count: "
    "the reduction's tiling (and so its bits) changes with the batch",
}

_SIZE_ARG = re.compile(r"block|chunk|split|tile", re.IGNORECASE)
_COUNT_LETTERS = {"T", "B", "S", "M", "bs", "bsz"}
_COUNT_NAME = re.compile(
    r"batch|token|seqlen|cu_seq|n_?samples?|num_?samples?|n_?seqs?|num_?seqs?|n_?rows|num_?rows",
    re.IGNORECASE,
)


_PARAMETER_NAME = re.compile(r"weight|^w$|^W$|^w_|_w$|table", re.IGNORECASE)


@dataclass(frozen=True)
class AuditFinding:
    file: str
    line: int
    kernel: str
    rule: str
    message: str


def audit_paths(paths: Iterable[str | Path]) -> list[AuditFinding]:
    """Audit every .py file in ``paths`` (files or folders, searched recursively)."""
    findings: list[AuditFinding] = []
    for path in paths:
        path = Path(path)
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            findings.extend(audit_source(file.read_text(), str(file)))
    return findings


def audit_source(source: str, filename: str = "<string>") -> list[AuditFinding]:
    wrapper = MetadataWrapper(cst.parse_module(source))
    visitor = _Auditor(filename)
    wrapper.visit(visitor)
    return sorted(visitor.findings, key=lambda f: (f.line, f.rule))


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    if isinstance(node, cst.Call):
        return _dotted(node.func)
    return ""


def _is_jit(func: cst.FunctionDef) -> bool:
    return any(_dotted(d.decorator).split(".")[-1] in ("jit", "autotune") for d in func.decorators)


def _constexpr_params(func: cst.FunctionDef) -> list[tuple[str, bool]]:
    params = list(func.params.posonly_params) + list(func.params.params)
    return [
        (p.name.value, p.annotation is not None and "constexpr" in _dotted(p.annotation.annotation))
        for p in params
    ]


class _Taint:
    """Which expressions are derived from a token or batch count, within one scope."""

    def __init__(self) -> None:
        self.tainted: set[str] = set()

    def expr(self, node: cst.CSTNode) -> bool:
        for name in m.findall(node, m.Name()):
            if name.value in self.tainted or name.value in _COUNT_LETTERS or _COUNT_NAME.search(name.value):
                return True
        shape0 = m.Subscript(
            value=m.Attribute(attr=m.Name("shape")),
            slice=[m.SubscriptElement(slice=m.Index(value=m.Integer("0")))],
        )
        if any(not _is_parameter(s.value.value) for s in m.findall(node, shape0)):
            return True
        for call in m.findall(node, m.Call()):
            tail = _dotted(call.func).split(".")[-1]
            if not isinstance(call.func, cst.Attribute):
                if tail == "len":
                    return True
                continue
            if tail == "numel" and not _is_parameter(call.func.value):
                return True
            size0 = tail == "size" and call.args and _is_zero(call.args[0].value)
            if size0 and not _is_parameter(call.func.value):
                return True
        return False

    def assign(self, targets: list[cst.BaseExpression], value: cst.BaseExpression) -> bool:
        changed = False
        for target in targets:
            if isinstance(target, cst.Name):
                if self.expr(value) and target.value not in self.tainted:
                    self.tainted.add(target.value)
                    changed = True
            elif isinstance(target, (cst.Tuple, cst.List)):
                from_shape = _dotted(value).endswith(("shape", "size"))
                if from_shape and _is_parameter(value):
                    continue
                for i, element in enumerate(target.elements):
                    name = element.value
                    hit = (from_shape and i == 0) or (not from_shape and self.expr(value))
                    if isinstance(name, cst.Name) and hit and name.value not in self.tainted:
                        self.tainted.add(name.value)
                        changed = True
        return changed


def _is_parameter(node: cst.BaseExpression) -> bool:
    """A weight tensor's leading dim is a model size, not a token or batch count."""
    base = _dotted(node).split(".")[0]
    return bool(_PARAMETER_NAME.search(base))


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


def _assignments(scope: cst.CSTNode) -> list[tuple[list[cst.BaseExpression], cst.BaseExpression]]:
    pairs = []
    for node in m.findall(scope, m.Assign() | m.AnnAssign() | m.AugAssign()):
        if isinstance(node, cst.Assign):
            pairs.append(([t.target for t in node.targets], node.value))
        elif node.value is not None:
            pairs.append(([node.target], node.value))
    return pairs


def _taint_for(scopes: list[cst.CSTNode]) -> _Taint:
    taint = _Taint()
    pairs = [pair for scope in scopes for pair in _assignments(scope)]
    while any([taint.assign(targets, value) for targets, value in pairs]):
        pass
    return taint


class _Auditor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, filename: str) -> None:
        super().__init__()
        self.filename = filename
        self.findings: list[AuditFinding] = []
        self.kernels: dict[str, list[tuple[str, bool]]] = {}
        self.module: cst.Module | None = None
        self.functions: list[cst.FunctionDef] = []

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def visit_Module(self, node: cst.Module) -> None:
        self.module = node
        for func in m.findall(node, m.FunctionDef()):
            if _is_jit(func):
                self.kernels[func.name.value] = _constexpr_params(func)
        module_level = [s for s in node.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        self.module_taint = _taint_for([cst.Module(body=module_level)])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if self.functions and _is_jit(self.functions[-1]):
            tail = _dotted(node.func).split(".")
            if tail[-1].startswith("atomic_"):
                self._add(node, self.functions[-1].name.value, "atomic_accumulation",
                          f"{'.'.join(tail)} accumulates in program-schedule order")
            return
        if isinstance(node.func, cst.Subscript):
            self._check_launch(node)

    def _check_launch(self, node: cst.Call) -> None:
        kernel = _dotted(node.func.value).split(".")[-1] or "<kernel>"
        scopes = self.functions[:1]
        taint = _taint_for(scopes) if scopes else _Taint()
        taint.tainted |= self.module_taint.tainted
        params = self.kernels.get(kernel, [])
        for i, arg in enumerate(node.args):
            if arg.keyword is not None:
                name, sized = arg.keyword.value, bool(_SIZE_ARG.search(arg.keyword.value))
            elif arg.star:
                continue
            elif i < len(params):
                name, constexpr = params[i]
                sized = constexpr and bool(_SIZE_ARG.search(name))
            else:
                continue
            if sized and taint.expr(arg.value):
                self._add(arg, kernel, "shape_dependent_block",
                          f"{name} at the launch of {kernel} is derived from a token/batch count")

    def _add(self, node: cst.CSTNode, kernel: str, rule: str, message: str) -> None:
        self.findings.append(AuditFinding(self.filename, self._line(node), kernel, rule, message))
