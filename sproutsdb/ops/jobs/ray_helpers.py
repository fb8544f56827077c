"""`fleet solve --ray`: the `solve --jobs` design over Ray (parallel_normal.py's, one
machine's shared memory replaced by one Ray actor).

The driver (the `fleet solve` process) solves each position as `--jobs 1` would, against
the server; N - 1 Ray helpers prove parts of its tree meanwhile, and the answer is always
the driver's. What `solve --jobs` shares in memory lives in a `FleetHub` actor: the queue of
the main search's root children (couples, with their claims: `take`, `done`, `split`),
which child the main search is in, the facts each solver has had committed on the server
(their keys *and* values, so a solver never asks the server for them: `FactNews`), the
nodes on each search's path (`BusyMarks`, a snapshot a second old) and each solver's
visits. Each solver talks to it once a `share_seconds` (`sync`) and once a couple (`take`),
never per node.

Each solver's store is a `FleetStore`: every fact goes to the server by its `Insert` in the
solver's batches (1 000 facts or `flush_seconds`), which goes through the project's gate
(claims, verified by the server's verifier); reads never leave the process. It holds what
the server held verified when the solver began (streamed once, when there are few enough)
and what the fleet's solvers had committed there since: a `ListedProofStore`, so the search
reads it whole at each call and then meets only the news (as on a local store), instead of
one Lookup per expanded node (what made the task-per-position fleet 0.44x at 0*18).

A helper that dies is run again by Ray (`RETRIES`): it tells the hub, which queues the
couple it held again. Whether helpers live or die, the driver's search alone decides the
answer: a lost helper only means the driver proves that part itself. What a solver tells
the hub (its facts, a couple done) it tells only once the server has committed the facts,
so a node lost with its uncommitted batches leaves nobody relying on them; the hub lives
on the driver's node. A server that stops answering is waited for (`RECONNECT_SECONDS`):
the batches queue up meanwhile and go once it is back, so a restarted server finds every
solver where it was.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import math
import os
import queue
import socket
import statistics
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from sproutsdb.ops.jobs.busy_marks import BUSY_SLOTS, helpers_order
from sproutsdb.ops.jobs.fleet_trace import MainTrace, TaskLog, samples_ms, write_trace
from sproutsdb.ops.jobs.parallel_normal import (
    DONE,
    FREE,
    HELPER,
    MAIN,
    SPLIT_DEPTH,
    SPLIT_SECONDS,
    Couple,
    Node,
    claim_root_children,
    split,
)
from sproutsdb.ops.ray_session import first_line, import_ray
from sproutsdb.solver.ports.proofstore import ConflictError, FactKind, FactValue, PutResult

if TYPE_CHECKING:
    import ray

    from sproutsdb.client import Client, RemoteProofStore
    from sproutsdb.ops.jobs.ray_fleet import ServerSpec
    from sproutsdb.solver.search.progress import Progress
else:
    ray = import_ray()

SHARE_SECONDS = 0.5  # how often a solver syncs with the hub (facts, busy marks, claims)
# how often a solver's proven facts go to the server, and from there to the others: the
# writer thread commits them off the search's path, so often costs the search little
# (5 s, solve's default, left a helper's facts up to ~8 s from the main search)
FLUSH_SECONDS = 0.5
IDLE_SECONDS = 0.3  # how long an idle helper waits before it asks the hub again
RETRIES = 3  # re-runs of a helper whose worker died
PRELOAD_LIMIT = 1 << 20  # a server holding more nimbers is read key by key, not streamed
STOP_GRACE = 10.0  # seconds the helpers have to report after the driver's search ends
# how long a solver waits for a server that stopped answering (a restart) before it fails
RECONNECT_SECONDS = 300.0
RECONNECT_DELAY = 2.0  # the longest pause between two tries while waiting

T = TypeVar("T")


def server_unanswered(error: BaseException) -> bool:
    """Whether `error` says the server did not answer (down, restarting, too slow), as
    opposed to refusing the request: worth trying again once it is back."""
    from sproutsdb.client import ServerUnavailableError, ServiceError

    if isinstance(error, ServerUnavailableError):
        return True
    code = getattr(error, "code", None) if isinstance(error, ServiceError) else None
    return getattr(code, "name", "") == "DEADLINE_EXCEEDED"


def until_answered(call: Callable[[], T], on_wait: Callable[[float], None] | None = None) -> T:
    """`call` (a request to the server), tried again while the server does not answer, for
    up to RECONNECT_SECONDS: a restarted server finds the solver where it was. `on_wait`
    is told the seconds waited, when there was a wait."""
    deadline = time.monotonic() + RECONNECT_SECONDS
    delay = 0.1
    since: float | None = None
    try:
        while True:
            try:
                return call()
            except Exception as error:
                if not server_unanswered(error) or time.monotonic() >= deadline:
                    raise
            if since is None:
                since = time.monotonic()
            time.sleep(delay)
            delay = min(2 * delay, RECONNECT_DELAY)
    finally:
        if since is not None and on_wait is not None:
            on_wait(time.monotonic() - since)


def verified_facts(client: Client, kind: FactKind) -> dict[str, FactValue] | None:
    """The server's verified facts of `kind`, streamed once; None when it holds more than
    PRELOAD_LIMIT of them (then they are read key by key)."""
    if int(client.stats()["facts"].get(kind.value, 0)) > PRELOAD_LIMIT:
        return None
    found: dict[str, FactValue] = {}
    for page in client.export(kind):
        for (key, value), record in zip(page.facts, page.records):
            if record.status.value == "verified":
                found[key] = value
    return found


def open_fleet_store(server: ServerSpec) -> FleetStore:
    """A solver's `FleetStore` on the server, waiting for a server that is restarting (a
    helper Ray starts or runs again may meet one)."""
    from sproutsdb.ops.stores import open_remote_store

    return FleetStore(
        until_answered(
            lambda: open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
        )
    )


def _slot(key: str) -> int:
    return zlib.crc32(key.encode()) & (BUSY_SLOTS - 1)


@dataclass
class Timings:
    """Seconds of one kind of call a solver made (dispatch: `take`; sharing: a batch of
    facts to the server; sync: a hub round trip)."""

    samples: list[float] = field(default_factory=list)

    def add(self, seconds: float) -> None:
        self.samples.append(seconds)

    def summary(self) -> dict[str, float | int]:
        s = self.samples
        if not s:
            return {"count": 0}
        ordered = sorted(s)
        return {
            "count": len(s),
            "total_s": round(sum(s), 3),
            "p50_ms": round(1000 * statistics.median(s), 2),
            "p99_ms": round(1000 * ordered[min(len(s) - 1, int(0.99 * len(s)))], 2),
        }


def _server_record(store: FleetStore) -> dict[str, Any]:
    """The server's Stats as a `server` trace record (empty figures if it cannot say)."""
    try:
        stats = dict(store.remote.client.stats())
    except Exception:  # noqa: BLE001 (a trace's figure only)
        return {"kind": "server"}
    keep = ("commits", "commit_ms", "facts_inserted", "facts_offered", "uptime_seconds")
    return {"kind": "server", **{k: stats[k] for k in keep if k in stats}}


