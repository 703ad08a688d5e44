"""Profiles: how a mutant is exercised (environment, test selection, hardware needed)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass, field

from teeth.errors import ConfigError


@dataclass(frozen=True)
class Profile:
    name: str
    env: dict[str, str] = field(default_factory=dict)
    pytest_args: tuple[str, ...] = ()
    requires: str | None = None  # "cuda" or None
    # "warm": the worker runs the baseline itself and forks each mutant from its warm state; "cold": the worker
    # never runs a test (so never initialises CUDA): the baseline and each mutant run in a forked child that
    # initialises what it needs itself. Profiles that need CUDA are cold.
    execution: str = "warm"
    # Every tl.load/tl.store/atomic of a launch checked against the launch's tensors (teeth.workers.bounds), so
    # an access past a tensor fails the test with check `bounds`. None: on exactly when the profile interprets
    # triton kernels (TRITON_INTERPRET=1).
    bounds_check: bool | None = None
    # The floating dtype the profile's tests run the code on: an operator whose mutants only a lower precision shows
    # (Operator.dtypes) is skipped, not a survivor, on a profile that runs another.
    dtype: str = "float32"

    @property
    def interpreted(self) -> bool:
        """Triton kernels run in the CPU interpreter: the worker closes its gaps (teeth.workers.interpreter)."""
        return self.env.get("TRITON_INTERPRET") == "1"

    @property
    def checks_bounds(self) -> bool:
        return self.interpreted if self.bounds_check is None else self.bounds_check

    def unavailable_reason(self) -> str | None:
        """Why this profile cannot run on this machine, or None when it can."""
        if self.requires != "cuda":
            return None
        if importlib.util.find_spec("torch") is None:
            return "needs CUDA: torch is not installed"
        # Asked in a throwaway child so that this process never initialises CUDA.
        probe = "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)"
        env = {**os.environ, "PYTORCH_NVML_BASED_CUDA_CHECK": "1"}
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True)
        return None if done.returncode == 0 else "needs CUDA: no CUDA device on this machine"


BUILTIN_PROFILES: dict[str, Profile] = {  # generic: a target's own profiles live in its config
    p.name: p
    for p in (
        Profile("cpu"),
        Profile("triton_interpret", env={"TRITON_INTERPRET": "1"}),
        Profile("cuda", requires="cuda", execution="cold"),
    )
}


def profile_from_table(name: str, table: dict) -> Profile:
    """A profile from a `[tool.teeth.profiles.NAME]` table. Nothing of a built-in profile of the same name is kept:
    the table says everything (a `triton_interpret_fp32` of the user's runs the tests its own pytest_args select)."""
    profile = Profile(
        name=name,
        env={str(k): str(v) for k, v in table.get("env", {}).items()},
        pytest_args=tuple(table.get("pytest_args") or ()),
        requires=table.get("requires"),
        execution=table.get("execution") or ("cold" if table.get("requires") == "cuda" else "warm"),
        bounds_check=table.get("bounds_check"),
        dtype=table.get("dtype", "float32"),
    )
    if profile.bounds_check and not profile.interpreted:
        raise ConfigError(f"profile {name!r}: bounds_check = true needs the triton interpreter "
                          f"(env = {{ TRITON_INTERPRET = \"1\" }}); a GPU run is checked by compute-sanitizer")
    return profile
