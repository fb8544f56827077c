"""Ray for `--ray [ADDRESS]`: import it (an optional extra) and start or join a cluster.

Only the Ray modules (sproutsdb/ops/ray_check.py, ops/jobs/ray_fleet.py) import ray, and only
when a command asks for it, so sproutsdb works without `pip install sproutsdb[cluster]`.
With no address, a private Ray instance starts on this machine's CPUs (never joining a
cluster someone else started here); with one, the run joins that cluster. Either way the
same code runs.
"""

from __future__ import annotations

import logging
import os
import socket
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from sproutsdb.address import ListenError, split_address
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

    Enter it before this process opens a gRPC channel: Ray forks its daemons with a
    `preexec_fn`, and forks taken while gRPC's threads ran lost the GCS or the raylet in
    3 of 11 local starts on a loaded machine (none in 12 without gRPC). A local start that
    fails is tried once more on a new instance before the command gives up.
    """
    ray = import_ray()
    options = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.ERROR,
        "configure_logging": True,
    }
    if address is None:
        _start_local(ray, num_cpus or local_cpus(), options)
    else:
        options.pop("include_dashboard")
        _check_reachable(address)
        try:
            ray.init(address=address, **options)
        except Exception as error:  # noqa: BLE001 (Ray raises bare Exception too)
            ray.shutdown()
            raise RayUnavailableError(
                f"cannot join Ray cluster {address}: {first_line(error)}"
            ) from None
    try:
        yield ray
    finally:
        ray.shutdown()


REACH_SECONDS = 5.0  # how long a cluster's head may take to accept a connection


def _check_reachable(address: str) -> None:
    """Refuse a [ray://]HOST:PORT where nothing listens: Ray would retry joining it
    for ever."""
    target = address.removeprefix("ray://")  # a Ray client address: the same probe
    if "://" in target:
        return  # another scheme: Ray says itself what is wrong
    try:
        host, port = split_address(target)
    except ListenError:
        return  # "auto", or no HOST:PORT: Ray says itself what is wrong
    try:
        socket.create_connection((host, port), timeout=REACH_SECONDS).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise RayUnavailableError(
            f"cannot join Ray cluster {address}: nothing answers there ({reason})"
        ) from None


LOCAL_STARTS = 2  # a local instance that did not come up is tried once more
# A local instance's workers run this command's work, so at its priority, as `--jobs`
# helpers do: Ray renices them by 15 by default, and beside two CPU-bound processes
# (another test file, a solve) each then got ~4 % of a core; the first task of each of
# `fleet solve --misere --options-of 0*10`'s two workers took 138-141 s instead of 10.5 s.
LOCAL_SYSTEM_CONFIG = {"worker_niceness": 0}


def _start_local(ray: ModuleType, num_cpus: int, options: Mapping[str, Any]) -> None:
    """`ray.init` of a new local instance, tried LOCAL_STARTS times; the half-started
    processes of a failed try are stopped before the next (or before the error)."""
    for attempt in range(1, LOCAL_STARTS + 1):
        try:
            ray.init(
                address="local",
                num_cpus=num_cpus,
                _system_config=dict(LOCAL_SYSTEM_CONFIG),
                **options,
            )
            return
        except Exception as error:  # noqa: BLE001 (a start timeout is a bare Exception)
            ray.shutdown()
            if attempt == LOCAL_STARTS:
                raise RayUnavailableError(
                    f"cannot start a local Ray instance ({attempt} tries): {first_line(error)} "
                    f"(Ray's logs: {_ray_logs()})"
                ) from None


def _ray_logs() -> str:
    """Where a local Ray instance writes its logs (`RAY_TMPDIR`, else the temp dir)."""
    root = os.environ.get("RAY_TMPDIR") or tempfile.gettempdir()
    return os.path.join(root, "ray", "session_latest", "logs")


def first_line(error: BaseException) -> str:
    """One line for an error of Ray's (its messages and tracebacks run over several):
    the first line of its cause when it has one (a task's exception), else of its text."""
    cause = getattr(error, "cause", None)
    text = f"{type(cause).__name__}: {cause}" if isinstance(cause, BaseException) else str(error)
    lines = text.strip().splitlines()
    return lines[0] if lines else type(error).__name__


def cluster_cpus(ray: ModuleType) -> int:
    """Whole CPUs the cluster offers (at least 1): one worker each."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))
