"""Connecting to a Ray cluster (or starting a local one) for one run, with one-line errors."""

from __future__ import annotations

import importlib
import logging
import os
import socket

from teeth.errors import EXIT_USAGE, TeethError
from teeth.config.profiles import Profile

CONNECT_TIMEOUT = 5.0
INSTALL_HINT = "the ray backend needs Ray: pip install 'teeth-mutation[ray]' (from a checkout: pip install -e '.[ray]')"


def require_ray():
    """The ray module, or a one-line error saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise TeethError(INSTALL_HINT, EXIT_USAGE) from None


def check_reachable(address: str) -> None:
    """Fail in seconds, in one line, where ray.init would retry an unreachable address for minutes."""
    if address in ("auto", "local"):
        return
    host_port = address.split("://", 1)[-1].rstrip("/")
    host, _, port = host_port.rpartition(":")
    if not host or not port.isdigit():
        raise TeethError(f"--address takes HOST:PORT (the head node's GCS address), ray://HOST:PORT or 'auto', "
                         f"not {address!r}", EXIT_USAGE)
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise TeethError(f"cannot reach a Ray cluster at {address}: {exc.strerror or exc}", EXIT_USAGE) from None


class RaySession:
    """One connection to a Ray cluster for a whole run. Closes only what it opened."""

    def __init__(self, address: str | None = None, jobs: int = 0, temp_dir: str | None = None):
        self.ray = require_ray()
        self.address = address
        self.opened = False
        if self.ray.is_initialized():  # a caller (a test, a notebook) already connected: use it, leave it
            return
        if address:
            check_reachable(address)
        try:
            if address:
                self.ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            else:
                self.ray.init(num_cpus=jobs or os.cpu_count() or 1, include_dashboard=False, log_to_driver=False,
                              logging_level=logging.ERROR, _temp_dir=temp_dir)
        except Exception as exc:  # noqa: BLE001 - ray raises many kinds; the user needs one line
            where = f"connect to the Ray cluster at {address}" if address else "start a local Ray cluster"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise TeethError(f"cannot {where}: {first}", EXIT_USAGE) from None
        self.opened = True

    def __enter__(self) -> RaySession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def resource(self, profile: Profile) -> str:
        """The resource one warm worker holds: a GPU for CUDA profiles, else a CPU."""
        return "GPU" if profile.requires == "cuda" else "CPU"

    def slots(self, profile: Profile) -> int:
        return int(self.ray.cluster_resources().get(self.resource(profile), 0))

    def close(self) -> None:
        if self.opened:
            self.opened = False
            self.ray.shutdown()
