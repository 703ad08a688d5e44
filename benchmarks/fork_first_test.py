"""What one test costs in a freshly forked child (as a mutant's child runs it) beside the same test run again in the
same process: the price of a fork's first touch of the warm worker's memory, which a kill pays and a baseline does
not.

    cd PROJECT && PYTHONPATH=src python BENCH/fork_first_test.py TESTFILE TESTNAME [--forks 5] [-- PYTEST_ARGS...]

After collecting TESTFILE and running TESTNAME once (warm, as the worker's baseline does; then `gc.freeze()`, as the
worker does), it forks N children; each runs the test twice and prints both times and the page faults of the first
run (each a page copied on write).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time

import pytest
from _pytest.runner import runtestprotocol


def timed(item) -> float:
    started = time.perf_counter()
    runtestprotocol(item, log=False, nextitem=None)
    return 1000 * (time.perf_counter() - started)


class Forks:
    def __init__(self, name: str, forks: int):
        self.name, self.forks = name, forks

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        item = next(i for i in session.items if i.name == self.name)
        timed(item)
        print(f"in the process: {timed(item):.1f} ms, again {timed(item):.1f} ms", flush=True)
        gc.collect()
        gc.freeze()
        for _ in range(self.forks):
            pid = os.fork()
            if pid == 0:
                before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                first = timed(item)
                faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
                print(f"forked child: first {first:.1f} ms ({faults} page faults), second {timed(item):.1f} ms",
                      flush=True)
                os._exit(0)
            os.waitpid(pid, 0)
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("name")
    parser.add_argument("--forks", type=int, default=5)
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--tb=line", *args.pytest_args, args.file],
                         plugins=[Forks(args.name, args.forks)]))


if __name__ == "__main__":
    main()