def merge_timings(parts: Sequence[Mapping[str, Any]]) -> dict[str, float | int]:
    """One summary of several solvers' summaries (count-weighted; p99 the worst)."""
    parts = [p for p in parts if p.get("count")]
    if not parts:
        return {"count": 0}
    count = sum(int(p["count"]) for p in parts)
    return {
        "count": count,
        "total_s": round(sum(float(p["total_s"]) for p in parts), 3),
        "p50_ms": round(sum(float(p["p50_ms"]) * int(p["count"]) for p in parts) / count, 2),
        "p99_ms": max(float(p["p99_ms"]) for p in parts),
    }


class FleetHub:
    """The shared state of one fleet run (a Ray actor: `hub_actor`). Solver 0 is the
    driver's main search, 1.. the helpers."""

    def __init__(self) -> None:
        self.queue: collections.deque[Couple] = collections.deque()
        self.deferred: list[Couple] = []  # root children the main search had entered
        self.claims: dict[int, int] = {}
        self.current = -1  # the root child the main search is in
        self.log: list[tuple[int, dict[str, FactValue]]] = []  # (solver, facts) batches
        self.busy: dict[int, frozenset[int]] = {}
        self.idle: set[int] = set()
        self.holding: dict[int, Couple] = {}
        self.visits: dict[int, int] = {}
        self.stopped = False
        self.hellos: collections.Counter[int] = collections.Counter()
        self.pids: dict[int, int] = {}
        self.calls: collections.Counter[str] = collections.Counter()  # for a trace

    # --- the main search's side (RootClaims) ------------------------------------------
    def offer(self, couples: list[Couple]) -> None:
        self.queue.extend(couples)

    def entering(self, index: int) -> None:
        self.current = index
        if index >= 0 and self.claims.get(index, FREE) == FREE:
            self.claims[index] = MAIN

    def decided(self, index: int) -> None:
        if index >= 0:
            self.claims[index] = DONE

    def stop(self) -> None:
        self.stopped = True

    # --- the helpers' side ------------------------------------------------------------
    def hello(self, me: int, pid: int = 0) -> int:
        """A helper (re)starts in process `pid`: a couple it held when its worker died is
        queued again. Returns how many times this helper has started."""
        self.hellos[me] += 1
        self.pids[me] = pid
        lost = self.holding.pop(me, None)
        if lost is not None:
            if lost[0] >= 0 and self.claims.get(lost[0]) == HELPER:
                self.claims[lost[0]] = FREE
            self.queue.appendleft(lost)
        return self.hellos[me]

    def _claim(self, couple: Couple, *, deferred: bool) -> str:
        index = couple[0]
        if index < 0:
            return "take"
        state = self.claims.get(index, FREE)
        if state == DONE or (state == HELPER and couple[3] == 1):
            return "skip"
        if state == MAIN and not deferred:
            return "defer"
        self.claims[index] = HELPER
        return "take"

    def _left_by_main(self) -> Couple | None:
        open_ones = [c for c in self.deferred if self.claims.get(c[0]) == MAIN]
        self.deferred[:] = open_ones
        for couple in open_ones:
            if couple[0] != self.current:
                self.deferred.remove(couple)
                return couple
        return self.deferred.pop(0) if self.deferred else None

    def take(self, me: int) -> Couple | None:
        """The next couple for helper `me` (parallel_normal's helper loop, made atomic
        here), or None: nothing to do now (the helper counts as idle) or stopped.

        A helper with no couple left joins a root child the main search is in only once no
        other helper holds a couple, so one joins at a time and last: with more helpers
        than root children, those that ran out early all joined the main search's own
        child, each searching its subtree a second time beside it."""
        self.calls["take"] += 1
        self.holding.pop(me, None)
        if self.stopped:
            return None
        while self.queue:
            couple = self.queue.popleft()
            verdict = self._claim(couple, deferred=False)
            if verdict == "defer":
                self.deferred.append(couple)
                continue
            if verdict == "take":
                self.idle.discard(me)
                self.holding[me] = couple
                return couple
        if self.holding:  # another helper still works: it may be the last
            self.idle.add(me)
            return None
        left = self._left_by_main()
        if left is not None and self._claim(left, deferred=True) == "take":
            self.idle.discard(me)
            self.holding[me] = left
            return left
        self.idle.add(me)
        return None

    def done(self, me: int, couple: Couple) -> None:
        """Helper `me` has had `couple`'s facts committed. It says so once they are, which
        may be after it took its next couple: only `couple` itself stops being held."""
        self.calls["done"] += 1
        if self.holding.get(me) == couple:
            del self.holding[me]
        if couple[0] >= 0:
            self.claims[couple[0]] = DONE

    def split(self, me: int, parts: list[Couple]) -> None:
        self.calls["split"] += 1
        self.holding.pop(me, None)
        self.queue.extend(parts)

    # --- everyone -----------------------------------------------------------------------
    def sync(
        self, me: int, cursor: int, facts: dict[str, FactValue], busy: frozenset[int], visits: int
    ) -> tuple[int, list[dict[str, FactValue]], frozenset[int], dict[int, int], int, int, bool]:
        """Take solver `me`'s new committed facts, path and visits; give back the others'
        facts since `cursor` (and the new cursor), the slots of their paths, the claims,
        the main search's root child, the helpers idle, and whether the run is over."""
        self.calls["sync"] += 1
        if facts:
            self.log.append((me, facts))
        self.busy[me] = busy
        self.visits[me] = visits
        news = [batch for who, batch in self.log[cursor:] if who != me]
        others: set[int] = set()
        for who, slots in self.busy.items():
            if who != me:
                others |= slots
        return (
            len(self.log),
            news,
            frozenset(others),
            dict(self.claims),
            self.current,
            len(self.idle),
            self.stopped,
        )

    def figures(self) -> dict[str, Any]:
        """The hub's calls by kind and its process's CPU seconds (for a trace)."""
        return {"calls": dict(self.calls), "cpu": round(time.process_time(), 3)}

    def helpers(self) -> dict[int, tuple[int, bool]]:
        """Each helper's process id and whether it holds a couple now (for the tests)."""
        return {me: (pid, me in self.holding) for me, pid in self.pids.items()}

    def acknowledged(self, cursor: int = 0) -> tuple[int, list[tuple[int, dict[str, FactValue]]]]:
        """The (solver, facts) batches told to the hub since `cursor`, and the new cursor:
        facts the server committed, all that the solvers may rely on (for the fault tests)."""
        return len(self.log), self.log[cursor:]


