"""The core of bench/fleet_simulator.py: discrete-event replays of fleet work on P virtual workers.

Two replays, both in "CPU terms" (each virtual worker runs one CPU second a second; a wall
latency counts as `rate` times itself, the CPU a process gets in a wall second):
  replay_fleet  a recorded fleet trace (sproutsdb.ops.jobs.fleet_trace) as the fleet runs it:
                the main search through its root children, helpers taking the others from
                the hub's queue, a child held by a helper searched by the main too (the
                duplicate visits real runs make) when nothing else is left; checked against
                real runs at other P
  scale_graph   a task graph (the ideal model's: tasks of about 64 visits and what each
                waits on) on P workers with the measured costs: a hub take per task handed
                out, each worker's facts sent in a batch every `flush` seconds to a server
                (one FIFO queue a shard: a commit's fixed cost plus a cost per fact), read by
                the others a sync later; a worker goes on with a task its own finished work
                made ready without waiting for the server (it knows its own facts)
Nothing here solves: the inputs are files bench/fleet_traces.py records.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Costs",
    "FleetReplay",
    "GraphReplay",
    "TraceTasks",
    "hub_load",
    "replay_fleet",
    "scale_graph",
    "server_saturation",
    "trace_tasks",
]


@dataclass(frozen=True)
class Costs:
    """What handing out and sharing cost (seconds; per fact and per visit as noted)."""

    cpu_per_visit: float = 0.0  # CPU seconds a visit
    dispatch: float = 0.0  # a hub `take` round trip, wall
    hub_per_call: float = 0.0  # the hub's own time per call (one actor: a shared queue)
    flush: float = 0.5  # a solver sends its facts to the server this often (wall)
    sync: float = 0.5  # a solver meets the hub this often (wall): news reach it then
    facts_per_visit: float = 0.0  # facts a visit sends to the server
    commit_fixed: float = 0.0  # the server's time per Insert batch
    commit_per_fact: float = 0.0  # the server's time per fact of a batch
    learn_per_fact: float = 0.0  # a solver's CPU per fact the others shared (it reads all)
    shards: int = 1  # servers the facts are spread over by key
    hubs: int = 1  # hub actors handing out tasks (worker w asks hub w mod hubs)

    def free(self) -> Costs:
        """The ideal model's costs: nothing (same work per visit)."""
        return Costs(cpu_per_visit=self.cpu_per_visit, flush=0.0, sync=0.0)


# ------------------------------------------------------------------ the fleet's replay


@dataclass
class TraceTasks:
    """A fleet trace reduced to what a replay needs (CPU seconds, visits)."""

    children: int  # root children (indices 0 .. children - 1)
    work: dict[int, float]  # root child -> CPU seconds it took its prover
    root_cpu: float  # the main search's CPU at the root itself (not in a child)
    visits: int  # every solver's visits
    cpu: float  # every solver's search CPU (tasks and main stretches)
    main_cpu: float  # the main search's CPU, start to answer (the run's makespan)
    helper_start: float  # main-search CPU before the first helper took a couple
    workers: int
    visits_done: int = 0  # visits of the work done once (the main's, helpers' finished couples)
    cpu_done: float = 0.0  # its CPU
    costs: dict[str, Any] = field(default_factory=dict)


