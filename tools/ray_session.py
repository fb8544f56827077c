"""Ray for `--ray [ADDRESS]`: import it (an optional extra) and start or join a cluster.

Only the `tools/ray_*.py` modules import ray, and only when a command asks for it, so
sproutsdb works without `pip install sproutsdb[cluster]`. With no address, a private
Ray instance starts on this machine's CPUs (never joining a cluster someone else started
here); with one, the run joins that cluster. Either way the same code runs.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from sproutsdb.errors import UserError

INSTALL_HINT = "Ray is not installed: pip install 'sproutsdb[cluster]'"


class RayUnavailableError(UserError):
    """Ray is missing, or the cluster cannot be reached: one line, exit code 2."""


def import_ray() -> ModuleType:
    """The ray module, or a RayUnavailableError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(INSTALL_HINT) from None
    return ray


def local_cpus() -> int:
    """The CPUs this process may run on: a local instance uses that many."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@contextmanager
def ray_session(address: str | None, *, num_cpus: int | None = None) -> Iterator[ModuleType]:
    """Ray, initialised for one command and shut down after it.

    `address` None starts a new local instance (`num_cpus`, default this machine's, no
    dashboard); otherwise it is a cluster's address ("auto": the one started on this
    machine by `ray start`). Worker output stays out of the command's output.
    """
    ray = import_ray()
    options = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.ERROR,
        "configure_logging": True,
    }
    try:
        if address is None:
            ray.init(address="local", num_cpus=num_cpus or local_cpus(), **options)
        else:
            options.pop("include_dashboard")
            ray.init(address=address, **options)
    except (ConnectionError, ValueError, RuntimeError) as error:
        where = "a local Ray instance" if address is None else f"Ray cluster {address}"
        raise RayUnavailableError(f"cannot start {where}: {error}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def cluster_cpus(ray: ModuleType) -> int:
    """Whole CPUs the cluster offers (at least 1): one worker each."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))