class FleetStore:
    """A solver's store in a fleet run (see the module's doc): writes go to the server in
    the solver's batches, by a writer thread (the search goes on while the server
    commits); reads are answered from what this process knows."""

    def __init__(self, remote: RemoteProofStore, *, preload: bool = True) -> None:
        self.remote = remote
        self.known: dict[str, FactValue] = {}
        self.outbox: dict[str, FactValue] = {}  # committed, not yet told to the hub
        self.sharing = Timings()
        self.complete = False  # the server's verified nimbers were streamed in at the start
        self.preloaded = 0
        self.inserted = 0  # facts the server did not have
        self.acknowledged = 0  # facts the server's Insert returned OK for
        self.outages = 0  # calls that found the server not answering and waited for it
        self.waited = 0.0  # seconds spent waiting for the server
        self._lock = threading.Lock()
        self._batches: queue.Queue[_Queued] = queue.Queue()
        self._failure: BaseException | None = None
        self._writer = threading.Thread(target=self._write, name="fleet-writer", daemon=True)
        if preload:
            self._preload()
        self._writer.start()

    @property
    def trusted_kinds(self) -> frozenset[FactKind]:
        return self.remote.trusted_kinds

    def until_answered(self, call: Callable[[], T]) -> T:
        """`call` (a request to the server), tried again while the server does not answer,
        for up to RECONNECT_SECONDS: a restarted server finds this solver where it was."""
        return until_answered(call, self._waited)

    def _waited(self, seconds: float) -> None:
        self.outages += 1
        self.waited += seconds

    def _preload(self) -> None:
        found = self.until_answered(lambda: verified_facts(self.remote.client, FactKind.NIMBER))
        if found is None:
            return
        self.known.update(found)
        self.preloaded = len(self.known)
        self.complete = True

    def learn(self, facts: Mapping[str, FactValue]) -> None:
        self.known.update(facts)

    def take_outbox(self) -> dict[str, FactValue]:
        with self._lock:
            outbox, self.outbox = self.outbox, {}
        return outbox

    # --- ProofStore / ListedProofStore ------------------------------------------------
    def count(self, kind: FactKind) -> int:
        if kind != FactKind.NIMBER:
            return 0
        # a server too large to stream is read key by key: never "listed" then
        return len(self.known) if self.complete else PRELOAD_LIMIT << 4

    def iter_facts(self, kind: FactKind) -> Iterator[tuple[str, FactValue]]:
        if kind == FactKind.NIMBER:
            yield from list(self.known.items())

    def get(self, kind: FactKind | str, keys: Sequence[str]) -> dict[str, FactValue]:
        kind = FactKind(kind)
        if kind != FactKind.NIMBER:
            return self.until_answered(lambda: self.remote.get(kind, keys))
        known = self.known
        found = {k: known[k] for k in keys if k in known}
        if not self.complete:
            wanted = [k for k in keys if k not in found]
            if wanted:
                fetched = self.until_answered(lambda: self.remote.get(kind, wanted))
                known.update(fetched)
                found.update(fetched)
        return found

    def put(self, kind: FactKind | str, items: Mapping[str, FactValue]) -> PutResult:
        """Queue a batch for the server (the writer thread Inserts it); a conflict the
        server reported for an earlier batch is raised here."""
        self._raise_failure()
        batch = dict(items)
        if FactKind(kind) == FactKind.NIMBER:
            self.known.update(batch)
        self._batches.put((FactKind(kind), batch))
        return PutResult(inserted=len(batch))

    def when_committed(self, callback: Callable[[], object]) -> None:
        """Call `callback` from the writer once every batch queued so far is committed on
        the server (never, if one failed): what a solver tells the others about its facts
        must not run ahead of them."""
        self._batches.put(callback)

    def _write(self) -> None:
        while (item := self._batches.get()) is not None:
            try:
                if callable(item):
                    if self._failure is None:
                        with contextlib.suppress(Exception):  # news only: the facts are in
                            item()
                else:
                    self._commit(*item)
            finally:
                self._batches.task_done()
        self._batches.task_done()

    def _commit(self, kind: FactKind, batch: dict[str, FactValue]) -> None:
        if self._failure is not None or not batch:
            return
        started = time.perf_counter()
        try:
            result = self.until_answered(lambda: self.remote.put(kind, batch))
        except BaseException as error:  # noqa: BLE001 (raised in the solver's thread)
            self._failure = error
            return
        self.sharing.add(time.perf_counter() - started)
        self.inserted += result.inserted
        self.acknowledged += len(batch)
        if result.conflicts:
            first = result.conflicts[0]
            self._failure = ConflictError(
                f"conflict on {kind.value} fact {first.key!r}: the server says "
                f"{first.stored!r}, this search proved {first.offered!r}"
            )
        elif kind == FactKind.NIMBER:
            with self._lock:
                self.outbox.update(batch)

    def _raise_failure(self) -> None:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def drain(self) -> None:
        """Wait until every queued batch is committed on the server (or raise why not)."""
        self._batches.join()
        self._raise_failure()

    def flush(self) -> None:
        """Nothing to wait for: a batch is the server's once the writer commits it
        (`drain` waits for that)."""
        self._raise_failure()

    def close(self) -> None:
        try:
            self.drain()
        finally:
            self._batches.put(None)
            self._writer.join(timeout=60)
            self.remote.close()


