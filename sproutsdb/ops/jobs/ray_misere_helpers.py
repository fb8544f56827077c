"""`fleet solve --misere POS --ray --jobs N`: the misère `--jobs` design (parallel_misere.py)
over Ray, as ray_helpers.py is the normal-play one.

The driver solves POS as `solve --misere --jobs 1` would, as a client of the server; N - 1
Ray helpers prove the misère outcomes of POS's options meanwhile, each its share
(`parallel_misere.helper_share`: from the end of the main search's order, the option held
back for the main search last). What `--jobs` shares between processes goes through the
`FleetHub` actor (pinned to the driver's node): the keys of the losing nodes each solver
had committed on the server (told after the commit, read from the server by the others)
and the nodes on each search's path (busy marks). The answer is the driver's; a helper
that dies is run again by Ray and takes its share up from what the server holds.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from sproutsdb.ops.jobs.busy_marks import HeldBackRoot
from sproutsdb.ops.jobs.parallel_misere import helper_share
from sproutsdb.ops.jobs.ray_helpers import (
    RETRIES,
    HubLink,
    gather_helpers,
    hub_actor,
    pinned_here,
)
from sproutsdb.ops.ray_session import import_ray
from sproutsdb.solver.ports.proofstore import FactValue

if TYPE_CHECKING:
    import ray

    from sproutsdb.ops.jobs.ray_fleet import ServerSpec
else:
    ray = import_ray()

SHARE_SECONDS = 1.0  # as parallel_misere: how often a solver meets the others' facts


class KeysOutbox:
    """What a `HubLink` takes from a solver whose store commits each put before it returns
    (the server's `RemoteProofStore`): the keys of its committed batches, told to the hub at
    the next sync; the others' keys are read from the server by the solver itself."""

    def __init__(self) -> None:
        self._keys: dict[str, FactValue] = {}
        self._lock = threading.Lock()

    def add(self, keys: Sequence[str]) -> None:
        with self._lock:
            self._keys.update(dict.fromkeys(keys, 0))

    def take_outbox(self) -> dict[str, FactValue]:
        with self._lock:
            keys, self._keys = self._keys, {}
        return keys

    def learn(self, facts: object) -> None:
        """Nothing to keep: the solver reads the values from the server."""


class MisereLink(HubLink):
    """A misère solver's side of the hub: `FactNews` of keys, busy marks."""

    def __init__(self, hub: Any, me: int) -> None:
        self.keys = KeysOutbox()
        super().__init__(hub, me, cast(Any, self.keys))

    def published(self, keys: Sequence[str]) -> None:
        """Called once the batch is committed on the server: told at the next sync."""
        self.keys.add(keys)


class MisereMainLink(MisereLink):
    """The main search's marks: the helpers' paths, and the root options left to them
    while the one held back for it is undecided (busy_marks.MainBusy)."""

    def __init__(self, hub: Any) -> None:
        super().__init__(hub, 0)
        self.root = HeldBackRoot()

    def elsewhere(self, key: str) -> bool:
        return super().elsewhere(key) or self.root.for_helpers(key)


class _Stopped(Exception):
    """Raised from a helper's progress callback when the run is over."""


def misere_helper_main(
    hub: Any, server: ServerSpec, me: int, position: str, helpers: int
) -> dict[str, Any]:
    """Helper `me` (1..helpers): prove its share of `position`'s misère options into the
    server (a Ray task)."""
    from sproutsdb.ops.solve import SolveSettings, Solving, misere_rct_source
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.search.progress import Progress

    started = time.perf_counter()
    starts = ray.get(hub.hello.remote(me, os.getpid()))
    link = MisereLink(hub, me)
    store = open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
    proven = 0
    nodes = 0

    def keep_going(_progress: Progress) -> None:
        if link.stopped:
            raise _Stopped

    try:
        link.sync()
        rcts, _ = misere_rct_source(store, notice=lambda _m: None, who="sproutsdb fleet helper")
        settings = SolveSettings(
            misere=True,
            rcts=rcts,
            progress=keep_going,
            progress_interval=0.2,
            reprove_roots=False,  # an option the server has decided is not proven again
            flush_seconds=SHARE_SECONDS,
            share_seconds=SHARE_SECONDS,
            busy=link,
            news=link,
        )
        with Solving(store, settings=settings) as session:
            solver = session.solver
            options = solver.ordered_children(solver.node(position))
            for option in helper_share(options, me - 1, helpers):
                if link.stopped:
                    break
                solver.node_outcome(option)
                proven += 1
                nodes = solver.stats.nodes
            nodes = solver.stats.nodes
    except _Stopped:
        pass
    finally:
        with contextlib.suppress(Exception):  # the run is over: what was committed is kept
            link.sync()  # the last keys
        store.close()
    return {
        "helper": me,
        "starts": starts,
        "worker": f"{socket.gethostname()}:{os.getpid()}",
        "options": proven,
        "nodes": nodes,
        "seconds": round(time.perf_counter() - started, 3),
        "cpu": round(time.process_time(), 3),
    }


_misere_helper = ray.remote(num_cpus=1, max_retries=RETRIES)(misere_helper_main)


def misere_with_helpers(server: ServerSpec, position: str, helpers: int) -> dict[str, Any]:
    """The misère outcome of one canonical position, solved in this process as a client of
    `server` with its RCT table, `helpers` Ray helpers proving its options meanwhile (Ray
    entered by the caller)."""
    from sproutsdb.errors import UserError
    from sproutsdb.ops.solve import SolveSettings, misere_rct_source, solve
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.ports.proofstore import ConflictError

    started = time.perf_counter()
    cpu0 = time.process_time()
    hub = link = None
    refs: list[Any] = []
    reports: list[dict[str, Any]] = []
    lost = 0
    store = open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
    try:
        rcts, _ = misere_rct_source(store, notice=lambda _m: None, who="sproutsdb fleet solve")
        if helpers > 0:
            hub = hub_actor.options(scheduling_strategy=pinned_here()).remote()
            link = MisereMainLink(hub)
            refs = [
                _misere_helper.remote(hub, server, me, position, helpers)
                for me in range(1, helpers + 1)
            ]
        settings = SolveSettings(
            misere=True,
            rcts=rcts,
            share_seconds=SHARE_SECONDS if link is not None else None,
            busy=link,
            root_share=link.root if link is not None else None,
            news=link,
        )
        try:
            report = solve(position, store, settings=settings)
        except ConflictError as error:
            return {"position": position, "error": f"conflict: {error}"}
        except UserError as error:
            return {"position": position, "error": str(error)}
    finally:
        if hub is not None:
            hub.stop.remote()
            ended, failures = gather_helpers(refs)
            reports += ended
            lost += len(failures)
            ray.kill(hub)
        store.close()
    reports.sort(key=lambda h: int(h["helper"]))
    return {
        "position": position,
        "play": "misere",
        "outcome": report.outcome,
        "stored": report.stored,
        "nodes": report.stats.nodes + sum(int(h["nodes"]) for h in reports),
        "main_nodes": report.stats.nodes,
        "seconds": round(time.perf_counter() - started, 3),
        "cpu": round(time.process_time() - cpu0, 3),
        "worker": f"{socket.gethostname()}:{os.getpid()} (driver)",
        "helpers": reports,
        "lost_helpers": lost,
    }


__all__ = ["misere_helper_main", "misere_with_helpers"]