def trace_tasks(records: Iterable[Mapping[str, Any]]) -> TraceTasks:
    """Read a normal-play fleet trace: each root child's CPU (the helper's that proved it,
    else the main search's stretches in it; the main's for its own child) and the run's
    figures."""
    run: Mapping[str, Any] = {}
    helper_work: dict[int, float] = {}
    main_work: dict[int, float] = {}
    tasks_cpu = main_total = 0.0
    done_visits = 0
    first_take = math.inf
    main_wall: list[tuple[float, float, float, float]] = []
    costs: dict[str, Any] = {"dispatch": [], "sharing": [], "sync": []}
    top = -1
    for r in records:
        kind = r.get("kind")
        if kind == "run":
            run = r
        elif kind == "task":
            cpu = float(r["c1"]) - float(r["c0"])
            tasks_cpu += cpu
            top = max(top, int(r["index"]))
            if r.get("end") == "done" and int(r["index"]) >= 0:
                helper_work[int(r["index"])] = cpu
                done_visits += int(r.get("visits", 0))
            first_take = min(first_take, float(r["w0"]))
        elif kind == "main":
            cpu = float(r["c1"]) - float(r["c0"])
            main_total += cpu
            main_work[int(r["index"])] = main_work.get(int(r["index"]), 0.0) + cpu
            top = max(top, int(r["index"]))
            main_wall.append((float(r["w0"]), float(r["w1"]), float(r["c0"]), float(r["c1"])))
        elif kind == "costs":
            for name in ("dispatch", "sharing", "sync"):
                costs[name].extend(r.get(name, ()))
        elif kind in ("server", "hub", "bench"):
            costs[str(kind)] = {k: v for k, v in r.items() if k != "kind"}
    work = {i: c for i, c in main_work.items() if i >= 0}
    # a child a helper proved cost what the helper spent; but a helper that proved the main
    # search's own child (the last) joined it last (FleetHub.take): it cost the main's CPU
    work.update({i: c for i, c in helper_work.items() if i != top or i not in work})
    start = main_wall[0][2] if main_wall else 0.0
    helper_start = 0.0
    for w0, w1, c0, c1 in main_wall:  # the main's CPU clock when the first take happened
        if w0 <= first_take:
            frac = 0.0 if w1 <= w0 else min(1.0, (first_take - w0) / (w1 - w0))
            helper_start = c0 + frac * (c1 - c0) - start
    return TraceTasks(
        children=top + 1,
        work=work,
        root_cpu=main_work.get(-1, 0.0),
        visits=int(run.get("visits", 0)),
        cpu=tasks_cpu + main_total,
        main_cpu=main_total,
        helper_start=max(0.0, helper_start) if math.isfinite(first_take) else 0.0,
        workers=int(run.get("workers", 1)),
        visits_done=int(run.get("main_visits", 0)) + done_visits,
        cpu_done=main_total + sum(helper_work.values()),
        costs=costs,
    )


@dataclass
class FleetReplay:
    """A fleet trace replayed on P solvers: makespan (main search CPU) and visits."""

    workers: int
    makespan: float
    visits: float
    cpu: float  # every solver's CPU on the search (the trace's work and what was duplicated)
    duplicate_cpu: float  # of it, work a solver did that another's proof made useless


def replay_fleet(
    tasks: TraceTasks,
    workers: int,
    *,
    delay: float = 0.0,
    start: float | None = None,
    join: float = 0.0,
) -> FleetReplay:
    """Replay `tasks` as the fleet runs them on `workers` solvers (the main search and
    workers - 1 helpers): helpers take root children from the far end of the main's order
    (busy_marks.helpers_order), the main search its kept child first, then its order. A
    helper with no child left joins the main search's child once no other helper holds one
    (FleetHub.take: so one at a time, and last), speeding it by `join` (0: all its work
    duplicates the main's). When every child left is held, the main searches one of them
    too until it is known done (`delay` after its helper ends). CPU terms throughout."""
    n = tasks.children
    work = [tasks.work.get(i, 0.0) for i in range(n)]
    queue = [*reversed(range(n - 1)), *([n - 1] if n else [])]
    main_order = [*([n - 1] if n else []), *range(n - 1)]
    first = tasks.helper_start if start is None else start
    claimed: set[int] = set()
    known: dict[int, float] = {}  # child a helper proved -> when the main knows it
    free = {h: first for h in range(1, workers)}  # helper -> when it is free next
    spent = 0.0  # helpers' CPU on children, and joining
    duplicate = 0.0
    now = tasks.root_cpu

    def helpers_until(t: float) -> None:
        """Free helpers take unclaimed children until time t."""
        nonlocal spent
        while True:
            ready = [(at, h) for h, at in free.items() if at <= t]
            child = next((c for c in queue if c not in claimed), None)
            if not ready or child is None:
                return
            at, h = min(ready)
            claimed.add(child)
            free[h] = at + work[child]
            spent += work[child]
            known[child] = free[h] + delay

    for child in main_order:
        helpers_until(now)
        if child in claimed:
            continue
        claimed.add(child)
        remaining = work[child]
        while remaining > 1e-12:  # an idle helper joins once all are idle (see above)
            helpers_until(now)
            later = [at for at in free.values() if at > now]  # helpers on children
            idle = [] if later else [h for h, at in free.items() if at <= now][:1]
            speed = 1.0 + join * len(idle)
            step = remaining / speed
            if later and min(later) < now + step:
                step = min(later) - now
            for h in idle:
                free[h] = now + step
            spent += len(idle) * step
            duplicate += (1.0 - join) * len(idle) * step
            remaining -= speed * step
            now += step
    helpers_until(now)
    for child in sorted(known, key=known.__getitem__):  # the main waits on held children
        if known[child] > now:
            duplicate += known[child] - now  # searching them meanwhile
            now = known[child]
    cpu = tasks.root_cpu + sum(work) + duplicate  # each child once, and what was duplicated
    rate = tasks.visits_done / tasks.cpu_done if tasks.cpu_done else 0.0
    return FleetReplay(workers, now, cpu * rate, cpu, duplicate)


