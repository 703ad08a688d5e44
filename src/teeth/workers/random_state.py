"""The random state each test starts with: recorded in the baseline, restored before the same test in every later
child (a mutant's tests, the audit's whole suite, the infection and propagation passes).

A suite that draws unseeded inputs (`torch.randn`, `random.random`, `numpy.random.rand`) gives each test the
generators' state the tests before it left. A mutant's child runs only some tests, in another order, so without this a
test would see other inputs than in the baseline, and a verdict that depends on the values would differ from the
baseline's and a plain run's. The generators: torch's default CPU generator, python's `random`, numpy's global
RandomState; each only when the tests imported it. CUDA generators are not recorded.
"""

from __future__ import annotations

import base64
import importlib.abc
import importlib.util
import pickle
import random
import sys

SEED = 67280421310721  # torch's historical default seed: a plain run's start under a torch that seeds from it


def _seed_torch(torch) -> None:
    if _torch_generator(torch):  # a module named torch may be a stand-in without generators
        torch.manual_seed(SEED)


def _seed_numpy(numpy) -> None:
    if _numpy_generator(numpy):
        numpy.random.seed(SEED % 2**32)


def _torch_generator(torch) -> bool:
    return all(callable(getattr(torch, name, None)) for name in ("manual_seed", "get_rng_state", "set_rng_state"))


def _numpy_generator(numpy) -> bool:
    generator = getattr(numpy, "random", None)
    return all(callable(getattr(generator, name, None)) for name in ("seed", "get_state", "set_state"))


_SEEDERS = {"torch": _seed_torch, "numpy": _seed_numpy}


class _SeedOnImport(importlib.abc.MetaPathFinder):
    """Seeds torch and numpy right after they are first imported, before any test module or conftest draws."""

    def __init__(self):
        self.finding = False

    def find_spec(self, name, path=None, target=None):
        if name not in _SEEDERS or name in sys.modules or self.finding:
            return None
        self.finding = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.finding = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        exec_module = spec.loader.exec_module

        def seeded(module):
            exec_module(module)
            _SEEDERS[name](module)

        spec.loader.exec_module = seeded
        return spec


def seed() -> None:
    """Start the worker from a fixed random state, before pytest loads a conftest: python's `random` now, torch and
    numpy when they are imported. A run's verdicts then do not depend on the seed a process happened to get (python
    seeds `random` from the system, as does torch 2.13), every worker of a run (one per Ray actor) records the same
    states, and a suite that seeds the generators itself (a conftest's `torch.manual_seed(0)`) overrides it, as in a
    plain run."""
    random.seed(SEED)
    for name, seeder in _SEEDERS.items():
        if name in sys.modules:
            seeder(sys.modules[name])
    sys.meta_path.insert(0, _SeedOnImport())


def capture() -> bytes:
    """The generators' state now, as one pickle."""
    state: dict = {"random": random.getstate()}
    torch = sys.modules.get("torch")
    if torch is not None and _torch_generator(torch):
        state["torch"] = torch.get_rng_state().numpy().tobytes()
    numpy = sys.modules.get("numpy")
    if numpy is not None and _numpy_generator(numpy):
        state["numpy"] = numpy.random.get_state(legacy=True)
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def restore(blob: bytes) -> None:
    state = pickle.loads(blob)
    random.setstate(state["random"])
    torch = sys.modules.get("torch")
    if torch is not None and "torch" in state:
        torch.set_rng_state(torch.frombuffer(bytearray(state["torch"]), dtype=torch.uint8))
    numpy = sys.modules.get("numpy")
    if numpy is not None and "numpy" in state:
        numpy.random.set_state(state["numpy"])


class RandomStates:
    """Per test, the state it started with in the baseline. Consecutive tests that draw nothing share one state:
    each distinct state is kept once (`states`), and a test names its own by index (`tests`)."""

    def __init__(self, states: list[bytes] | None = None, tests: dict[str, int] | None = None):
        self.states = states or []
        self.tests = tests or {}
        self._index = {state: i for i, state in enumerate(self.states)}

    def record(self, test: str) -> None:
        """In the baseline, right before the test's setup."""
        state = capture()
        index = self._index.setdefault(state, len(self.states))
        if index == len(self.states):
            self.states.append(state)
        self.tests[test] = index

    def restore(self, test: str) -> None:
        """In a later child, right before the test's setup; a test the baseline did not run keeps the state it has."""
        index = self.tests.get(test)
        if index is not None:
            restore(self.states[index])

    def encoded(self) -> dict:
        """For the worker protocol (JSON)."""
        return {"states": [base64.b64encode(s).decode() for s in self.states], "tests": self.tests}

    @classmethod
    def decoded(cls, data: dict | None) -> RandomStates:
        if not data:
            return cls()
        return cls([base64.b64decode(s) for s in data["states"]], dict(data["tests"]))
