"""Normal-play solver for any splittable impartial `Game`: outcomes and nimbers by couples.

Lemoine & Viennot, "Nimbers are inevitable", §5. A couple (P, n) stands for P + *n and is
losing iff nimber(P) = n. Algorithm 1 decides a couple of one component from its options
(P', n) and (P, k < n); algorithm 2 reduces a sum to one component by computing the nimbers
of the others and folding them into n; algorithm 3 finds a nimber by trying n = 0, 1, 2, ….
The search is depth-first on an explicit stack of coroutines (no Python recursion), with a
transposition table in memory and the ProofStore behind it. Only losing couples of single
components are stored (`FactKind.NIMBER`: component -> n), as in the paper's program.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable
from typing import TypeVar, cast

from sproutsdb.solver.cgt.nimarith import mex
from sproutsdb.solver.normal.dfpn import CoupleSpace, Levers, couple_key
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import ConflictError, ProofStore
from sproutsdb.solver.search.couples import Couples
from sproutsdb.solver.search.dfpn import BusyMarks, DfpnSearch, RestartSearch, RootShare
from sproutsdb.solver.search.dfpn import Task as DfpnTask
from sproutsdb.solver.search.driver import run_tasks
from sproutsdb.solver.search.facts import NimberConflictError, NimberFacts, StoreFormatError
from sproutsdb.solver.search.measures import ComponentMeasures
from sproutsdb.solver.search.options import FactNews, SolveOptions
from sproutsdb.solver.search.ordering import Option, OrderFn, engine_order, fewest_lives_first
from sproutsdb.solver.search.progress import Progress, ProgressFn, SettledOptions, SolverStats
from sproutsdb.solver.search.resume import ResumeSlots, SearchState, decode_state, encode_state
from sproutsdb.solver.search.run import SearchRun
from sproutsdb.solver.search.table import InconsistentFactError, TranspositionTable

__all__ = [
    "SEARCHES",
    "ComponentMeasures",
    "ConflictError",
    "InconsistentFactError",
    "Levers",
    "NimberConflictError",
    "NormalSolver",
    "Option",
    "OrderFn",
    "Progress",
    "ProgressFn",
    "SolverStats",
    "StoreFormatError",
    "engine_order",
    "fewest_lives_first",
]

# Entries of each in-memory table (nimbers and exclusions; df-pn's proof numbers) before it
# is cleared: about 100-200 bytes each, so the default keeps a solve within a few hundred MB.
DEFAULT_TABLE_CAPACITY = 1 << 19
# Lands whose children ComponentMeasures memoises: 4096 made 3.5 % fewer core calls than
# 2048 at 0*14 for ~4 MB more peak RSS (most lands a solve meets, it meets once).
DEFAULT_CHILDREN_CACHE = 2048
SEARCHES = ("dfs", "dfpn")  # depth-first in move order; proof-number search over couples
# A search reads all the nimbers of a local store at the start of a call, up to this many
# (and half its table's capacity), and then asks the store nothing but the keys the other
# solvers of the store put (`solve --jobs`, `FactNews`): the reads of each expansion's new
# lands were 6.5 % of 0*21's CPU on LMDB (46,507 facts).
READ_ALL_LIMIT = 1 << 18


# A search task is a coroutine: it yields sub-tasks to the driver, is sent their results
# and returns its own (True = "this couple is losing" for couples, the nimber for nimbers).
# With search="dfpn" a couple's task yields a df-pn task, whose result may be None.
Task = Generator["Task | DfpnTask", bool | int | None, bool | int]
Result = TypeVar("Result")


class NormalSolver(SearchRun):
    """Proves normal-play outcomes and nimbers of positions of `game`, storing nimbers.

    Trust model: nimbers read from the store are taken as proven, except those of the
    components a call is asked about (`reprove_roots`), which are proven again from the
    facts below them; a different stored value then raises `NimberConflictError`. On a
    store that already holds the answer this costs about one level of expansion.
    """

    def __init__(
        self,
        game: Game,
        store: ProofStore,
        *,
        options: SolveOptions = SolveOptions(),
        order: OrderFn = fewest_lives_first,
        search: str = "dfpn",
        share_seconds: float | None = None,
        resume: ResumeSlots | None = None,
        root_share: RootShare[tuple[tuple[str, ...], int]] | None = None,
        news: FactNews | None = None,
        busy: BusyMarks | None = None,
        levers: Levers = Levers(),
    ) -> None:
        super().__init__(options, share_seconds, resume)
        self.game = game
        self._order = order
        self._facts: NimberFacts = NimberFacts(
            store,
            batch_size=options.batch_size,
            flush_seconds=options.flush_seconds,
            on_put=news.published if news is not None else None,
        )
        self._table = TranspositionTable()
        children_cache = options.children_cache
        self._measure = ComponentMeasures(
            game,
            children_capacity=DEFAULT_CHILDREN_CACHE if children_cache is None else children_cache,
        )
        table_capacity = (
            DEFAULT_TABLE_CAPACITY if options.table_capacity is None else options.table_capacity
        )
        # The table, store buffer and measures, shared with the df-pn space through Couples.
        self._couples = Couples(self._table, self._facts, self._measure)
        if search not in SEARCHES:
            raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
        self._table_capacity = table_capacity
        # With other processes writing the same store (`solve --jobs`), the keys `news`
        # names are read again every `share_seconds`; nothing else is dropped, so the
        # search keeps its path (dropping the kept children lists changed its visits by up
        # to 2x either way, by timing alone).
        if share_seconds is not None and news is None:
            raise ValueError("share_seconds needs news: the keys other processes stored")
        self._news = news
        self._space = (
            CoupleSpace(self._couples, nimber=self._nimber_now, visit=self._visit, levers=levers)
            if search == "dfpn"
            else None
        )
        self._dfpn: DfpnSearch[tuple[tuple[str, ...], int]] | None = (
            DfpnSearch(
                self._space,
                epsilon=levers.epsilon,
                capacity=table_capacity,
                share=root_share,
                busy=busy,
            )
            if self._space is not None
            else None
        )

    # ----------------------------------------------------------------- public API

    def nimber(self, key: str) -> int:
        """Nimber of a component (for a sum, the nim-sum of its components' nimbers)."""
        return self.position_nimber(key)

    def position_nimber(self, key: str) -> int:
        """Nim-sum of the nimbers of the position's components (algorithm 3 on each)."""

        def run(components: tuple[str, ...]) -> int:
            rest, total = self._couples.fold(components, 0)
            for component in rest:
                total ^= cast(int, self._drive(self._nimber(component)))
            return total

        return self._call(key, run, "nimber")

    def outcome(self, key: str) -> str:
        """The outcome of a position: "L" if the player to move loses, else "W"."""
        return self.couple_outcome(key, 0)

    def couple_outcome(self, key: str, n: int) -> str:
        """Outcome of the couple (key, n), i.e. of key + *n: "L" iff its nimber is n."""
        if n < 0:
            raise ValueError(f"nim part must be ≥ 0, got {n}")

        def run(components: tuple[str, ...]) -> bool:
            task = self._resolve(components, n)
            return task if isinstance(task, bool) else bool(self._drive(task))

        return "L" if self._call(key, run, f"couple {n}") else "W"

    def known_nimber(self, key: str) -> int | None:
        """The nimber of a component if this solver knows it already (no search, no I/O)."""
        return self._table.nimber(key)

    def settled_options(self, key: str) -> SettledOptions:
        """How far an undecided search of a position of one land got: its options in the
        engine's order, each "L" (proven losing: the position wins), "W" (proven winning:
        a losing child of it is known, or this solver's table says so) or None (open), read
        from the table and the store, no search. ValueError for a sum of lands."""
        components = self.game.components(self.game.canonical(key))
        if len(components) != 1:
            raise ValueError(
                f"the settled options of {key!r} are asked, a sum of {len(components)} lands:"
                " only a position of one land has them"
            )
        return self._settled(components[0])

    def _settled(self, land: str) -> SettledOptions:
        """`settled_options` of one land (its children and theirs, from the LRU or the
        game: a few ms at 0*21 once they are memoised)."""
        couples = self._couples
        children = self._measure.children(land)
        couples.fetch([part for child in children for part in child])
        settled: dict[str, str | None] = {}
        for child in children:
            option = self.game.join(child)
            if option not in settled:
                settled[option] = self._couple_settled(*couples.fold(child, 0))
        return list(settled.items())

    def _couple_settled(self, rest: tuple[str, ...], n: int) -> str | None:
        """The outcome of the couple (rest, n) if the table or the store settles it: "L"
        losing, "W" winning (one of its children known losing), None open or a sum."""
        if not rest:
            return "L" if n == 0 else "W"
        if len(rest) > 1:
            return None
        (part,) = rest
        value = self._table.couple_value(part, n)
        if value is not None:
            return "L" if value else "W"
        return "W" if self._couples.losing_child_known(part, n) else None

    # ----------------------------------------------------------------- call frame

    def _call(self, key: str, run: Callable[[tuple[str, ...]], Result], query: str) -> Result:
        """Canonicalize, mark the roots, resume, run, and always flush and report at the
        end; an interrupted call leaves its search state for a rerun, a finished one not."""
        started = time.perf_counter()
        canonical = self.game.canonical(key)
        components = self.game.components(canonical)
        self._meter.start(self._stats.nodes)
        if self._dfpn is not None:
            self._dfpn.in_flight.clear()
        if self._reprove_roots:
            for component in components:
                self._table.forget_stored(component)
            self._couples.roots = frozenset(components)
        with self._call_frame(started) as frame:
            # The store's only writer, or one told every key the others put: read it whole
            self._couples.read_all(self._read_all_limit())
            self._couples.fetch(components)
            root = f"{query} {canonical}"
            self._resume_at(
                root, root, lambda data: self._take_up(decode_state(root, data)), self._resume_every
            )
            if len(components) == 1:
                self._headway.start(lambda: self._settled(components[0]))
            result = self._restarting(lambda: run(components))
            frame.finished = True
            return result

    def _end_call(self) -> None:
        self._couples.roots = frozenset()
        self._couples.forget_all()  # the roots' stored nimbers were not read

    def _share(self) -> None:
        if self._news is not None:
            self._meet_news(self._news.news())

    def _meet_news(self, keys: list[str]) -> None:
        """Read the facts other processes stored (`solve --jobs`); RestartSearch if they decide
        a child of a node on df-pn's path.

        Without it a frame sees such a child only when the search comes back up to it: a
        helper proved the last open root option of 0*14 in 30 s while the main search,
        inside that option, went on alone to 75 s (one run of four)."""
        if not keys:
            return
        space, dfpn = self._space, self._dfpn
        if space is None or dfpn is None:
            self._couples.refresh(keys)
            return
        decided = space.decided
        open_children = [
            (child, key)
            for _, children in dfpn.in_flight
            for key, child, _ in children
            if decided(child, key) is None
        ]
        self._couples.refresh(keys)
        if any(decided(child, key) is not None for child, key in open_children):
            raise RestartSearch

    # ----------------------------------------------------------------- resume records

    def _take_up(self, state: SearchState | None) -> None:
        """Install a decoded record (None: it did not decode): numbers and children lists
        as they are (they steer), winning couples as claims, each used only once it
        re-derives."""
        if state is None:
            return
        if self._dfpn is not None and self._space is not None:
            room = max(self._dfpn.capacity - len(self._dfpn.numbers), 0)
            for count, (couple, numbers) in enumerate(state.numbers.items()):
                if count >= room:
                    break
                self._dfpn.numbers.setdefault(couple, numbers)
            self._stats.resumed_numbers += min(len(state.numbers), room)
            self._space.resume_lists(state.lists, state.lists_size)
        room = max(self._table_capacity // 2 - len(self._table), 0)
        self._table.drop_claims()
        self._couples.take_claims(state.exclusions, limit=room)

    def _record(self) -> bytes:
        """The search state: df-pn's numbers, the winning couples and the kept children
        lists (saved after the facts are committed, beside them)."""
        numbers = self._dfpn.numbers if self._dfpn is not None else {}
        space = self._space
        lists: dict[str, list[tuple[str, int]]] = {}
        if space is not None and self._dfpn is not None:
            # the lists of the nodes in flight first: a full cache may have dropped them
            for key, children in [*self._dfpn.in_flight, *space.expanded_lists.items()]:
                if key not in lists:
                    lists[key] = [(child[0], child[2][1]) for child in children]
        size = space.expanded_size if space is not None else 0
        root = cast(str, self._resume_root)
        return encode_state(root, numbers, self._table.exclusions, lists, size)

    def _record_discarded(self) -> None:
        self._table.drop_claims()

    def _nimber_now(self, component: str) -> int:
        """Algorithm 3 run to its end on a stack of its own (df-pn's reduction of a sum)."""
        return cast(int, run_tasks(self._nimber(component), [], self._stats))

    # ----------------------------------------------------------------- the algorithms

    def _resolve(self, components: Iterable[str], n: int) -> bool | Task:
        """A couple (sum, n): its outcome (True = losing) if known now, else the task for it."""
        rest, m = self._couples.fold(components, n)
        if not rest:
            return m == 0
        if len(rest) == 1:
            if self._table.is_excluded(rest[0], m):
                self._stats.cache_hits += 1
                return False
            return self._couple(rest[0], m)
        return self._sum(rest, m)

    def _sum(self, rest: tuple[str, ...], n: int) -> Task:
        """Algorithm 2: nimbers of all components but the largest, folded into n; then
        algorithm 1 on the couple that is left. Returns True iff (sum, n) is losing."""
        while len(rest) > 1:
            smallest = min(rest, key=self._measure.lives)
            n ^= cast(int, (yield self._nimber(smallest)))
            others = list(rest)
            others.remove(smallest)  # by the value returned: the table may have been cleared
            rest, n = self._couples.fold(others, n)
        if not rest:
            return n == 0
        last = rest[0]
        if self._table.is_excluded(last, n):
            self._stats.cache_hits += 1
            return False
        # a couple's own task answers True/False (only a df-pn task may answer None)
        return cast(bool, (yield self._couple(last, n)))

    def _nimber(self, component: str) -> Task:
        """Algorithm 3: the least n whose couple (component, n) is losing."""
        table = self._table
        self._couples.fetch((component,))
        n = 0
        while True:
            known = table.nimber(component)
            if known is not None:
                return known
            if not table.is_excluded(component, n) and (yield self._couple(component, n)):
                return n
            n += 1

    def _couple(self, component: str, n: int) -> Task:
        """Algorithm 1 on one component: True iff (component, n) is losing (nimber = n).

        Options decided by known nimbers are settled first, without search; if every child
        is fully known the nimber is their mex. The rest are searched in `order`, then the
        nim-part options (component, k < n) in increasing k.
        """
        table = self._table
        known = table.nimber(component)
        if known is not None:
            return known == n
        if self._dfpn is not None:
            if table.is_excluded(component, n):
                return False
            return bool((yield self._dfpn.solve(((component,), n), couple_key((component,), n))))
        self._visit()
        children = self._measure.children(component)
        self._couples.fetch([part for child in children for part in child])
        values: set[int] = set()
        complete = True
        unknown: list[Option] = []
        for child in children:
            rest, value = self._couples.fold(child, 0)
            if not rest:
                if value == n:
                    self._stats.cache_hits += 1
                    table.exclude(component, n)
                    return False
                values.add(value)
                continue
            complete = False
            m = value ^ n
            if len(rest) == 1 and table.is_excluded(rest[0], m):
                self._stats.cache_hits += 1
                continue
            unknown.append(Option(rest, m))
        if complete:
            nimber = mex(values)
            self._couples.prove(component, nimber)
            return nimber == n
        for option in self._order(unknown, self._measure):
            known_or_task = self._resolve(option.components, option.nim)
            if isinstance(known_or_task, bool):
                losing = known_or_task
            else:
                losing = bool((yield known_or_task))
            if losing:
                table.exclude(component, n)
                return False
        for k in range(n):
            known = table.nimber(component)
            if known is not None:
                return known == n
            if not table.is_excluded(component, k) and (yield self._couple(component, k)):
                return False  # nimber(component) = k, recorded by the sub-search
        self._couples.prove(component, n)
        return True

    # ----------------------------------------------------------------- helpers

    def _bound_memory(self) -> None:
        """Keep the table within its capacity: everything proven goes to the store first
        (the table is a cache of it), then the table is cleared."""
        if len(self._table) > self._table_capacity:
            self._facts.flush()
            self._table.clear()
            self._stats.table_clears += 1
            if self._facts.complete:  # the store holds every nimber the table had
                self._couples.read_all(self._read_all_limit())

    def _read_all_limit(self) -> int:
        return min(READ_ALL_LIMIT, self._table_capacity // 2)

    def _sync_store_stats(self) -> None:
        super()._sync_store_stats()
        facts, stats = self._facts, self._stats
        stats.store_hits = facts.hits
        stats.store_reads = facts.reads
        stats.resumed_exclusions = self._couples.redeemed
