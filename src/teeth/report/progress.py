"""The progress a run shows: a bar per profile with counts and an ETA; plain lines when stderr is not a terminal.

The ETA comes only from mutants a worker measured: outcomes settled without a test (reused from an earlier run,
skipped, no_coverage) arrive in bursts and would make any rate-based estimate jump (it once went from "10 s left"
to "343 s left").
"""

from __future__ import annotations

import time
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from teeth.core import Status


class MeasuredEta:
    """Seconds left, from the pace of measured mutants only."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.total = self.done = self.measured = 0
        self.first: float | None = None  # when the first measured mutant was announced

    def start(self, total: int) -> None:
        self.total, self.done, self.measured, self.first = total, 0, 0, None

    def advance(self, measured: bool) -> None:
        self.done += 1
        if measured:
            if self.first is None:
                self.first = self.clock()
            self.measured += 1

    def seconds_left(self) -> float | None:
        """None until two mutants were measured (the first one's own time is unknown: it ends the clock's start)."""
        if self.first is None or self.measured < 2:
            return None
        pace = (self.clock() - self.first) / (self.measured - 1)
        return pace * (self.total - self.done)


class EtaColumn(ProgressColumn):
    def __init__(self, eta: MeasuredEta):
        super().__init__()
        self.eta = eta

    def render(self, task) -> Text:
        left = self.eta.seconds_left()
        if task.finished or left is None:
            return Text("-:--:--", style="progress.remaining")
        return Text(str(timedelta(seconds=int(left))), style="progress.remaining")


class RichProgress:
    """Draws the lab's progress (the lab's Progress protocol) on `console`."""

    LINE_EVERY = 10.0  # seconds between progress lines in a log (CI)

    def __init__(self, console: Console, clock=time.monotonic):
        self.console, self.clock = console, clock
        self.eta = MeasuredEta(clock)
        self.bar = Progress(TextColumn("{task.description}", style="bold", markup=False), BarColumn(),
                            MofNCompleteColumn(), TextColumn("{task.fields[counts]}"), TimeElapsedColumn(),
                            EtaColumn(self.eta), console=console, transient=False)
        self.task = None
        self.counts: dict[str, int] = {}
        self.last_line = clock()

    def stage(self, text: str) -> None:
        if self.console.is_terminal:
            self.console.print(Text(text, style="dim"))

    def start(self, profile: str, total: int) -> None:
        if self.task is None:
            self.bar.start()
        self.counts = {}
        self.eta.start(total)
        self.task = self.bar.add_task(profile, total=total, counts="")

    def advance(self, mutant, status: Status, measured: bool = True) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        self.eta.advance(measured)
        counts = " ".join(f"{s}:{n}" for s, n in sorted(self.counts.items()))
        self.bar.update(self.task, advance=1, counts=counts)
        if not self.console.is_terminal and self.clock() - self.last_line > self.LINE_EVERY:
            self.last_line = self.clock()
            task = self.bar.tasks[self.task]
            left = self.eta.seconds_left()
            eta = f", about {left:.0f}s left" if left is not None else ""
            self.console.print(f"{task.description}: {task.completed:.0f}/{task.total:.0f} mutants ({counts}){eta}",
                               markup=False, highlight=False, soft_wrap=True)

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()
