"""The worker protocol: every message survives its trip through a framed line, and unframed text is no message."""

from __future__ import annotations

import pytest

from teeth.core import Baseline, Infection, MutantScenario, Outcome, Status, WorkerFailure
from teeth.workers.protocol import (KINDS, BaselineDone, Collected, Fatal, InfectionDone, Quit, Running, WorkerSpec,
                                    decode, encode, frame, unframe)

TOKEN = b"\x00teeth-result-0123:"
MESSAGES = [
    WorkerSpec(args=["tests", "-q"], files=["/t/a.py"], copies={"/t/a.py": "/s/a.py"}, token="\x1eteeth-1:",
               execution="cold", interpreter={"bounds_check": True}, writable=["/s"]),
    Baseline(tests=["t.py::a"], timeout=30.0),
    Baseline(timeout=5.0),
    MutantScenario(id="m1", path="/t/a.py", swap="f", code="def f(): pass", tests=["t.py::a", "t.py::b"], timeout=2.5),
    Quit(),
    Collected(["t.py::a"], "landlock (ABI 3)"),
    Fatal("test collection failed: t.py: ImportError"),
    BaselineDone({"t.py::a": {"failure": None, "duration": 0.1, "lines": {"/t/a.py": "1-3"}}}, ("/t/a.py", "/x/a.py"),
                 ["a"]),
    Infection(tests=["t.py::a"], files={"/t/a.py": [["m1", "f", 10, 28, "0"]]}, timeout=30.0),
    InfectionDone({"m1": {"evaluations": 2, "tests": ["t.py::a"], "values": ["0"], "infected": {}}}, ["m1"],
                  {"t.py::b": "AssertionError"}),
    Running("t.py::b", 2),
    Outcome("m1", Status.KILLED, killed_by="t.py::b", check="crash", detail="crashed with SIGSEGV", duration=0.4,
            tests_run=2, signal=11),
    Outcome.failed("m2", WorkerFailure.NOT_APPLIED, "no function f in a.py"),
    Outcome("m3", Status.SURVIVED, why="not_infected", detail="x.storage_offset() was 0 in all 2 evaluations"),
]


def test_every_message_kind_has_an_example():
    assert {type(m) for m in MESSAGES} == set(KINDS.values())


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_a_message_is_the_same_after_a_framed_trip(message):
    line = b"output a test wrote to the pipe" + frame(TOKEN, message)
    assert unframe(line, TOKEN) == message
    assert decode(encode(message)) == message


def test_a_line_without_the_token_or_that_does_not_parse_is_no_message():
    assert unframe(b'{"kind": "Quit"}\n', TOKEN) is None
    assert unframe(TOKEN + b"not json\n", TOKEN) is None
    assert unframe(TOKEN + b'{"kind": "Unknown"}\n', TOKEN) is None
