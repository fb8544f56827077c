"""`fleet solve --misere`: Ray workers proving misère outcomes as clients of one server.

Each position (or each option of `--options-of ROOT`) is one Ray task: the library's misère
solve (sproutsdb.ops.solve, `misere=True`) over the server's `RemoteProofStore`, with the
server's RCT table (its position → RCT claims re-derived before use, as every misère solve
does). Every losing node a worker proves is on the server for the others; with
`--options-of` the root is then solved here from them (an option proven losing is stored
itself, one proven winning leaves its losing child), proven again as any root is. Each
answer is its own solve's, so it is what `solve --misere --server` alone prints. A worker
that dies is replaced by Ray and its task run again from what the server holds.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from sproutsdb.errors import UserError
from sproutsdb.ops.jobs.ray_fleet import POLL_SECONDS, RETRIES, FleetError, ServerSpec
from sproutsdb.ops.jobs.ray_helpers import PRELOAD_LIMIT, verified_facts
from sproutsdb.ops.ray_session import cluster_cpus, first_line, import_ray
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, PutResult

if TYPE_CHECKING:
    import ray

    from sproutsdb.client import RemoteProofStore
else:
    ray = import_ray()  # an optional extra: imported with an install hint when missing


def misere_on_server(server: ServerSpec, position: str) -> dict[str, Any]:
    """The misère outcome of one canonical position, solved as a client of `server` with
    its RCT table (what each task runs, and the root of `--options-of`)."""
    from sproutsdb.ops.solve import SolveSettings, misere_rct_source, solve
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.ports.proofstore import ConflictError

    started, began, cpu = time.perf_counter(), time.time(), time.process_time()
    try:
        store = ListedServerStore(
            open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
        )
        try:
            rcts, _ = misere_rct_source(
                store, notice=lambda _message: None, who="sproutsdb fleet solve"
            )
            report = solve(position, store, settings=SolveSettings(misere=True, rcts=rcts))
        finally:
            store.close()
    except ConflictError as error:
        return {"position": position, "error": f"conflict: {error}"}
    except UserError as error:
        return {"position": position, "error": str(error)}
    return {
        "position": position,
        "play": "misere",
        "outcome": report.outcome,
        "stored": report.stored,
        "nodes": report.stats.nodes,
        "seconds": round(time.perf_counter() - started, 3),
        "cpu": round(time.process_time() - cpu, 3),
        "began": round(began, 3),
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }


class ListedServerStore:
    """A task's store: the server's verified misère facts read once at the start, listed
    (`ListedProofStore`), so the misère search takes them whole and never asks the server
    about a node again (asked at each expansion, the option tasks of 0*16 sent 800 k Lookups
    and found 0.08 % of their keys); everything else, writes included, goes to the server."""

    def __init__(self, remote: RemoteProofStore) -> None:
        self.remote = remote
        self.client = remote.client  # the server's RCT table is read through it
        self.trusted_kinds = remote.trusted_kinds
        facts = verified_facts(remote.client, FactKind.MISERE)
        self.complete = facts is not None
        self.facts: dict[str, FactValue] = facts or {}

    def count(self, kind: FactKind) -> int:
        if kind == FactKind.MISERE and self.complete:
            return len(self.facts)
        return PRELOAD_LIMIT << 4  # too many to list: the search reads key by key

    def iter_facts(self, kind: FactKind) -> Iterator[tuple[str, FactValue]]:
        if kind == FactKind.MISERE:
            yield from list(self.facts.items())

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
        return self.remote.get(kind, keys)

    def put(self, kind: FactKind, items: Mapping[str, FactValue]) -> PutResult:
        if kind == FactKind.MISERE:
            self.facts.update(items)
        return self.remote.put(kind, items)

    def flush(self) -> None:
        self.remote.flush()

    def close(self) -> None:
        self.remote.close()


@ray.remote(num_cpus=1, max_retries=RETRIES)
def _misere_task(server: ServerSpec, position: str) -> dict[str, Any]:
    return misere_on_server(server, position)


def misere_fleet(
    session: ModuleType,
    server: ServerSpec,
    positions: Sequence[str],
    *,
    workers: int | None,
    progress: Callable[[int, int], None],
) -> tuple[list[dict[str, Any]], int]:
    """Every position's misère outcome on the Ray workers of `session`: (results in the
    order given, workers used); `progress(done, total)` about every POLL_SECONDS."""
    used = min(len(positions), workers or cluster_cpus(session)) if positions else 0
    refs = {_misere_task.remote(server, p): p for p in positions}
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
        progress(len(results), len(positions))
    return [results[p] for p in positions], used


__all__ = ["misere_fleet", "misere_on_server"]
