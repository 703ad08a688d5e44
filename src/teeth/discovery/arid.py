"""Arid code: nodes whose mutation only changes a message, a docstring, logging or an export list."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import VisitorMetadataProvider

LOGGER_NAMES = {"logging", "logger", "log", "_logger", "_log", "LOGGER"}
TEXT_METHODS = {"__repr__", "__str__"}
EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning")
WARN_NAMES = {"warn", "warn_explicit"}
STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _callee(call: cst.Call) -> tuple[str | None, str | None]:
    """(receiver name, attribute) of `a.b(...)`, or (None, name) of `b(...)`."""
    func = call.func
    if isinstance(func, cst.Name):
        return None, func.value
    if isinstance(func, cst.Attribute):
        base = func.value
        receiver = base.value if isinstance(base, cst.Name) else base.attr.value if isinstance(base, cst.Attribute) else None
        return receiver, func.attr.value
    return None, None


def is_exception_construction(node: cst.CSTNode) -> bool:
    """`SomeError(...)`: its arguments are the message."""
    return isinstance(node, cst.Call) and (_callee(node)[1] or "").endswith(EXCEPTION_SUFFIXES)


def is_export_list(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Assign) and any(
        isinstance(t.target, cst.Name) and t.target.value == "__all__" for t in node.targets)


def is_logging_call(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call):
        return False
    receiver, name = _callee(node)
    return name == "print" and receiver is None or receiver in LOGGER_NAMES


def is_docstring_line(node: cst.CSTNode) -> bool:
    """A statement that is only a string (a docstring, when it opens a body)."""
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Expr)
        and isinstance(node.body[0].value, STRING_NODES)
    )


class AridTracker:
    """Tells, during a traversal, whether the current node is arid (message text, logging)."""

    def __init__(self):
        self._arid = 0
        self._messages = 0  # inside a raise statement
        self._frames: list[tuple[bool, bool]] = []
        self._first_statements: set[int] = set()

    @property
    def arid(self) -> bool:
        return self._arid > 0

    def enter(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.Module, cst.IndentedBlock)) and node.body:
            self._first_statements.add(id(node.body[0]))
        message = isinstance(node, cst.Raise)
        arid = (
            is_logging_call(node)
            or (isinstance(node, cst.Call) and _callee(node)[1] in WARN_NAMES)
            or is_exception_construction(node)
            or isinstance(node, cst.Raise)
            or is_export_list(node)
            or (isinstance(node, cst.FunctionDef) and node.name.value in TEXT_METHODS)
            or (self._messages > 0 and isinstance(node, STRING_NODES))
            or (id(node) in self._first_statements and is_docstring_line(node))
        )
        self._messages += message
        self._arid += arid
        self._frames.append((arid, message))

    def leave(self, node: cst.CSTNode) -> None:
        arid, message = self._frames.pop()
        self._arid -= arid
        self._messages -= message


class AridProvider(VisitorMetadataProvider[bool]):
    """libcst metadata: is the node arid (a message, a docstring, logging, an export list)?"""

    def __init__(self) -> None:
        super().__init__()
        self._tracker = AridTracker()

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._tracker.enter(node)
        self.set_metadata(node, self._tracker.arid)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._tracker.leave(original_node)