# ------------------------------------------------------------------ the task graph's replay


@dataclass
class GraphReplay:
    """A task graph on P workers with costs: makespan, speed-up, and the server's load."""

    workers: int
    makespan: float
    serial: float  # the graph's work on one worker, no costs
    speedup: float
    server_busy: float  # fraction of the makespan the busiest server shard worked
    server_wait: float  # mean seconds a batch queued at the server
    hub_busy: float  # fraction of the makespan the busiest hub worked on takes
    batches: int
    taken_local: int  # tasks a worker went on with from its own finished work
    busy: float  # CPU seconds the workers spent on tasks (the serial work, and reading news)


def scale_graph(
    work: Sequence[float],
    deps: Sequence[Sequence[int]],
    workers: int,
    costs: Costs,
    *,
    rate: float = 1.0,
) -> GraphReplay:
    """Replay tasks (`work` in visits, `deps` what each waits on) on `workers` workers with
    `costs` (see the module doc; wall latencies count `rate` times in CPU terms)."""
    size = len(work)
    cpu = [w * costs.cpu_per_visit for w in work]
    serial = sum(cpu)
    waiters: list[list[int]] = [[] for _ in range(size)]
    waiting = [len(d) for d in deps]
    for task, ds in enumerate(deps):
        for d in ds:
            waiters[d].append(task)
    level = _bottom_levels(cpu, deps, waiters)
    flush, sync = costs.flush * rate, costs.sync * rate
    dispatch, hub_call = costs.dispatch * rate, costs.hub_per_call * rate
    fixed, per_fact = costs.commit_fixed * rate, costs.commit_per_fact * rate
    shards = max(1, costs.shards)
    # events: (time, order, kind, payload)
    events: list[tuple[float, int, str, Any]] = []
    seq = 0

    def push(t: float, kind: str, payload: Any) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(events, (t, seq, kind, payload))

    ready: list[tuple[float, int]] = []  # global: (-level, task), known to all
    local: list[list[int]] = [[] for _ in range(workers)]  # ready from a worker's own work
    taken = bytearray(size)
    done_by = [-1] * size
    finished_at = [0.0] * size
    known_at = [math.inf] * size
    idle: list[int] = list(range(workers))
    phase = [(w * 0.618034 % 1.0) * flush for w in range(workers)]
    open_batch: dict[int, tuple[float, list[int], float]] = {}  # worker -> (send, tasks, facts)
    server_free = [0.0] * shards
    server_work = [0.0] * shards
    waits: list[float] = []
    hubs = max(1, costs.hubs)
    hub_free = [0.0] * hubs
    hub_work = [0.0] * hubs
    batches = local_count = 0
    busy = 0.0
    learn_rate = costs.learn_per_fact * costs.facts_per_visit / max(costs.cpu_per_visit, 1e-12)

    for task in range(size):
        if waiting[task] == 0:
            heapq.heappush(ready, (-level[task], task))

    def start(worker: int, now: float) -> None:
        """Worker `worker` is free at `now`: its own ready work first, else a take."""
        nonlocal local_count
        mine = local[worker]
        while mine:
            task = mine.pop()
            if not taken[task]:
                taken[task] = 1
                local_count += 1
                run(worker, task, now)
                return
        while ready:
            _, task = heapq.heappop(ready)
            if taken[task]:
                continue
            taken[task] = 1
            hub = worker % hubs
            begin = max(now, hub_free[hub])  # a hub answers one call at a time
            hub_free[hub] = begin + hub_call
            hub_work[hub] += hub_call
            run(worker, task, begin + dispatch)
            return
        idle.append(worker)

    # every worker reads every fact the others share: while all are busy, that costs it
    # learn_rate CPU seconds a second per other worker
    slow = 1.0 + learn_rate * max(0, min(workers, size) - 1)

    def run(worker: int, task: int, at: float) -> None:
        nonlocal busy
        busy += cpu[task] * slow
        push(at + cpu[task] * slow, "finish", (worker, task))

    def send_time(worker: int, now: float) -> float:
        """The worker's next batch after `now` (one every `flush` from its phase)."""
        if flush <= 0:
            return now
        k = math.floor((now - phase[worker]) / flush) + 1
        return phase[worker] + k * flush

    for _ in range(min(workers, size)):
        start(idle.pop(0), 0.0)
    makespan = 0.0
    while events:
        now, _, kind, payload = heapq.heappop(events)
        if kind == "finish":
            worker, task = payload
            makespan = max(makespan, now)
            done_by[task], finished_at[task] = worker, now
            facts = work[task] * costs.facts_per_visit
            batch = open_batch.get(worker)
            if batch is None or batch[0] < now:
                when = send_time(worker, now)
                open_batch[worker] = (when, [task], facts)
                push(when, "send", worker)
            else:
                batch[1].append(task)
                open_batch[worker] = (batch[0], batch[1], batch[2] + facts)
            for waiter in waiters[task]:
                waiting[waiter] -= 1
                if waiting[waiter] == 0:
                    _offer(waiter, worker, now, deps, done_by, finished_at, known_at, local)
            start(worker, now)
            _wake(idle, ready, now, start)
        elif kind == "send":
            worker = payload
            when, tasks, facts = open_batch.pop(worker)
            batches += 1
            visible = when
            # a batch's facts go to the shards of their keys: a commit on each (a batch
            # of a few facts reaches a few shards), one shard after another by rotation
            parts = max(1, min(shards, math.ceil(facts)))
            for j in range(parts):
                shard = (worker + batches * parts + j) % shards
                part = facts / parts
                begin = max(when, server_free[shard])
                service = fixed + per_fact * part
                server_free[shard] = begin + service
                server_work[shard] += service
                waits.append(begin - when)
                visible = max(visible, server_free[shard])
            visible += sync / 2 + dispatch  # the others meet the news at their next sync
            push(visible, "known", tasks)
        elif kind == "known":
            for task in payload:
                known_at[task] = min(known_at[task], now)
                for waiter in waiters[task]:
                    if waiting[waiter] or taken[waiter]:
                        continue
                    # the solvers that proved what the others do not know yet
                    unknown = {done_by[d] for d in deps[waiter] if known_at[d] > now}
                    if not unknown:
                        heapq.heappush(ready, (-level[waiter], waiter))
                    elif len(unknown) == 1:  # that solver knows it all: its own work
                        (owner,) = unknown
                        local[owner].append(waiter)
                        if owner in idle:
                            idle.remove(owner)
                            start(owner, now)
            _wake(idle, ready, now, start)
    makespan = max(makespan, 1e-12)
    return GraphReplay(
        workers=workers,
        makespan=makespan,
        serial=serial,
        speedup=serial / makespan,
        server_busy=max(server_work) / makespan,
        server_wait=sum(waits) / len(waits) if waits else 0.0,
        hub_busy=max(hub_work) / makespan,
        batches=batches,
        taken_local=local_count,
        busy=busy,
    )