_Queued = tuple[FactKind, dict[str, FactValue]] | Callable[[], object] | None


class HubLink:
    """A solver's side of the hub: `FactNews` (with values), `BusyMarks` (own path counted
    here, the others' a snapshot of the last sync) and the claims the last sync saw."""

    def __init__(self, hub: Any, me: int, store: FleetStore) -> None:
        self.hub, self.me, self.store = hub, me, store
        self.cursor = 0
        self.pending: list[str] = []
        self.path: collections.Counter[int] = collections.Counter()
        self.others: frozenset[int] = frozenset()
        self.claims: dict[int, int] = {}
        self.current = -1
        self.idle = 0
        self.stopped = False
        self.visits = 0
        self.learned = 0  # facts the others shared, met at syncs (for a trace)
        self.shared = 0  # facts this solver sent to the hub
        self.syncs = Timings()
        self._in_flight: Any = None
        self._sent = 0.0

    # FactNews
    def published(self, keys: Sequence[str]) -> None:
        """The keys are in the store's outbox already (FleetStore.put): sent at a sync."""

    def news(self) -> list[str]:
        self.sync(wait=False)
        keys, self.pending = self.pending, []
        return keys

    def sync(self, *, wait: bool = True) -> None:
        """Meet the hub: take the reply of the sync in flight (if it has come; always when
        `wait`), then send the next one (and with `wait`, take its reply too). Without
        `wait` the search never waits for the hub: a reply is a sync old, as a busy mark."""
        if self._in_flight is not None:
            ready, _ = ray.wait([self._in_flight], timeout=None if wait else 0)
            if not ready:
                return
            self._take_reply(timed=False)
        outbox = self.store.take_outbox()
        self.shared += len(outbox)
        busy = frozenset(slot for slot, count in self.path.items() if count > 0)
        self._sent = time.perf_counter()
        self._in_flight = self.hub.sync.remote(self.me, self.cursor, outbox, busy, self.visits)
        if wait:
            self._take_reply()

    def _take_reply(self, *, timed: bool = True) -> None:
        reply = ray.get(self._in_flight)
        if timed:  # a round trip waited for (a reply found ready tells no latency)
            self.syncs.add(time.perf_counter() - self._sent)
        self._in_flight = None
        self.cursor, batches, self.others, self.claims, self.current, self.idle = reply[:6]
        self.stopped = reply[6]
        for batch in batches:
            self.learned += len(batch)
            self.store.learn(batch)
            self.pending.extend(batch)

    # BusyMarks
    def enter(self, key: str) -> None:
        self.path[_slot(key)] += 1

    def leave(self, key: str) -> None:
        slot = _slot(key)
        self.path[slot] -= 1
        if self.path[slot] <= 0:
            del self.path[slot]

    def elsewhere(self, key: str) -> bool:
        return _slot(key) in self.others


