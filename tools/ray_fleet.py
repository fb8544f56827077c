"""`sproutsdb fleet solve`: Ray workers solving positions as clients of one server.

Each position is one Ray task: the library's solve verb (sproutsdb.ops.solve) over the
`RemoteProofStore` of the server (sproutsdb.ops.stores), so every fact one worker proves is there for all the
others (and for the next run). A worker that dies is replaced and its task run again by
Ray (`RETRIES` times): the solve resumes from what the server already holds. This process
only hands out positions and shows the whole fleet's progress (positions done, facts on
the server).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from sproutsdb.errors import UserError
from sproutsdb.ops.ray_session import cluster_cpus, first_line, import_ray

RETRIES = 3  # re-runs of a position whose worker died
POLL_SECONDS = 1.0  # how often the progress line asks the server for its count

if TYPE_CHECKING:
    import ray
else:
    ray = import_ray()  # an optional extra: imported with an install hint when missing


@dataclass(frozen=True)
class ServerSpec:
    """How a worker reaches the server: what `Client` needs, picklable."""

    address: str
    token: str | None = None
    tls_ca: bytes | None = None


class FleetError(UserError):
    """A position the fleet could not solve (the server's error, a conflict): exit 2."""


def solve_on_server(
    server: ServerSpec, position: str, *, search: str, outcome_only: bool
) -> dict[str, Any]:
    """Solve one canonical position as a client of `server` (what each task runs; the
    root of `--options-of` too): outcome, and the nimber of a single land unless
    `outcome_only`."""
    from sproutsdb.ops.solve import SolveSettings, solve
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.ports.proofstore import ConflictError

    started = time.perf_counter()
    settings = SolveSettings(search=search, outcome_only=outcome_only)
    try:
        store = open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
        try:
            report = solve(position, store, settings=settings)
        finally:
            store.close()
    except ConflictError as error:
        return {"position": position, "error": f"conflict: {error}"}
    except UserError as error:
        return {"position": position, "error": str(error)}
    outcome, nimber, stored = report.outcome, report.nimber, report.stored
    return {
        "position": position,
        "outcome": outcome,
        "nimber": nimber,
        "stored": stored,
        "seconds": round(time.perf_counter() - started, 3),
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }


@ray.remote(num_cpus=1, max_retries=RETRIES)
def _solve_task(
    server: ServerSpec, position: str, search: str, outcome_only: bool
) -> dict[str, Any]:
    return solve_on_server(server, position, search=search, outcome_only=outcome_only)


def solve_fleet(
    session: ModuleType,
    server: ServerSpec,
    positions: Sequence[str],
    *,
    search: str,
    outcome_only: bool,
    workers: int | None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Solve every position on the Ray workers of `session` (`ray_session`, entered by the
    caller before it opened its own gRPC channels); (results in the order given, workers
    used: `workers`, else the cluster's CPUs). `progress(done, total)` is called about
    every POLL_SECONDS and at each result."""
    used = min(len(positions), workers or cluster_cpus(session)) if positions else 0
    refs = {_solve_task.remote(server, p, search, outcome_only): p for p in positions}
    results: dict[str, dict[str, Any]] = {}
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1, timeout=POLL_SECONDS)
        for ref in ready:
            try:
                results[refs[ref]] = ray.get(ref)
            except ray.exceptions.RayError as error:
                raise FleetError(
                    f"solving {refs[ref]} failed on its worker "
                    f"{RETRIES + 1} times: {first_line(error)}"
                ) from None
        if progress is not None:
            progress(len(results), len(positions))
    return [results[p] for p in positions], used
