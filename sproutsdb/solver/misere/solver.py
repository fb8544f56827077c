"""Misère-play solver over nodes (position part, 0/1 part, RCT multiset), fed by RCTs.

Plambeck-style misère search as in "Misère Sprouts and reduced canonical trees" §4. A node
is a sum of three parts:

* the position part: lands whose RCT is not known (a canonical Sprouts position);
* the 0/1 part: the parity of the *1 summands (*1 + *1 is misère-indistinguishable from 0);
* the RCT part: a multiset of reduced canonical trees other than 0 and *1.

Every land whose RCT is known (from a loaded table, the store, or a server's stream) is
replaced by it; *0 disappears; *1 and the *1 factor of a factored tree G = H + *1
(``Algebra.plus1_of``) go to the 0/1 part. Moves: a Sprouts move in one land, *1 → 0, or
one RCT replaced by one of its children. The node with no part at all is terminal, and a
misère **win** for the player to move.

Node key (the key of the ``misere`` sub-database): the canonical position key (``!`` when
empty), then ``*1`` when the parity is odd, then the sorted content ids of the RCT part;
``solver.misere.keys`` owns that syntax. A plain position's fact sits under its own key.

Only losing nodes are stored (``"L"``), as in the paper's program; winning ones stay in
the in-memory transposition table. The search is df-pn (``search.dfpn``: depth-first
proof-number search) on an explicit stack of coroutines, like the normal solver's, with
children in the move order of ``MisereNodes.size``, store reads batched per expansion and writes
batched through a write-behind buffer (an interrupted run keeps what it flushed).

With ``resume`` slots, a search also leaves where it stood (``search.resume``'s misère
record: df-pn numbers of the nodes it can name and the winning nodes, which the store never
holds), saved at each flush interval and when interrupted, so that a rerun after a kill
continues the same search instead of starting another one around the committed losing nodes
(measured on 0*13: a rerun given only the first 10 % of the proof's losing nodes visited
more nodes than a fresh run). A record is a hint: numbers are clamped so they only steer,
and a winning node it names is used only when the search meets it, and only once
re-derived then from a losing child known by the rules, the table or the store.

The parts: ``misere.nodes`` (the node space: nodes, keys, children, move order),
``misere.rcts`` (where the RCTs of lands come from), ``misere.space`` (df-pn's space over
the nodes: the table of proven nodes, store reads, claims), ``misere.facts`` (the losing
nodes written behind); the run of a call (visits, restarts, committing, resume records)
is ``search.run``'s, shared with the normal-play solver. This module is the solver that
puts them together, and the names callers import from it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from itertools import chain
from typing import Any, Generic, TypeVar, cast

from sproutsdb.solver.misere.assemble import Assembler, MisereScanner, NodeParts, Orderer
from sproutsdb.solver.misere.facts import LosingNodes, MisereConflictError
from sproutsdb.solver.misere.nodes import MisereNodes, Node
from sproutsdb.solver.misere.rcts import (
    NoRcts,
    RctSource,
    StoreRcts,
    TableRcts,
    largest_with_rct,
)
from sproutsdb.solver.misere.reference import brute_force_misere
from sproutsdb.solver.misere.space import MisereSpace
from sproutsdb.solver.ports.game import Game, MemoHolder
from sproutsdb.solver.ports.proofstore import FactKind, ProofStore
from sproutsdb.solver.search.dfpn import BusyMarks, DfpnSearch, RestartSearch, RootShare
from sproutsdb.solver.search.options import FactNews, SolveOptions
from sproutsdb.solver.search.progress import Progress
from sproutsdb.solver.search.resume import (
    MisereState,
    ResumeSlots,
    decode_misere_state,
    encode_misere_state,
)
from sproutsdb.solver.search.run import SearchRun

__all__ = [
    "MisereConflictError",
    "MisereSolver",
    "NoRcts",
    "Node",
    "NodeParts",
    "Progress",
    "RctSource",
    "StoreRcts",
    "TableRcts",
    "brute_force_misere",
    "largest_with_rct",
]

DEFAULT_CHILDREN_CACHE = 1 << 15  # lands whose moves the misère search memoises (LandMoves)
# Nodes whose children lists (~12 kB each at 0*15) are kept for re-visits: 2¹² instead of
# 2¹³ re-expands 2 % more nodes at 0*14 (~0.5 % of its CPU), for half of ~100 MB.
DEFAULT_NODE_CACHE = 1 << 12
# Keys found missing in the store, remembered by hash so that none is asked twice, cleared
# at 2¹⁸ (~18 MB). As strings, up to the table capacity, they were the largest holder of
# 0*15 (4.2 M keys, ~440 MB, before the first clear); a clear only costs store reads of
# keys asked again, which find nothing in a lone search.
ASKED_CAPACITY = 1 << 18
# Lands whose RCT (or its absence) the search remembers, cleared when full (the source is
# asked again, a dict lookup for a table): 0*15 met 1.5 M distinct lands, ~140 MB kept.
LAND_RCT_CAPACITY = 1 << 17
DEFAULT_TABLE_CAPACITY = 1 << 22  # proven nodes kept in memory before the table is cleared
# A search that is the only writer of a local store reads all its misère facts once, up to
# this many (and half its table's capacity), instead of asking about every new child: those
# reads and the filter of their keys were 16 % of a live 0*20's CPU (95 k losing nodes).
# (Another process writing the same store meanwhile is not met: `--jobs` is how solvers of
# one store share, and it keeps asking.)
READ_ALL_LIMIT = 1 << 20
# A root of this many lives or more (0*18 and up, and 0*18's options, which its --jobs
# helpers take as roots: millions of visits, tables of GBs) lets the game keep
# MISERE_LARGE_MEMO canonical forms (ports.game.MemoHolder; Sprouts: the C core's memo,
# ~180 bytes a form): its children of new lands, half of a live 0*20's CPU, were three
# parts in four canonical searches of lands the default 2¹⁶ had forgotten.
# Paired on 0*18.1a1a (0*20's last open option), 400 s wall each beside a third process:
# 2¹⁶ 1,327 visits per CPU s, 391 MB peak; 2²¹ 1,434 (+8 %), 628 MB (1.1 M forms kept).
MISERE_LARGE_ROOT_LIVES = 53
MISERE_LARGE_MEMO = 1 << 21
# Such a root's search also memoises the moves of this many lands (unless asked for a size):
# over the first 10⁶ visits of 0*15.AB|0*2.AB (0*18's losing option), paired on an idle
# machine, 2¹⁵ / 2¹⁷ lands made 261,572 / 179,696 calls of the game's children of a land,
# 341.7 / 324.5 CPU s (-5.0 %), 627 / 895 MB peak; 2¹⁸ 175,569 calls, ~140 MB more.
MISERE_LARGE_CHILDREN_CACHE = 1 << 17
RESUME_PREFIX = "misere "  # a misère record's slot: never a normal-play record's name
MAX_RESUMED_LANDS = 1 << 16  # lands a record names for their RCTs: more is not ours


T = TypeVar("T")


class Forwarded(Generic[T]):
    """An attribute of one of the solver's parts, read and set through the solver: the
    names tests, benches and callers reach (``solver._table``, ``solver.table_clears``)
    from before the parts were split off, each kept where it was."""

    def __init__(self, part: str, name: str) -> None:
        self._part, self._name = part, name

    def __get__(self, solver: object, owner: type | None = None) -> T:
        return cast(T, getattr(getattr(solver, self._part), self._name))

    def __set__(self, solver: object, value: T) -> None:
        setattr(getattr(solver, self._part), self._name, value)


class MisereSolver(SearchRun):
    """Proves misère outcomes of positions of a splittable game, storing losing nodes.

    Trust model, as for the normal solver: facts read from the store are taken as proven,
    except the root's, which is proven again (a different stored outcome raises
    ``MisereConflictError``) unless ``options.reprove_roots`` is off. RCTs come from ``rcts`` (default: none), whose records were
    re-derived when loaded.

    With ``share_seconds`` (other solvers, e.g. the helpers of ``solve --jobs``, write the
    same store), every that many seconds this search meets their facts: with ``news`` (the
    keys each solver puts), it reads those; without, the keys found missing are asked
    again (the cached children lists when next used, and at once the nodes on the search's
    path and their children). A node on the path or a child of it found decided restarts
    the search from its root.

    With ``resume``, each call keeps a resume record of its root (see the module's text),
    takes it up when it starts and discards it when it ends with an answer.
    """

    _RECORD_FIRST = True  # see `_record`

    # the parts' names as they were the solver's own (see Forwarded)
    table_clears: Forwarded[int] = Forwarded("_space", "table_clears")
    resumed_wins: Forwarded[int] = Forwarded("_space", "resumed_wins")
    _table: Forwarded[dict[str, bool]] = Forwarded("_space", "table")
    _claims: Forwarded[set[str]] = Forwarded("_space", "claims")
    _decided: Forwarded[Any] = Forwarded("_space", "decided")
    _order: Forwarded[Orderer] = Forwarded("_space", "order")
    _scan_twin: Forwarded[MisereScanner | None] = Forwarded("_space", "scan_twin")
    _make: Forwarded[Any] = Forwarded("_nodes", "make")
    _sized_children: Forwarded[Any] = Forwarded("_nodes", "sized_children")
    _size: Forwarded[Any] = Forwarded("_nodes", "size")
    _static: Forwarded[Any] = Forwarded("_nodes", "static")
    _assemble: Forwarded[Assembler] = Forwarded("_nodes", "assemble")
    _moves_capacity: Forwarded[int] = Forwarded("_nodes", "moves_capacity")
    _land_rct: Forwarded[dict[str, int | None]] = Forwarded("_nodes", "land_rct")

    def __init__(
        self,
        game: Game,
        store: ProofStore,
        rcts: RctSource | None = None,
        *,
        options: SolveOptions = SolveOptions(),
        node_cache: int = DEFAULT_NODE_CACHE,
        epsilon: float = 0.25,
        delta_divisor: int = 2,
        share_seconds: float | None = None,
        resume: ResumeSlots | None = None,
        busy: BusyMarks | None = None,
        root_share: RootShare[NodeParts] | None = None,
        news: FactNews | None = None,
    ) -> None:
        table_capacity = (
            DEFAULT_TABLE_CAPACITY if options.table_capacity is None else options.table_capacity
        )
        if table_capacity < 1:
            raise ValueError("table_capacity must be at least 1")
        if delta_divisor < 1:
            raise ValueError("delta_divisor must be at least 1")
        if share_seconds is not None and not share_seconds > 0:
            raise ValueError("share_seconds must be positive")
        super().__init__(options, share_seconds, resume)
        self.game = game
        self.store = store
        self.rcts: RctSource = NoRcts() if rcts is None else rcts
        self.algebra = self.rcts.algebra
        self._nodes = MisereNodes(
            game,
            self.rcts,
            moves_capacity=(
                DEFAULT_CHILDREN_CACHE if options.children_cache is None else options.children_cache
            ),
            land_rct_capacity=LAND_RCT_CAPACITY,
        )
        self._moves_capacity_asked = options.children_cache is not None
        # The keys the other solvers of the store put (`solve --jobs`): with them, this
        # search reads the store whole once and then only what they name (`_meet_news`).
        self._news = news
        self._facts: LosingNodes = LosingNodes(
            store,
            batch_size=options.batch_size,
            flush_seconds=options.flush_seconds,
            on_put=news.published if news is not None else None,
        )
        self._table_capacity = table_capacity
        self._space = MisereSpace(
            self._nodes,
            store,
            self._facts,
            self._stats,
            visit=self._visit,
            commit_due=self._commit_due,
            table_capacity=table_capacity,
            asked_capacity=min(table_capacity, ASKED_CAPACITY),
            node_cache=node_cache,
            delta_divisor=delta_divisor,
        )
        # proof numbers by key hash (see DfpnSearch): their key strings were ~100 bytes of
        # each of the ~0.4 entries a visit adds, the largest holder still growing (issue 28)
        self._dfpn: DfpnSearch[NodeParts] = DfpnSearch(
            self._space,
            epsilon=epsilon,
            capacity=table_capacity,
            share=root_share,
            busy=busy,
            hashed=True,
        )

    # ----------------------------------------------------------------- public API

    def outcome(self, key: str) -> str:
        """Misère outcome of a position: "L" if the player to move loses, else "W"."""
        return self.node_outcome(self.node(key))

    def node_outcome(self, node: NodeParts) -> str:
        """Misère outcome of a node."""
        return "L" if self._call(node) else "W"

    def outcome_plus_nim(self, key: str, g: int) -> str:
        """Misère outcome of the position + *g."""
        return self.node_outcome(self.add_nim(self.node(key), g))

    def grundy(self, key: str, limit: int = 64) -> int:
        """The misère Grundy value as the issue defines it: the least g with P + *g a loss.

        ValueError if no g ≤ limit works.
        """
        node = self.node(key)
        for g in range(limit + 1):
            if self._call(self.add_nim(node, g)):
                return g
        raise ValueError(f"no g ≤ {limit} makes {key} + *g a misère loss")

    def ordered_children(self, node: NodeParts) -> list[Node]:
        """The distinct children of a node in the order the search first tries them."""
        return self._nodes.ordered_children(node)

    def node(self, key: str) -> Node:
        """The node of a position (any notation): lands of known RCT replaced."""
        return self._nodes.node(key)

    def add_nim(self, node: NodeParts, g: int) -> Node:
        """node + *g, normalised."""
        return self._nodes.add_nim(node, g)

    def parse_node(self, text: str) -> Node:
        """A node from its key (NotationError if malformed), normalised: its position part
        may be in any notation and hold lands of known RCT."""
        return self._nodes.parse_node(text)

    def key(self, node: NodeParts) -> str:
        """Canonical string of a node (the ``misere`` sub-database key)."""
        return self._nodes.key(node)

    def children(self, node: NodeParts) -> list[Node]:
        """The distinct children of a node."""
        return [Node(*child) for child in self._nodes.children(node).values()]

    def known_outcome(self, node: NodeParts) -> str | None:
        """The outcome if this solver knows it without search (no store access)."""
        value = self._nodes.static(node)
        if value is None:
            value = self._space.table.get(self.key(node))
        return None if value is None else ("L" if value else "W")

    def settled_options(self, key: str) -> list[tuple[str, str | None]]:
        """How far an undecided search of ``key`` got: the root's options in the search's
        order, each "L" (proven losing: the root wins), "W" (one of its children proven
        losing) or None (open), read from this solver's table and the store, no search."""
        return self._settled(self.node(key))

    def proof_size(self, key: str) -> int:
        """Losing nodes a proof of the outcome of ``key`` needs, as the paper's check
        algorithm counts them: from a losing node every child, from a winning node one
        losing child; nodes decided statically (terminal, one RCT, misère Nim) are free.

        Uses what this solver proved (call ``outcome`` first); KeyError if a node on the
        way is not decided in memory (e.g. proven by another run and read from the store
        would be found, a node never searched is not).
        """
        nodes, table = self._nodes, self._space.table
        seen: set[str] = set()
        stack: list[NodeParts] = [self.node(key)]
        count = 0
        while stack:
            node = stack.pop()
            node_key = self.key(node)
            if node_key in seen or nodes.static(node) is not None:
                continue
            seen.add(node_key)
            kids = nodes.children(node)
            if table[node_key]:
                count += 1
                stack.extend(kids.values())
                continue
            for child_key, child in kids.items():
                if nodes.static(child) is True or table.get(child_key) is True:
                    stack.append(child)
                    break
            else:
                raise KeyError(f"no losing child of the winning node {node_key!r} is known")
        return count

    # ----------------------------------------------------------------- settled options

    def _settled(self, root: NodeParts) -> list[tuple[str, str | None]]:
        """``settled_options`` of a node (a few ms at 0*21: the options' children are
        those the search keeps)."""
        options = {self.key(child): child for child in self.ordered_children(root)}
        losing = self._losing_now(options)
        settled: list[tuple[str, str | None]] = []
        for option_key, option in options.items():
            if option_key in losing:
                settled.append((option_key, "L"))
            elif self._space.known(option, option_key) is False or self._losing_now(
                self._nodes.children(option)
            ):
                settled.append((option_key, "W"))
            else:
                settled.append((option_key, None))
        return settled

    def _losing_now(self, nodes: Mapping[str, NodeParts]) -> set[str]:
        """The keys of ``nodes`` known losing now: by the rules, in the table, or in the
        store, read afresh (another process may have stored them since they were asked)."""
        losing: set[str] = set()
        unknown: list[str] = []
        for node_key, node in nodes.items():
            value = self._space.known(node, node_key)
            if value:
                losing.add(node_key)
            elif value is None:
                unknown.append(node_key)
        if unknown:
            found = self.store.get(FactKind.MISERE, unknown)
            losing.update(node_key for node_key, value in found.items() if value == "L")
        return losing

    # ----------------------------------------------------------------- the call

    def _call(self, root: NodeParts) -> bool:
        started = time.perf_counter()
        self._meter.start(self._stats.nodes)
        self._headway.start(lambda: self._settled(root))
        value = self._nodes.static(root)
        if value is not None:
            return value
        root_key = self.key(root)
        space = self._space
        # The store's only writer, or one told every key the others put: read it whole
        if self._share_seconds is None or self._news is not None:
            space.read_store(min(READ_ALL_LIMIT, self._table_capacity // 2))
        self._grow_caches_for(root)
        if self._reprove_roots:
            space.root = root_key
            space.asked.discard(hash(root_key))
            space.table.pop(root_key, None)
        else:
            space.fetch([root_key])  # a stored root is taken as proven, like any node
        with self._call_frame(started) as frame:
            known = space.table.get(root_key)
            if known is not None:
                frame.finished = True
                return known
            self._resume_from(root, root_key)
            dfpn = self._dfpn
            losing = self._restarting(lambda: self._drive(dfpn.solve(root, root_key)) is True)
            frame.finished = True
            if not losing and self._reprove_roots:
                stored = self.store.get(FactKind.MISERE, [root_key]).get(root_key)
                if stored is not None and stored != "W":
                    raise MisereConflictError(
                        f"conflict on misère node {root_key!r}: the store says {stored!r}, "
                        "this search proved 'W'"
                    )
            return losing

    def _end_call(self) -> None:
        self._space.root = ""

    def _grow_caches_for(self, root: NodeParts) -> None:
        """A large root's search keeps more canonical forms, if the game can, and the moves
        of more lands, unless a size was asked."""
        if self._nodes.lives(root[0]) < MISERE_LARGE_ROOT_LIVES:
            return
        if isinstance(self.game, MemoHolder):
            self.game.reserve_memo(MISERE_LARGE_MEMO)
        if not self._moves_capacity_asked:
            nodes = self._nodes
            nodes.moves_capacity = max(nodes.moves_capacity, MISERE_LARGE_CHILDREN_CACHE)

    # ----------------------------------------------------------------- other solvers

    def _share(self) -> None:
        """Meet the other solvers' facts: flush ours, forget which keys the store lacked
        (cached children lists ask again when next used) and ask now about the nodes on
        the path and their children; RestartSearch if one of them was decided meanwhile."""
        self.flush()
        if self._news is not None:
            self._meet_news(self._news.news())
            return
        space = self._space
        space.forget_asked()
        path = self._dfpn.in_flight
        wanted = [key for key, _ in path[1:] if key not in space.table]
        for _, children in path:
            wanted.extend(space.open_keys(children))
        before = len(space.table)
        space.fetch(wanted)
        if len(space.table) > before:
            raise RestartSearch

    def _meet_news(self, keys: list[str]) -> None:
        """Read the nodes the other solvers stored (their news) into the table, never the
        root being proven; RestartSearch if one is on the search's path or a child of it."""
        found = self._space.read_news(keys)
        if not found:
            return
        path = self._dfpn.in_flight
        if any(key in found for key, _ in path[1:]) or any(
            key in found for _, children in path for key, _, _ in children
        ):
            raise RestartSearch

    # ----------------------------------------------------------------- resume records

    def _resume_from(self, root: NodeParts, root_key: str) -> None:
        """Take up the record an interrupted search of ``root`` left: its df-pn numbers
        (clamped: they only steer) and its winning nodes, each re-derived first. The
        call's record is due at once: the first visit saves and flushes, and from then on
        each flush by time falls due with a save, so a kill finds the record of the last
        flush beside it."""

        def take_up(data: bytes) -> None:
            state = decode_misere_state(root_key, data)
            if state is not None:
                self._take_up(state, root)

        self._resume_at(RESUME_PREFIX + root_key, root_key, take_up, 0.0)

    def _take_up(self, state: MisereState, root: NodeParts) -> None:
        """Install a decoded record: numbers as they are, winning nodes as claims to check
        when met (`MisereSpace.decided`), both within the tables' bounds."""
        dfpn, space, nodes = self._dfpn, self._space, self._nodes
        room = max(dfpn.capacity - len(dfpn.numbers), 0)
        for count, (key, pair) in enumerate(state.numbers.items()):
            if count >= room:
                break
            dfpn.seed(key, pair)
        self._stats.resumed_numbers += min(len(state.numbers), room)
        # the trees the keys name, learnt from their lands through this run's own source
        lives, root_lives = nodes.measure.lives, nodes.lives(root[0])
        # (as written: a text that is not a canonical land is one no search asks about)
        lands = [x for x in state.lands[:MAX_RESUMED_LANDS] if lives(x) <= root_lives]
        with contextlib.suppress(ValueError):  # a source refusing a text: only hints lost
            nodes.rct_of(lands)
        room = max(self._table_capacity // 2 - len(space.table), 0)
        # (a claim is met by its exact key: one not written as the search writes keys,
        # the root's among them, is never met)
        space.claims = set(state.wins[:room])
        space.claims.discard(self.key(root))

    def _record(self) -> bytes:
        """The search state: the df-pn numbers as the table holds them, of the nodes it can
        name (`_named_numbers`; those of the nodes in flight as they were when last left:
        updated from their children, they sent the rerun of 0*13 stopped at 10 % down
        another path, 19 940 visits against 15 646) and the winning nodes.

        Saved before the facts are committed: a kill between the two leaves numbers a
        little ahead of the facts (the rerun proves the last batch again where they lead
        it) rather than facts ahead of the numbers, which move df-pn's path (see the
        module's text)."""
        space = self._space
        wins = [key for key, losing in space.table.items() if not losing]
        wins.extend(space.claims)  # not met yet: still claims for the next rerun
        lands = self._nodes.land_of.values()  # one land of each tree known as a land's RCT
        root = cast(str, self._resume_root)
        return encode_misere_state(root, self._named_numbers(), wins, lands)

    def _named_numbers(self) -> dict[str, tuple[int, int]]:
        """The df-pn numbers of the nodes the search can still name, for its record: those
        of the nodes in flight and of the children lists kept (the table keys numbers by
        hash; the nodes it holds numbers of beyond those are left out of the record)."""
        numbers_of = self._dfpn.numbers_of
        out: dict[str, tuple[int, int]] = {}
        lists = chain(self._dfpn.in_flight, self._space.expanded.items())
        for key, children in lists:
            for name in chain((key,), (child_key for child_key, _, _ in children)):
                if name not in out and (pair := numbers_of(name)) is not None:
                    out[name] = pair
        return out