class HubRootClaims:
    """The main search's `RootShare` over the hub (parallel_normal.RootClaims)."""

    def __init__(self, link: HubLink) -> None:
        self.link = link
        self._index: dict[str, int] = {}
        self._offered = False
        self._kept = -1
        self._done: set[int] = set()
        self.trace: MainTrace | None = None  # the main search's stretches, when traced

    def offer(self, children: Sequence[tuple[str, Node]]) -> None:
        if self._offered:
            return
        self._offered = True
        queued = claim_root_children(self._index, children)
        self.link.hub.offer.remote(helpers_order(queued))
        if len(queued) > 1:
            self._kept = queued[-1][0]

    def _is_done(self, index: int) -> bool:
        return index in self._done or self.link.claims.get(index) == DONE

    def for_helpers(self, key: str) -> bool:
        index, kept = self._index.get(key, -1), self._kept
        return (
            index >= 0
            and kept >= 0
            and index != kept
            and not (self._is_done(kept) or self._is_done(index))
        )

    def entering(self, key: str) -> None:
        index = self._index.get(key, -1)
        if self.trace is not None:
            self.trace.entering(index)
        self.link.hub.entering.remote(index)

    def decided(self, key: str) -> None:
        index = self._index.get(key, -1)
        if index >= 0:
            self._done.add(index)
            self.link.hub.decided.remote(index)


