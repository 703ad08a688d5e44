"""Terminal report: the op x profile kill-rate table, the survivors, and listings, drawn with rich."""

from __future__ import annotations

from fnmatch import fnmatchcase

from rich.console import Console, ConsoleDimensions
from rich.table import Table
from rich.text import Text

from teeth.core import STATUSES, Status
from teeth.errors import TeethError
from teeth.store.records import Result
from teeth.store.db import Store

PIPE_WIDTH = 100_000  # not a terminal: a table is as wide as its widest row (nothing wraps, nothing is cropped)


class Output(Console):
    """teeth's stdout: rich fitted to the window on a terminal; through a pipe (CI logs, `| less`, `| grep`) every
    row of a table is one whole line, so an id is never split and no test id or change is cut."""

    @property
    def size(self) -> ConsoleDimensions:
        found = Console.size.fget(self)
        return found if self.is_terminal else ConsoleDimensions(PIPE_WIDTH, found.height)

    @size.setter
    def size(self, new_size) -> None:
        Console.size.fset(self, new_size)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def kill_rate_table(store: Store, run_id: int) -> Table:
    rows = store.kill_rates(run_id)
    profiles = sorted({r.profile for r in rows})
    table = Table(title=f"kill rate by op x profile (run {run_id})")
    table.add_column("op")
    for profile in profiles:
        table.add_column(Text(profile), justify="right")
    cells: dict[str, dict[str, str]] = {}
    for row in rows:
        caught, counted = row.tally
        uncounted = [s for s in Status if not s.counts]
        cells.setdefault(row.op, {})[row.profile] = (
            f"{_rate(row.kill_rate)} ({caught}/{counted})" if counted
            else f"- ({', '.join(f'{row.counts[s]} {s}' for s in uncounted if row.counts[s]) or 'none'})")
    for op in sorted(cells):
        table.add_row(Text(op), *(cells[op].get(p, "") for p in profiles))
    return table


def survivors_table(results: list[Result], limit: int = 50) -> Table:
    table = Table(title="survivors: mutants no test killed (survived, or no_coverage: no test ran them)")
    for column in ("mutant", "where", "operator", "profile", "why", "change"):
        table.add_column(column, overflow="fold")
    for row in results[:limit]:
        m = row.mutant
        change = f"{' '.join(m.original.split())} -> {' '.join(m.replacement.split())}"
        table.add_row(Text(m.id), Text(f"{m.file}:{m.line}"), Text(m.operator),
                      Text(row.profile), Text(row.outcome.why or _unless_survived(row.status)),
                      Text(change if len(change) < 90 else change[:89] + "…"))
    if len(results) > limit:
        table.caption = f"{len(results) - limit} more: teeth results --status survived"
    return table


def _unless_survived(status: str) -> str:
    """A survivor without a why: no_coverage says why itself."""
    return "" if status == Status.SURVIVED else status


def totals_line(results: list[Result]) -> str:
    counts = {s: 0 for s in STATUSES}
    for row in results:
        counts[row.status] += 1
    return ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no outcomes"


def narrowed(results: list[Result], ops: tuple[str, ...] = (), operators: tuple[str, ...] = (),
             files: tuple[str, ...] = ()) -> list[Result]:
    """The results of these ops, operators and files (each: any of those given; a file as shown, or a glob such as
    `src/*`); an op or operator the run does not have is a one-line error naming the ones it has."""
    for kind, given in (("op", ops), ("operator", operators)):
        known = {getattr(row.mutant, kind) for row in results}
        for name in given:
            if name not in known:
                raise TeethError(f"no {kind} {name!r} in this run; its {kind}s: {', '.join(sorted(known)) or 'none'}")
    return [row for row in results if (not ops or row.mutant.op in ops)
            and (not operators or row.mutant.operator in operators)
            and (not files or any(fnmatchcase(row.mutant.file, pattern) for pattern in files))]


def results_table(results: list[Result]) -> Table:
    table = Table()
    for column in ("mutant", "where", "op", "operator", "profile", "status", "killed by", "check", "why"):
        table.add_column(column, overflow="fold")
    for row in results:
        m, o = row.mutant, row.outcome
        table.add_row(*(Text(str(cell)) for cell in (
            m.id, f"{m.file}:{m.line}", m.op, m.operator, row.profile, o.status, o.killed_by or "", o.check or "",
            o.why or "")))
    return table


def print_run_report(console: Console, store: Store, run_id: int) -> None:
    results = store.results(run_id)
    console.print(kill_rate_table(store, run_id))
    survivors = [r for r in results if r.status.surviving]
    if survivors:
        console.print(survivors_table(survivors))
    console.print(f"run {run_id}: {totals_line(results)}")
