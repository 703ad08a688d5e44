"""The one-line error type and the documented exit codes of every teeth command."""

from __future__ import annotations

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2
EXIT_BASELINE_FAILED = 3
EXIT_WORKER_FAILED = 4
EXIT_PUSH_FAILED = 5
EXIT_TREE_REFUSED = 6  # teeth apply: a file git or teeth cannot restore exactly
EXIT_SHARDS_REFUSED = 7  # teeth merge: shards that do not make one run
EXIT_STORE_FULL = 8  # the database's disk is full: what was recorded stays, the run is resumable
EXIT_INTERRUPTED = 130


class TeethError(Exception):
    """A problem the user can fix, reported as one line and a distinct exit code."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(TeethError):
    """Unknown target, operator, op or profile; unparsable file; missing path."""


class BaselineFailed(TeethError):
    """The target's tests fail before any mutation."""

    exit_code = EXIT_BASELINE_FAILED

    def __init__(self, failing: list[str], detail: str = "", reasons: dict[str, str] | None = None):
        """`reasons`: a failing test -> why it failed, in one line (the first line of its exception)."""
        reasons = reasons or {}
        named = [f"{test} ({reasons[test]})" if reasons.get(test) else test for test in failing[:5]]
        shown = "; ".join(named) if reasons else ", ".join(named)
        shown += f" (+{len(failing) - 5} more)" if len(failing) > 5 else ""
        super().__init__(f"baseline failed: the unmutated tests fail: {shown}{detail}")
        self.failing = failing


class WorkerFailed(TeethError):
    """The warm worker could not start or collect the tests."""

    exit_code = EXIT_WORKER_FAILED


class TreeRefused(TeethError):
    """`teeth apply`: the file has uncommitted changes, is not tracked by git, or changed since it was applied."""

    exit_code = EXIT_TREE_REFUSED


class ShardsRefused(TeethError):
    """`teeth merge`: shards of different commits, targets or configs, overlapping, missing or unfinished."""

    exit_code = EXIT_SHARDS_REFUSED


class StoreFull(TeethError):
    """SQLite answered "database or disk is full" while a command recorded: what it had written stays."""

    exit_code = EXIT_STORE_FULL