class MainLink(HubLink):
    """The main search's marks: the helpers' paths, and the root children left to them
    while the child held back for it is undecided (busy_marks.MainBusy)."""

    def __init__(self, hub: Any, store: FleetStore) -> None:
        super().__init__(hub, 0, store)
        self.root = HubRootClaims(self)

    def elsewhere(self, key: str) -> bool:
        return super().elsewhere(key) or self.root.for_helpers(key)


class _Stopped(Exception):
    """Raised from a helper's progress callback when the run is over."""


class _OverBudget(Exception):
    """Raised from a helper's progress callback when its couple has run its budget."""


def helper_main(
    hub: Any,
    server: ServerSpec,
    me: int,
    search: str,
    table_capacity: int | None,
    split_seconds: float,
    split_depth: int,
    trace_origin: float | None = None,
) -> dict[str, Any]:
    """Helper `me`: prove couples of the hub's queue into the server (a Ray task); with
    `trace_origin` (the run's start, time.time()) its report carries its couples' trace."""
    from sproutsdb.games import get_game
    from sproutsdb.ops.solve import SolveSettings, normal_solver

    started = time.perf_counter()
    starts = ray.get(hub.hello.remote(me, os.getpid()))
    game = get_game().engine()
    store = open_fleet_store(server)
    link = HubLink(hub, me, store)
    deadline = [float("inf")]
    dispatch = Timings()
    solver: Any = None
    log = TaskLog(me, trace_origin) if trace_origin is not None else None

    def keep_going(progress: Progress) -> None:
        if solver is not None:
            link.visits = solver.stats.nodes
        if link.stopped:
            raise _Stopped
        if progress.depth > 0 and link.idle > 0 and time.process_time() >= deadline[0]:
            raise _OverBudget

    couples = 0
    try:
        settings = SolveSettings(
            search=search,
            table_capacity=table_capacity,
            progress=keep_going,
            progress_interval=0.2,
            reprove_roots=False,
            share_seconds=SHARE_SECONDS,
            flush_seconds=FLUSH_SECONDS,
            news=link,
            busy=link,
        )
        solver = normal_solver(game, store, settings)
        link.sync()
        while not link.stopped:
            asked = time.perf_counter()
            couple: Couple | None = ray.get(hub.take.remote(me))
            dispatch.add(time.perf_counter() - asked)
            if couple is None:
                time.sleep(IDLE_SECONDS)
                link.sync()
                continue
            link.sync()  # the facts of the others so far: read whole at the call's start
            link.pending.clear()
            _, key, n, depth = couple
            deadline[0] = (
                time.process_time() + split_seconds if depth < split_depth else float("inf")
            )
            if log is not None:
                log.begin(couple, solver.stats.nodes, link.learned, link.shared)
            try:
                solver.couple_outcome(key, n)
            except _OverBudget:
                parts = split(game, couple, split_depth)
                hub.split.remote(me, parts)
                if log is not None:
                    log.end("split", solver.stats.nodes, link.learned, link.shared, parts)
            else:
                solver.flush()  # the couple's facts to the writer: `done` once committed
                store.when_committed(functools.partial(hub.done.remote, me, couple))
                couples += 1
                if log is not None:
                    log.end("done", solver.stats.nodes, link.learned, link.shared)
            link.visits = solver.stats.nodes
    except _Stopped:
        pass
    finally:
        try:
            if solver is not None:
                solver.flush()
                link.visits = solver.stats.nodes
            link.sync()  # the last facts and visits
        except Exception:  # noqa: BLE001 (the run is over: what was committed is kept)
            pass
        if log is not None:  # a couple the run's end stopped
            log.end("stopped", link.visits, link.learned, link.shared)
        store.close()
    traced: dict[str, Any] = {}
    if log is not None:
        traced["trace"] = [*log.records, _costs_record(me, dispatch, store, link)]
    return {
        "helper": me,
        "starts": starts,
        "worker": f"{socket.gethostname()}:{os.getpid()}",
        "couples": couples,
        "visits": link.visits,
        "stored": store.inserted,
        "seconds": round(time.perf_counter() - started, 3),
        "dispatch": dispatch.summary(),
        "sharing": store.sharing.summary(),
        "sync": link.syncs.summary(),
        "outages": store.outages,  # times the server did not answer and was waited for
        "waited_s": round(store.waited, 3),
        **traced,
    }


