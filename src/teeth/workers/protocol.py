"""The worker protocol: the messages a backend, a worker and its children exchange, as dataclasses, and their framing.

A backend starts a worker with a `WorkerSpec`, then writes scenarios (`Baseline`, `MutantScenario`) and `Quit` to
the worker's stdin, one JSON line each. The worker answers on a private copy of its stdout: `Collected` once, then
per scenario a `BaselineDone` or an `Outcome`, or `Fatal` when it cannot go on. A forked child frames `Running`
(the test it runs now) and then its result (`BaselineDone` or `Outcome`) on its own pipe. Every line the worker and
its children write starts with a token, so that what a test writes to a descriptor it finds open is never taken for
a message.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from teeth.core import Baseline, Infection, MutantScenario, Outcome


@dataclass(frozen=True, kw_only=True)
class WorkerSpec:
    """Backend -> worker, on its command line: how to start. `args`: pytest's; `files`: the target's files, and
    `copies` of them in the scratch tree; `token`: starts every line the worker writes; `execution`: warm or cold;
    `interpreter`: an interpreter profile's settings; `writable`: the only folders the worker may write to;
    `concurrency`: coverage.py's concurrency models for the baseline (None: those the tests import)."""

    args: list[str]
    files: list[str]
    copies: dict[str, str]
    token: str
    execution: str = "warm"
    interpreter: dict | None = None
    writable: list[str] | None = None
    concurrency: list[str] | None = None


@dataclass(frozen=True)
class Quit:
    """Backend -> worker: finish the children in flight, then exit."""


@dataclass(frozen=True)
class Collected:
    """Worker -> backend, once: the tests pytest collected, and what confines the worker's writes."""

    tests: list[str]
    protection: str | None = None


@dataclass(frozen=True)
class Fatal:
    """Worker -> backend: the worker cannot run scenarios (collection failed, CUDA initialised, ...)."""

    message: str


@dataclass(frozen=True)
class BaselineDone:
    """The baseline ran: per test {failure, duration, lines}; `shadowed`: (the target's file, the path the tests
    imported instead), if any; `modules`: the target's modules the tests imported, `imported`: every module the
    baseline imported, `random_states`: the random state each test started with (`workers/random_state.py`)
    (child -> worker only)."""

    tests: dict[str, dict]
    shadowed: tuple[str, str] | None = None
    modules: list[str] | None = None
    imported: list[str] | None = None
    random_states: dict | None = None


@dataclass(frozen=True)
class InfectionDone:
    """The infection pass ran: per mutant it evaluated, {evaluations, tests, values, infected: {test: values seen}};
    `instrumented`: the mutants put in place (a function that could not be swapped drops its own); `failed`: the
    tests that failed instrumented, and `compiled`: those that ran target code torch compiled, which the probes
    cannot see (each of either counts as infecting every mutant it covers)."""

    mutants: dict[str, dict]
    instrumented: list[str]
    failed: dict[str, str]
    compiled: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Running:
    """Child -> worker: the test it runs now, so that a crash or a timeout can name it."""

    test: str
    tests_run: int


Message = (WorkerSpec | Baseline | Infection | MutantScenario | Quit | Collected | Fatal | BaselineDone | InfectionDone
           | Running | Outcome)
KINDS: dict[str, type] = {cls.__name__: cls for cls in (WorkerSpec, Baseline, Infection, MutantScenario, Quit, Collected,
                                                        Fatal, BaselineDone, InfectionDone, Running, Outcome)}


def encode(message: Message) -> str:
    """One JSON object with its kind; no newline."""
    return json.dumps({"kind": type(message).__name__, **dataclasses.asdict(message)})


def decode(text: str | bytes) -> Message:
    fields = json.loads(text)
    kind = KINDS[fields.pop("kind")]
    if kind is BaselineDone and fields.get("shadowed") is not None:
        fields["shadowed"] = tuple(fields["shadowed"])
    return kind(**fields)


def frame(token: bytes, message: Message) -> bytes:
    """A message as one line that starts with `token`."""
    return token + encode(message).encode() + b"\n"


def unframe(line: bytes, token: bytes) -> Message | None:
    """The message framed by `token` at the end of `line` (a test may have written before it); None without one
    or when it does not parse."""
    at = line.rfind(token)
    if at < 0:
        return None
    try:
        return decode(line[at + len(token):].split(b"\n", 1)[0])
    except (ValueError, KeyError, TypeError):
        return None
