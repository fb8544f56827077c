"""A work model of a df-pn solve: what it could hand out, and how fast P workers could go.

`install` puts a recorder into a df-pn solver before it runs (normal play, whose nodes are
couples, or misère, whose nodes have no sub-questions; both are called couples below):
every couple the search enters is a node with its own work (its visits: one per entry, so
the record sums to the solve's visits), its outcome, the children it entered (options
after its expansion, sub-questions of a sum's reduction before it) and the parent it was
first entered from (the first-visit tree). A node needs its sub-questions, and: when
losing, all its options; when winning, one losing option (the cheapest); when never
decided (work a parallel search would still spend), all it entered.

A *division* says which couples are handed out as tasks: each task is a couple with the
part of its first-visit subtree no other task heads. `TaskGraph.of` contracts the record to
those tasks; `work`, `critical_path` and `schedule` give T1, T∞ and the makespan of a
greedy list schedule (longest path first) on P workers, whose speed-up T1/T_P is ≤ P and
≤ T1/T∞ (Brent: T_P ≤ T1/P + T∞). The model is ideal: no cost for handing out, and every
task takes the visits it took in the sequential run.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sproutsdb.solver.search.dfpn import Child, DfpnSearch, Space, Task

N = TypeVar("N")  # a node of the recorded search's space

__all__ = [
    "Division",
    "RecordingSearch",
    "RecordingSpace",
    "TaskGraph",
    "WorkRecord",
    "by_budget",
    "by_depth",
    "by_work",
    "every_couple",
    "install",
    "jobs_split",
    "root_options",
    "speedups",
]


@dataclass
class WorkRecord:
    """What a solve entered, per couple (ids in order of first entry, parents first)."""

    keys: list[str] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    losing: list[bool | None] = field(default_factory=list)
    options: list[set[int]] = field(default_factory=list)
    subs: list[set[int]] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)  # first-visit parent, -1 for a root
    depth: list[int] = field(default_factory=list)
    first: list[int] = field(default_factory=list)  # visits of the solve before its first entry
    trace: array[int] = field(default_factory=lambda: array("I"))  # the node of each visit
    roots: list[int] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    # the frames being searched: [node id, expanded yet]
    _stack: list[list[Any]] = field(default_factory=list)
    _clock: int = 0

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def total(self) -> int:
        """T1: every visit of the solve."""
        return sum(self.visits)

    def enter(self, key: str) -> None:
        """The search enters the couple ``key`` (one visit) from the frame on top."""
        stack = self._stack
        top = stack[-1] if stack else None
        node = self.index.get(key)
        if node is None:
            node = len(self.keys)
            self.index[key] = node
            self.keys.append(key)
            self.visits.append(0)
            self.losing.append(None)
            self.options.append(set())
            self.subs.append(set())
            self.parent.append(-1 if top is None else top[0])
            self.depth.append(0 if top is None else self.depth[top[0]] + 1)
            self.first.append(self._clock)
        if top is None:
            if node not in self.roots:
                self.roots.append(node)
        else:
            (self.options if top[1] else self.subs)[top[0]].add(node)
        self.visits[node] += 1
        self.trace.append(node)
        self._clock += 1
        stack.append([node, False])

    def expanded(self) -> None:
        """The frame on top has its options: what it enters from now on is one of them."""
        if self._stack:
            self._stack[-1][1] = True

    def leave(self, result: bool | None) -> None:
        """The frame on top returns (True: its couple is losing; None: undecided yet)."""
        node = self._stack.pop()[0]
        if result is not None:
            self.losing[node] = result

    def inclusive(self) -> list[int]:
        """Each node's visits with those of its first-visit subtree (a root's sum to T1)."""
        out = list(self.visits)
        for node in range(len(out) - 1, -1, -1):
            parent = self.parent[node]
            if parent >= 0:
                out[parent] += out[node]
        return out

    def owners(self, heads: set[int]) -> list[int]:
        """Each node's task head: itself if a head, else its first-visit parent's."""
        owner = list(range(len(self.keys)))
        parent = self.parent
        for node in range(len(owner)):
            if node not in heads and parent[node] >= 0:
                owner[node] = owner[parent[node]]
        return owner

    def needed(self, inclusive: Sequence[int]) -> list[list[int]]:
        """For each node, the nodes whose results it waits on (see the module doc)."""
        out: list[list[int]] = []
        for node in range(len(self.keys)):
            wanted = list(self.subs[node])
            options = self.options[node]
            if self.losing[node] is False:
                proofs = [child for child in options if self.losing[child] is True]
                if proofs:
                    wanted.append(min(proofs, key=lambda child: (inclusive[child], child)))
            else:
                wanted.extend(options)
            out.append(wanted)
        return out


class RecordingSearch(DfpnSearch[N]):
    """df-pn that tells a `WorkRecord` each node it enters and leaves (any space: a
    normal solve's couples, a misère solve's nodes)."""

    def __init__(self, space: Space[N], record: WorkRecord, **kwargs: Any) -> None:
        super().__init__(space, **kwargs)
        self.work_record = record

    def _mid(self, node: N, key: str, phi_limit: int, delta_limit: int) -> Task:
        record = self.work_record
        record.enter(key)
        result: bool | None = None
        try:
            result = yield from super()._mid(node, key, phi_limit, delta_limit)
        finally:
            record.leave(result)
        return result


class RecordingSpace(Generic[N]):
    """A solver's df-pn space as it is, marking in the record when a frame gets its
    options; the rest (a sum's ``waiting``, misère's compiled ``scan``) is the space's own,
    so the search runs as it would unrecorded."""

    def __init__(self, space: Space[N], record: WorkRecord) -> None:
        self.inner = space
        self.work_record = record
        self.decided: Callable[[N, str], bool | None] = space.decided
        self.record: Callable[[str, bool], None] = space.record
        self.visit: Callable[[], None] = space.visit
        for optional in ("waiting", "scan"):  # what DfpnSearch looks for on its space
            if (found := getattr(space, optional, None)) is not None:
                setattr(self, optional, found)

    def expand(self, node: N, key: str) -> list[Child[N]]:
        children = self.inner.expand(node, key)
        self.work_record.expanded()
        return children


def install(solver: Any, record: WorkRecord) -> None:
    """Put a recorder into a df-pn solver before its first call: a `NormalSolver` with the
    df-pn search or a `MisereSolver`. Its search is replaced by a recording one with the
    same settings, over its own space (wrapped): the solve visits what it would unrecorded."""
    search = getattr(solver, "_dfpn", None)
    if not isinstance(search, DfpnSearch):
        raise ValueError("the work model records df-pn solves only")
    solver._dfpn = RecordingSearch(
        RecordingSpace(search.space, record),
        record,
        epsilon=search.epsilon,
        capacity=search.capacity,
        share=search.share,
        busy=search.busy,
        hashed=search.hashed,
    )


# ---------------------------------------------------------------- divisions

Division = Callable[[WorkRecord, Sequence[int]], set[int]]  # record, inclusive -> task heads


def root_options(record: WorkRecord, _inclusive: Sequence[int]) -> set[int]:
    """Today's `--jobs N`: the root couples and the options of the first one (its
    helpers prove those), each with all of its subtree no other head has."""
    heads = set(record.roots)
    if record.roots:
        heads |= record.options[record.roots[0]]
    return heads


def by_depth(depth: int) -> Division:
    """Every couple first entered at most ``depth`` below a root is handed out."""

    def division(record: WorkRecord, _inclusive: Sequence[int]) -> set[int]:
        return {node for node, d in enumerate(record.depth) if d <= depth}

    return division


def by_work(threshold: int) -> Division:
    """The children of every couple whose first-visit subtree took ≥ ``threshold``
    visits are handed out (so a task is either one such couple or a subtree below it)."""

    def division(record: WorkRecord, inclusive: Sequence[int]) -> set[int]:
        parent = record.parent
        return {
            node
            for node in range(len(record))
            if parent[node] < 0 or inclusive[parent[node]] >= threshold
        }

    return division


def budget_heads(
    record: WorkRecord, heads: set[int], budget: int, depth: int | None = None
) -> set[int]:
    """Replay the solve's visits as workers with a budget would split them: each visit
    counts for the task of its nearest handed-out ancestor (first-visit tree); a task that
    reaches ``budget`` visits hands out all its couple's options (heads at most ``depth``
    below the root split). ``heads`` (and the roots) are handed out from the start."""
    size = len(record)
    parent, level = record.parent, record.depth
    head = bytearray(size)
    for node in heads | set(record.roots):
        head[node] = 1
    kids: list[list[int]] = [[] for _ in range(size)]
    for node, up in enumerate(parent):
        if up >= 0:
            kids[up].append(node)
    spent = [0] * size
    done = bytearray(size)
    for node in record.trace:
        task = node
        while not head[task]:
            task = parent[task]
        spent[task] += 1
        if spent[task] >= budget and not done[task] and (depth is None or level[task] < depth):
            done[task] = 1
            for kid in kids[task]:
                head[kid] = 1
    return {node for node in range(size) if head[node]}


def by_budget(budget: int) -> Division:
    """A task that ran ``budget`` visits hands out its options, as running workers could
    (no hindsight; see `budget_heads`)."""

    def division(record: WorkRecord, _inclusive: Sequence[int]) -> set[int]:
        return budget_heads(record, set(), budget)

    return division


def jobs_split(budget: int, depth: int) -> Division:
    """`solve --jobs N` as built (ops/jobs/parallel_normal.py): the root's options from the
    start; a task that ran ``budget`` visits less than ``depth`` moves below the root hands
    out its options."""

    def division(record: WorkRecord, inclusive: Sequence[int]) -> set[int]:
        return budget_heads(record, root_options(record, inclusive), budget, depth)

    return division


def every_couple(record: WorkRecord, _inclusive: Sequence[int]) -> set[int]:
    """The finest division: every couple is a task of its own visits (the model's limit)."""
    return set(range(len(record)))


# ---------------------------------------------------------------- the task graph


@dataclass
class TaskGraph:
    """Tasks with their work and what each waits on (an acyclic graph)."""

    work: list[int]
    deps: list[list[int]]
    order: list[int]  # a topological order: every task after those it waits on
    dropped: int = 0  # waits that closed a cycle (none expected: the game is acyclic)

    @classmethod
    def of(cls, record: WorkRecord, division: Division) -> TaskGraph:
        """Contract ``record`` to the tasks ``division`` heads (roots always head one).

        A couple that a node of another task waits on heads a task of its own too (it is
        shared through the store: proven once, read by both), so a task waits on heads
        only, which keeps the graph acyclic (the game is)."""
        inclusive = record.inclusive()
        needed = record.needed(inclusive)
        heads = division(record, inclusive) | set(record.roots)
        while True:
            owner = record.owners(heads)
            shared = {
                other
                for node, wanted in enumerate(needed)
                for other in wanted
                if owner[other] != owner[node] and other not in heads
            }
            if not shared:
                break
            heads |= shared
        task_of = {head: task for task, head in enumerate(sorted(heads))}
        work = [0] * len(task_of)
        deps_sets: list[set[int]] = [set() for _ in task_of]
        for node, wanted in enumerate(needed):
            task = task_of[owner[node]]
            work[task] += record.visits[node]
            for other in wanted:
                if owner[other] != owner[node]:
                    deps_sets[task].add(task_of[other])
        graph = cls(work, [sorted(d) for d in deps_sets], [])
        graph._sort()
        return graph

    def _sort(self) -> None:
        """Topological order by depth-first search; a wait that closes a cycle is dropped."""
        state = [0] * len(self.work)  # 0 new, 1 on the path, 2 done
        order: list[int] = []
        for start in range(len(self.work)):
            if state[start]:
                continue
            state[start] = 1
            path: list[tuple[int, int]] = [(start, 0)]
            while path:
                task, at = path[-1]
                deps = self.deps[task]
                if at < len(deps):
                    path[-1] = (task, at + 1)
                    dep = deps[at]
                    if state[dep] == 0:
                        state[dep] = 1
                        path.append((dep, 0))
                    elif state[dep] == 1:
                        deps[at] = -1  # a cycle: this wait is dropped
                        self.dropped += 1
                    continue
                path.pop()
                state[task] = 2
                order.append(task)
        for task, deps in enumerate(self.deps):
            if -1 in deps:
                self.deps[task] = [d for d in deps if d >= 0]
        self.order = order

    @property
    def total(self) -> int:
        """T1."""
        return sum(self.work)

    def finish_times(self) -> list[int]:
        """Each task's earliest finish with unbounded workers."""
        finish = [0] * len(self.work)
        for task in self.order:
            finish[task] = self.work[task] + max((finish[d] for d in self.deps[task]), default=0)
        return finish

    def critical_path(self) -> int:
        """T∞: the longest chain of waits, by work."""
        return max(self.finish_times(), default=0)

    def bottom_levels(self) -> list[int]:
        """Each task's work plus the longest chain of tasks that wait on it."""
        level = list(self.work)
        for task in reversed(self.order):
            for dep in self.deps[task]:
                level[dep] = max(level[dep], self.work[dep] + level[task])
        return level

    def schedule(self, workers: int) -> int:
        """Makespan of a greedy list schedule on ``workers``: whenever one is free it takes
        the ready task with the longest chain after it (Graham: ≤ T1/P + T∞)."""
        if workers < 1:
            raise ValueError("workers must be ≥ 1")
        level = self.bottom_levels()
        waiting = [len(deps) for deps in self.deps]
        waiters: list[list[int]] = [[] for _ in self.work]
        for task, deps in enumerate(self.deps):
            for dep in deps:
                waiters[dep].append(task)
        ready = [(-level[t], t) for t in range(len(self.work)) if waiting[t] == 0]
        heapq.heapify(ready)
        running: list[tuple[int, int]] = []  # (finish time, task)
        now = 0
        while ready or running:
            while ready and len(running) < workers:
                _, task = heapq.heappop(ready)
                heapq.heappush(running, (now + self.work[task], task))
            now, task = heapq.heappop(running)
            finished = [task]
            while running and running[0][0] == now:
                finished.append(heapq.heappop(running)[1])
            for done in finished:
                for waiter in waiters[done]:
                    waiting[waiter] -= 1
                    if waiting[waiter] == 0:
                        heapq.heappush(ready, (-level[waiter], waiter))
        return now


@dataclass(frozen=True)
class Speedups:
    """One division's figures: tasks, T1, T∞, and per P the greedy speed-up and Brent's
    upper bound min(P, T1/T∞)."""

    tasks: int
    total: int
    critical: int
    largest: int
    greedy: dict[int, float]
    bound: dict[int, float]
    dropped: int


def speedups(record: WorkRecord, division: Division, workers: Iterable[int]) -> Speedups:
    """The model's figures for ``division`` of ``record`` on each count of ``workers``."""
    graph = TaskGraph.of(record, division)
    total, critical = graph.total, graph.critical_path()
    greedy: dict[int, float] = {}
    bound: dict[int, float] = {}
    for p in workers:
        greedy[p] = total / max(graph.schedule(p), 1)
        bound[p] = min(float(p), total / max(critical, 1))
    return Speedups(
        len(graph.work), total, critical, max(graph.work, default=0), greedy, bound, graph.dropped
    )
