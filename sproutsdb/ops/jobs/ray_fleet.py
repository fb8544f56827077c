"""`sproutsdb fleet solve --tasks` (and `--options-of`): Ray workers solving whole
positions as clients of one server. (`fleet solve POS` without `--tasks` runs the
`solve --jobs` design over Ray instead: ops/jobs/ray_helpers.py. At 0*18 on 2 cores this
module's task per position took 323 s against 142 s for one process: a search on a
server's store cannot read it whole, so each expansion that meets lands not asked about
before sends a Lookup.)

Each position is one Ray task: the library's solve verb (sproutsdb.ops.solve) over the
`RemoteProofStore` of the server (sproutsdb.ops.stores), so every fact one worker proves is there for all the
others (and for the next run). A worker that dies is replaced and its task run again by
Ray (`RETRIES` times): the solve resumes from what the server already holds. This process
only hands out positions and shows the whole fleet's progress (positions done, facts on
the server). With a split budget, a position still unsolved after that many seconds hands
out its options to the fleet and is solved again once they are (down to a depth below the
positions given: each level multiplies the tasks by ~10-30, so a level pays only while
the budget is well above a Ray task's own cost). A position split costs the nimbers of all
its options, more than the couples a df-pn search needs of them: at 0*14 on 2 loaded cores
`--split 4` was slower than no split (bench/speedup_model.py); it is for many workers.: the options of one root alone cannot feed many workers
(bench/speedup_model.py).
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
SPLIT_DEPTH = 1  # default: a position this many splits below one given is solved whole
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


class _OverBudget(Exception):
    """Raised from a worker's progress callback when its position has run its budget."""


def solve_on_server(
    server: ServerSpec,
    position: str,
    *,
    search: str,
    outcome_only: bool,
    budget: float | None = None,
) -> dict[str, Any]:
    """Solve one canonical position as a client of `server` (what each task runs; the
    root of `--options-of` too): outcome, and the nimber of a single land unless
    `outcome_only`. With a `budget`, a solve still running after that many seconds stops
    (what it proved is on the server) and says {"position", "split": True}."""
    from sproutsdb.ops.solve import SolveSettings, solve
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.ports.proofstore import ConflictError
    from sproutsdb.solver.search.progress import Progress

    started = time.perf_counter()

    def keep_going(progress: Progress) -> None:
        # depth 0 is the report at the end of a call: the position is solved by then
        if budget is not None and progress.depth > 0 and progress.seconds >= budget:
            raise _OverBudget

    settings = SolveSettings(
        search=search,
        outcome_only=outcome_only,
        progress=keep_going if budget is not None else None,
        progress_interval=0.2 if budget is not None else None,
    )
    try:
        store = open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
        try:
            report = solve(position, store, settings=settings)
        finally:
            store.close()
    except _OverBudget:
        return {"position": position, "split": True}
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
    server: ServerSpec, position: str, search: str, outcome_only: bool, budget: float | None
) -> dict[str, Any]:
    return solve_on_server(
        server, position, search=search, outcome_only=outcome_only, budget=budget
    )


@dataclass
class _Job:
    """A position handed out: which given one it is (or None), how many splits below
    one, and the job waiting on it (a split position, solved again after its options)."""

    position: str
    index: int | None
    depth: int
    parent: _Job | None = None
    waiting: int = 0  # options of this split position not solved yet


def solve_fleet(
    session: ModuleType,
    server: ServerSpec,
    positions: Sequence[str],
    *,
    search: str,
    outcome_only: bool,
    workers: int | None,
    progress: Callable[[int, int], None] | None = None,
    split: tuple[float, Callable[[str], Sequence[str]], int] | None = None,
) -> tuple[list[dict[str, Any]], int, list[dict[str, Any]]]:
    """Solve every position on the Ray workers of `session` (`ray_session`, entered by the
        caller before it opened its own gRPC channels); (results in the order given, workers
        used: `workers`, else the cluster's CPUs, results of the options split positions handed
        out). `split` = (budget seconds, the options of a position, depth) splits what runs
    longer, down to `depth` levels below the positions given.
        `progress(done, total)` is called about every POLL_SECONDS and at each result."""
    cpus = workers or cluster_cpus(session)
    used = (cpus if split else min(len(positions), cpus)) if positions else 0
    refs: dict[Any, _Job] = {}

    def hand_out(job: _Job, budget: float | None) -> None:
        refs[_solve_task.remote(server, job.position, search, outcome_only, budget)] = job

    budget = split[0] if split else None
    for index, position in enumerate(positions):
        hand_out(_Job(position, index, 0), budget)
    results: dict[int, dict[str, Any]] = {}
    extra: list[dict[str, Any]] = []
    while refs:
        ready, _ = ray.wait(list(refs), num_returns=1, timeout=POLL_SECONDS)
        for ref in ready:
            job = refs.pop(ref)
            try:
                result = ray.get(ref)
            except ray.exceptions.RayError as error:
                raise FleetError(
                    f"solving {job.position} failed on its worker "
                    f"{RETRIES + 1} times: {first_line(error)}"
                ) from None
            if result.get("split") and split is not None:
                options = list(dict.fromkeys(split[1](job.position)))
                job.waiting = len(options)
                deeper = budget if job.depth + 1 < split[2] else None
                for option in options:
                    hand_out(_Job(option, None, job.depth + 1, parent=job), deeper)
                if not options:
                    hand_out(job, None)
                continue
            if job.index is not None:
                results[job.index] = result
            else:
                extra.append(result)
            parent = job.parent
            if parent is not None:
                parent.waiting -= 1
                if parent.waiting == 0:  # its options are known: solve it whole now
                    hand_out(parent, None)
        if progress is not None:
            progress(len(results), len(positions))
    return [results[i] for i in range(len(positions))], used, extra