def _costs_record(me: int, dispatch: Timings, store: FleetStore, link: HubLink) -> dict[str, Any]:
    """A solver's `costs` trace record: its latency samples (ms) and process CPU."""
    return {
        "kind": "costs",
        "solver": me,
        "dispatch": samples_ms(dispatch.samples),
        "sharing": samples_ms(store.sharing.samples),
        "sync": samples_ms(link.syncs.samples),
        "inserted": store.inserted,
        "learned": link.learned,
        "shared": link.shared,
        "cpu": round(time.process_time(), 3),
    }


_helper_task = ray.remote(num_cpus=1, max_retries=RETRIES)(helper_main)
hub_actor: Any = ray.remote(num_cpus=0)(FleetHub)


def gather_helpers(refs: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """(the reports of the helpers that ended, why each other one did not): each has
    STOP_GRACE seconds after the hub said stop, then is cancelled."""
    done, waiting = ray.wait(list(refs), num_returns=len(refs), timeout=STOP_GRACE)
    for ref in waiting:
        ray.cancel(ref, force=True)
    reports: list[Any] = []
    failures = ["still running at the end: cancelled"] * len(waiting)
    for ref in done:
        try:
            reports.append(ray.get(ref))
        except ray.exceptions.RayError as error:
            failures.append(first_line(error))
    return reports, failures


def pinned_here() -> Any:
    """A scheduling strategy that keeps an actor on this process's Ray node."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)


@dataclass
class FleetRun:
    """What the driver's solve is given (`SolveSettings` fields) and what it reports."""

    store: FleetStore
    link: MainLink | None
    hub: Any = None
    helpers: list[dict[str, Any]] = field(default_factory=list)
    lost: int = 0  # helpers whose every run failed
    failures: list[str] = field(default_factory=list)  # why, for those that failed
    hub_figures: dict[str, Any] = field(default_factory=dict)  # traced runs: FleetHub.figures


@contextmanager
def fleet_helpers(
    server: ServerSpec,
    helpers: int,
    *,
    search: str,
    table_capacity: int | None = None,
    split_seconds: float = SPLIT_SECONDS,
    split_depth: int = SPLIT_DEPTH,
    trace_origin: float | None = None,
) -> Iterator[FleetRun]:
    """Start `helpers` Ray helpers and a hub for one position's solve in this process
    (Ray entered by the caller); on leaving, stop them and gather their reports (with
    `trace_origin`, their traces, and the hub's figures in `run.hub_figures`)."""

    store = open_fleet_store(server)
    if helpers < 1:
        try:
            yield FleetRun(store, None)
        finally:
            store.close()
        return
    # on the driver's node: a lost node must not take the run's shared state with it
    hub = hub_actor.options(scheduling_strategy=pinned_here()).remote()
    link = MainLink(hub, store)
    refs = [
        _helper_task.remote(
            hub, server, me, search, table_capacity, split_seconds, split_depth, trace_origin
        )
        for me in range(1, helpers + 1)
    ]
    run = FleetRun(store, link, hub)
    try:
        yield run
    finally:
        hub.stop.remote()
        reports, failures = gather_helpers(refs)
        run.helpers += reports
        run.lost += len(failures)
        run.failures += failures
        with contextlib.suppress(Exception):  # a report only
            link.sync()  # the helpers' last visits
            if trace_origin is not None:
                run.hub_figures = ray.get(hub.figures.remote())
        ray.kill(hub)
        store.close()


def solve_with_helpers(
    server: ServerSpec,
    position: str,
    helpers: int,
    *,
    search: str,
    outcome_only: bool,
    table_capacity: int | None = None,
    split_seconds: float = SPLIT_SECONDS,
    split_depth: int = SPLIT_DEPTH,
    on_run: Callable[[FleetRun], None] | None = None,
    trace: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Solve `position` in this process as `solve --jobs 1` would, against the server,
    with `helpers` Ray helpers proving parts of it (see the module's doc). The result
    says the outcome (nimber), facts stored, visits of every solver, and the costs; with
    `trace`, every solver's tasks and costs are written to that file (fleet_trace.py)."""
    from sproutsdb.errors import UserError
    from sproutsdb.ops.solve import FLUSH_SECONDS as FLUSH_DEFAULT
    from sproutsdb.ops.solve import SolveSettings, solve
    from sproutsdb.solver.ports.proofstore import ConflictError

    started = time.perf_counter()
    origin = time.time() if trace is not None else None
    cpu0 = time.process_time()
    main_trace: MainTrace | None = None
    main_records: list[dict[str, Any]] = []
    with fleet_helpers(
        server,
        helpers,
        search=search,
        table_capacity=table_capacity,
        split_seconds=split_seconds,
        split_depth=split_depth,
        trace_origin=origin,
    ) as run:
        link = run.link
        if origin is not None and link is not None:
            main_trace = link.root.trace = MainTrace(origin)
        if on_run is not None:
            on_run(run)  # the tests: the hub, to find and kill a helper's worker
        settings = SolveSettings(
            search=search,
            outcome_only=outcome_only,
            table_capacity=table_capacity,
            share_seconds=SHARE_SECONDS if link is not None else None,
            flush_seconds=FLUSH_SECONDS if link is not None else FLUSH_DEFAULT,
            root_share=link.root if link is not None else None,
            news=link,
            busy=link,
        )
        try:
            report = solve(position, run.store, settings=settings)
            run.store.drain()  # every fact committed on the server before the answer
        except ConflictError as error:
            return {"position": position, "error": f"conflict: {error}"}
        except UserError as error:
            return {"position": position, "error": str(error)}
        main_sharing = run.store.sharing.summary()
        if main_trace is not None and link is not None:
            main_trace.close()
            main_records = [
                *main_trace.records,
                _costs_record(0, Timings(), run.store, link),
                _server_record(run.store),
            ]
    helper_reports = sorted(run.helpers, key=lambda h: int(h["helper"]))
    visits = report.stats.nodes + sum(int(h["visits"]) for h in helper_reports)
    if trace is not None and main_trace is not None:
        head = {
            "kind": "run",
            "version": 1,
            "position": report.position,
            "play": "normal",
            "workers": helpers + 1,
            "outcome": report.outcome,
            "visits": visits,
            "main_visits": report.stats.nodes,
            "seconds": round(time.perf_counter() - started, 3),
            "main_cpu": round(time.process_time() - cpu0, 3),
            "split_seconds": split_seconds if math.isfinite(split_seconds) else None,
            "lost_helpers": run.lost,
        }
        hub = {"kind": "hub", **run.hub_figures}
        helper_records = [r for h in helper_reports for r in h.pop("trace", ())]
        write_trace(trace, [head, *main_records, hub, *helper_records])
    for h in helper_reports:
        h.pop("trace", None)
    return {
        "position": report.position,
        "outcome": report.outcome,
        "nimber": report.nimber,
        "stored": run.store.inserted + sum(int(h["stored"]) for h in helper_reports),
        "seconds": round(time.perf_counter() - started, 3),
        "worker": f"{socket.gethostname()}:{os.getpid()} (driver)",
        "visits": visits,
        "main_visits": report.stats.nodes,
        "helpers": helper_reports,
        "lost_helpers": run.lost,
        "helper_failures": run.failures,
        "dispatch": merge_timings([h["dispatch"] for h in helper_reports]),
        "sharing": merge_timings([main_sharing, *(h["sharing"] for h in helper_reports)]),
        "sync": merge_timings(
            [link.syncs.summary() if link is not None else {}] + [h["sync"] for h in helper_reports]
        ),
        "outages": run.store.outages + sum(int(h.get("outages", 0)) for h in helper_reports),
        "waited_s": round(run.store.waited, 3),  # the driver's
    }