def _offer(
    task: int,
    worker: int,
    now: float,
    deps: Sequence[Sequence[int]],
    done_by: Sequence[int],
    finished_at: Sequence[float],
    known_at: Sequence[float],
    local: list[list[int]],
) -> None:
    """Every wait of `task` is over: the worker that ended the last one goes on with it
    if it knows all the others' facts already (its own, or shared by now)."""
    if all(done_by[d] == worker or known_at[d] <= now for d in deps[task]):
        local[worker].append(task)


def _wake(idle: list[int], ready: list[tuple[float, int]], now: float, start: Any) -> None:
    """Idle workers take what became ready to all."""
    while idle and ready:
        start(idle.pop(), now)


def _bottom_levels(
    cpu: Sequence[float], deps: Sequence[Sequence[int]], waiters: Sequence[Sequence[int]]
) -> list[float]:
    """Each task's work plus the longest chain of tasks waiting on it (the priority)."""
    size = len(cpu)
    pending = [len(w) for w in waiters]
    level = list(cpu)
    stack = [t for t in range(size) if pending[t] == 0]
    while stack:
        task = stack.pop()
        for d in deps[task]:
            level[d] = max(level[d], cpu[d] + level[task])
            pending[d] -= 1
            if pending[d] == 0:
                stack.append(d)
    return level


def hub_load(costs: Costs, workers: int) -> float:
    """The hub's utilisation by syncs with `workers` busy: each calls once a `sync`, and
    the reply relays to it every fact the others shared since (the hub's cost per fact
    relayed is `learn_per_fact`, the same pickling the solver's reading pays)."""
    facts_per_second = costs.facts_per_visit / max(costs.cpu_per_visit, 1e-12)
    calls = workers / costs.sync
    relayed = workers * (workers - 1) * facts_per_second
    return calls * costs.hub_per_call + relayed * costs.learn_per_fact


def server_saturation(costs: Costs) -> float:
    """Workers at which one server (each shard) is busy all the time: every worker sends a
    batch each `flush` seconds and `facts_per_visit / cpu_per_visit` facts a CPU second."""
    per_worker = (
        costs.commit_fixed / costs.flush
        + costs.commit_per_fact
        * costs.facts_per_visit
        / max(costs.cpu_per_visit, 1e-12)
        / max(1, costs.shards)
    )
    return math.inf if per_worker <= 0 else 1.0 / per_worker
