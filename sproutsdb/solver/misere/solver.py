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
children in the move order of ``_size``, store reads batched per expansion and writes
batched through a write-behind buffer (an interrupted run keeps what it flushed).

With ``resume`` slots, a search also leaves where it stood (``search.resume``'s misère
record: df-pn numbers of the nodes it can name and the winning nodes, which the store never
holds), saved at each flush interval and when interrupted, so that a rerun after a kill
continues the same search instead of starting another one around the committed losing nodes
(measured on 0*13: a rerun given only the first 10 % of the proof's losing nodes visited
more nodes than a fresh run). A record is a hint: numbers are clamped so they only steer,
and a winning node it names is used only when the search meets it, and only once
re-derived then from a losing child known by the rules, the table or the store.
"""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from types import SimpleNamespace
from typing import Any, NamedTuple, Protocol, cast

from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.assemble import (
    ASSEMBLE,
    COMPILED_SCAN,
    ORDER,
    Assembler,
    MisereScanner,
    NodeParts,
    Orderer,
    Size,
)
from sproutsdb.solver.misere.keys import EMPTY_POSITION, PARITY_TOKEN, split_node_key
from sproutsdb.solver.ports.game import Game, MemoHolder
from sproutsdb.solver.ports.proofstore import (
    ConflictError,
    FactKind,
    ListedProofStore,
    ProofStore,
    RctRecord,
)
from sproutsdb.solver.search.dfpn import (
    BusyMarks,
    DfpnSearch,
    RestartSearch,
    RootShare,
    Scan,
    Task,
)
from sproutsdb.solver.search.driver import QuietCollector, run_tasks
from sproutsdb.solver.search.measures import ComponentMeasures
from sproutsdb.solver.search.options import FactNews, SolveOptions
from sproutsdb.solver.search.progress import Progress, RootHeadway, SolverStats
from sproutsdb.solver.search.resume import (
    MisereState,
    ResumeSlots,
    decode_misere_state,
    encode_misere_state,
)

__all__ = [
    "MisereConflictError",
    "MisereSolver",
    "NoRcts",
    "Node",
    "Progress",
    "RctSource",
    "StoreRcts",
    "TableRcts",
    "brute_force_misere",
]

ZERO, ONE = Algebra.ZERO, Algebra.ONE


class Node(NamedTuple):
    """A misère search node; ``rcts`` sorted by content id, never 0 or *1 or H + *1."""

    lands: tuple[str, ...]  # sorted canonical lands of unknown RCT
    parity: int  # 0 or 1: the 0/1 part
    rcts: tuple[int, ...]  # handles in the source's algebra


# The search builds and caches its nodes as plain tuples with Node's fields: NodeParts
# (assemble.py, where children are built, says why); Size is a node's move order.

# What one move in a land adds to a node, folded once per land (a plain tuple, as
# NodeParts): (kept, lives, flip, rcts, nimber, height) = the sorted child lands of unknown
# RCT, their lives, 1 if the *1 parts of the child lands' RCTs are odd, the other RCTs of
# the child lands sorted by content id, their normal-play nim-sum, their total height.
LandMove = tuple[tuple[str, ...], int, int, tuple[int, ...], int, int]

# The moves of a land as the moves LRU keeps them: the moves in the order of the land's
# children, and their lives. A move that only adds one land of unknown RCT (8 in 10 of
# them) is that land's string, not a LandMove: a LandMove and the 1-tuple in it took 136
# bytes a move, 60 % of the LRU's memory (0*14: 465 k of 585 k moves in 16 k lands).
LandMoves = tuple[tuple[str | LandMove, ...], Sequence[int]]


class _Initials(dict[int, tuple[int, int]]):
    """The initial numbers (1, δ) of unseen children, one shared tuple per δ: the cached
    children lists held one each (56 bytes a child, ~15 % of those lists)."""

    def __missing__(self, delta: int) -> tuple[int, int]:
        pair = self[delta] = (1, delta)
        return pair


class MisereConflictError(ConflictError):
    """The store's outcome of a node differs from the one just proven."""


# --------------------------------------------------------------------------- RCT sources


class RctSource(Protocol):
    """Where the solver learns the RCTs of lands: one algebra, batch lookups."""

    algebra: Algebra

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        """Handles of those lands whose RCT is known (absent ones are left out)."""
        ...


def largest_with_rct(source: RctSource) -> int | None:
    """The largest ``game.size`` (Sprouts: lives) of a land the source can have an RCT for,
    when it says (``max_size``: an indexed table); None when any land may have one."""
    largest = getattr(source, "max_size", None)
    return largest if isinstance(largest, int) else None


class NoRcts:
    """No RCT known: every land stays in the position part (the reference behaviour)."""

    def __init__(self, algebra: Algebra | None = None) -> None:
        self.algebra = Algebra() if algebra is None else algebra

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        return {}


class LoadedTable(Protocol):
    """What TableRcts reads of a loaded RCT table (solver/ cannot import tools/ or client/)."""

    @property
    def algebra(self) -> Algebra: ...

    @property
    def positions(self) -> Mapping[str, int]: ...


class TableRcts:
    """RCTs of a loaded table (``formats.rcttable.load_table`` or ``Client.rct_table``)."""

    def __init__(self, table: LoadedTable) -> None:
        self.algebra: Algebra = table.algebra
        self._positions: Mapping[str, int] = table.positions

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        positions = self._positions
        return {land: positions[land] for land in lands if land in positions}

    def rct_id_of(self, position: str) -> str | None:
        """Content id of the RCT of a position of the table, or None if absent."""
        handle = self._positions.get(position)
        return None if handle is None else self.algebra.content_id(handle)

    def __len__(self) -> int:
        return len(self._positions)


class StoreRcts:
    """RCTs read lazily from a store's ``pos_rct`` and ``rct`` facts (a seeded store or a
    server): one ``get`` per batch of new lands, then the records of the trees not in the
    algebra yet, children included, each re-derived when it is loaded."""

    def __init__(self, store: ProofStore, algebra: Algebra | None = None) -> None:
        self.store = store
        self.algebra = Algebra() if algebra is None else algebra
        self._known: dict[str, int | None] = {}
        self.dangling: dict[str, str] = {}  # land -> RCT id it is mapped to, with no record
        self.reads = 0

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        known = self._known
        wanted = sorted({land for land in lands if land not in known})
        if wanted:
            self.reads += 1
            found = self.store.get(FactKind.POS_RCT, wanted)
            ids = {land: str(found[land]) for land in wanted if land in found}
            unbuildable = self._load(set(ids.values()))
            by_cid = self.algebra.table.by_cid
            for land in wanted:
                cid = ids.get(land)
                if cid is not None and cid in unbuildable:
                    self.dangling[land] = cid
                    cid = None
                known[land] = None if cid is None else by_cid[cid]
        out: dict[str, int] = {}
        for land in lands:
            handle = known.get(land)
            if handle is not None:
                out[land] = handle
        return out

    def looked_up(self) -> dict[str, int]:
        """Every land looked up so far that has an RCT, with its handle (a pruned proof
        copies these so it can be checked on its own)."""
        return {land: h for land, h in self._known.items() if h is not None}

    def _load(self, cids: set[str]) -> set[str]:
        """Fetch and intern the records of ``cids`` and of every tree below them; return
        the ids whose tree cannot be built because the store lacks a record in it (the
        lands mapped to them stay positions, and are listed in ``dangling``)."""
        by_cid = self.algebra.table.by_cid
        records: dict[str, RctRecord] = {}
        absent: set[str] = set()
        todo = {cid for cid in cids if cid not in by_cid}
        while todo:
            self.reads += 1
            got = self.store.get(FactKind.RCT, sorted(todo))
            absent |= todo - got.keys()
            todo = set()
            for cid, record in got.items():
                if not isinstance(record, RctRecord):
                    raise MisereConflictError(f"store RCT {cid!r} is {record!r}, not a record")
                records[cid] = record
                below = [*record.children, *([record.plus1_of] if record.plus1_of else [])]
                todo.update(c for c in below if c not in by_cid and c not in records)
        unbuildable = _resting_on(records, absent)
        if unbuildable:
            records = {cid: r for cid, r in records.items() if cid not in unbuildable}
        if records:
            self.algebra.load_records(records)  # RctRecordError if any record is wrong
        return unbuildable


def _resting_on(records: Mapping[str, RctRecord], absent: set[str]) -> set[str]:
    """``absent`` and every record whose tree reaches one of them."""
    bad = set(absent)
    grew = bool(bad)
    while grew:
        grew = False
        for cid, record in records.items():
            if cid not in bad and (
                any(c in bad for c in record.children) or record.plus1_of in bad
            ):
                bad.add(cid)
                grew = True
    return bad


# --------------------------------------------------------------------------- the solver


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
# A resume record is saved at most once per flush interval, and less often when saving it
# costs more than 1/RESUME_COST_SHARE of the time between saves (a large table).
RESUME_COST_SHARE = 50
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


class MisereSolver:
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
        children_cache = (
            DEFAULT_CHILDREN_CACHE if options.children_cache is None else options.children_cache
        )
        table_capacity = (
            DEFAULT_TABLE_CAPACITY if options.table_capacity is None else options.table_capacity
        )
        self._expanded: OrderedDict[str, list[tuple[str, NodeParts, tuple[int, int]]]] = (
            OrderedDict()
        )
        self._expanded_capacity = node_cache
        self._initials = _Initials()
        self._moves: OrderedDict[str, LandMoves] = OrderedDict()
        self._moves_capacity = children_cache
        self._moves_capacity_asked = options.children_cache is not None
        # df-pn's pass over children, compiled when built (else df-pn's own)
        self._scan_twin: MisereScanner | None = COMPILED_SCAN
        space = SimpleNamespace(
            expand=self._expand,
            decided=self._decided,
            record=self._record,
            visit=self._visit,
            scan=None if self._scan_twin is None else self._scan,
        )
        if table_capacity < 1:
            raise ValueError("table_capacity must be at least 1")
        self._table_capacity = table_capacity
        self._asked_capacity = min(table_capacity, ASKED_CAPACITY)
        if delta_divisor < 1:
            raise ValueError("delta_divisor must be at least 1")
        self._delta_divisor = delta_divisor  # df-pn+: a child's δ is 1 + lives // this + RCTs
        self.table_clears = 0  # times the proven winning nodes were dropped (memory bound)
        # proof numbers by key hash (see DfpnSearch): their key strings were ~100 bytes of
        # each of the ~0.4 entries a visit adds, the largest holder still growing (issue 28)
        self._dfpn: DfpnSearch[NodeParts] = DfpnSearch(
            space,
            epsilon=epsilon,
            capacity=table_capacity,
            share=root_share,
            busy=busy,
            hashed=True,
        )
        self.game = game
        self.store = store
        self.rcts: RctSource = NoRcts() if rcts is None else rcts
        self.algebra = self.rcts.algebra
        self._largest_with_rct = largest_with_rct(self.rcts)
        # its children LRU is a pass-through here: _land_moves keeps what the search needs
        self._measure = ComponentMeasures(game, children_capacity=256)
        # a node's children from one land's moves, and in move order: compiled when built
        self._assemble: Assembler = ASSEMBLE
        self._order: Orderer = ORDER
        self._meter = options.meter()
        self._reprove_roots = options.reprove_roots
        self._batch_size = options.batch_size
        self._flush_seconds = options.flush_seconds
        self._table: dict[str, bool] = {}  # node key -> losing?
        # hashes of the keys already looked up in the store: two keys of one hash (about
        # n²/2⁶⁵ at n keys) only make one of them unasked, and the search proves it itself
        self._asked: set[int] = set()
        self._pending: dict[str, str] = {}
        self._last_flush = time.monotonic()
        self._land_rct: dict[str, int | None] = {}  # bounded by LAND_RCT_CAPACITY
        self._land_of: dict[int, str] = {}  # one land of each RCT met (for resume records)
        self._cid: dict[int, str] = {}
        self._rct_moves_of: dict[int, LandMoves] = {}  # an RCT's moves (_rct_moves)
        self._root = ""
        self._stack: list[Task] = []
        self._stats = SolverStats()
        self._collector = QuietCollector()
        self._read_all = False  # every misère fact of the store is in the table (_read_store)
        self._headway = RootHeadway()  # the running call's root options, for progress
        if share_seconds is not None and not share_seconds > 0:
            raise ValueError("share_seconds must be positive")
        self._share_seconds = share_seconds
        self._next_share = time.monotonic() + (share_seconds or 0.0)
        self._stale: set[str] = set()  # cached children lists to ask the store about again
        # The keys the other solvers of the store put (`solve --jobs`): with them, this
        # search reads the store whole once and then only what they name (`_meet_news`).
        self._news = news
        # Where an interrupted call leaves its search state for a rerun (a hint, never a fact).
        self._resume = resume
        self._resume_root: str | None = None  # the root key whose state is saved, while it runs
        self._resume_every = options.flush_seconds
        self._resume_due = 0.0
        self.resumed_wins = 0  # winning nodes of resume records re-derived and used
        # winning nodes a resume record claims, each re-derived when the search meets it:
        # re-deriving 0*18's 2 M claims up front took its rerun 1 050 s before a visit
        self._claims: set[str] = set()

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
        kids = self._sized_children(node)
        ordered = sorted((size, key) for key, (size, _) in kids.items())
        return [Node._make(kids[key][1]) for _, key in ordered]

    def node(self, key: str) -> Node:
        """The node of a position (any notation): lands of known RCT replaced."""
        lands = self.game.components(self.game.canonical(key))
        return Node._make(self._make((), lands, 0, ()))

    def add_nim(self, node: NodeParts, g: int) -> Node:
        """node + *g, normalised."""
        lands, parity, rcts = node
        return Node._make(self._make(lands, (), parity, rcts, (self.algebra.nim(g),)))

    def parse_node(self, text: str) -> Node:
        """A node from its key (NotationError if malformed), normalised: its position part
        may be in any notation and hold lands of known RCT."""
        position, parity, cids = split_node_key(text)
        handles = [self.algebra.handle(cid) for cid in cids]
        lands = self.game.components(self.game.canonical(position))
        return Node._make(self._make((), lands, parity, (), handles))

    def key(self, node: NodeParts) -> str:
        """Canonical string of a node (the ``misere`` sub-database key; the syntax of
        ``misere_keys``, built here directly because the search makes millions)."""
        lands, parity, rcts = node
        head = "+".join(lands) if lands else EMPTY_POSITION
        if not parity and not rcts:
            return head
        parts = [head]
        if parity:
            parts.append(PARITY_TOKEN)
        cid = self._cid
        parts.extend(cid[h] for h in rcts)
        return " ".join(parts)

    def children(self, node: NodeParts) -> list[Node]:
        """The distinct children of a node."""
        return [Node._make(child) for child in self._children(node).values()]

    def known_outcome(self, node: NodeParts) -> str | None:
        """The outcome if this solver knows it without search (no store access)."""
        value = self._static(node)
        if value is None:
            value = self._table.get(self.key(node))
        return None if value is None else ("L" if value else "W")

    def settled_options(self, key: str) -> list[tuple[str, str | None]]:
        """How far an undecided search of ``key`` got: the root's options in the search's
        order, each "L" (proven losing: the root wins), "W" (one of its children proven
        losing) or None (open), read from this solver's table and the store, no search."""
        return self._settled(self.node(key))

    def _settled(self, root: NodeParts) -> list[tuple[str, str | None]]:
        """``settled_options`` of a node (a few ms at 0*21: the options' children are
        those the search keeps)."""
        options = {self.key(child): child for child in self.ordered_children(root)}
        losing = self._losing_now(options)
        settled: list[tuple[str, str | None]] = []
        for option_key, option in options.items():
            if option_key in losing:
                settled.append((option_key, "L"))
            elif self._known(option, option_key) is False or self._losing_now(
                self._children(option)
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
            value = self._known(node, node_key)
            if value:
                losing.add(node_key)
            elif value is None:
                unknown.append(node_key)
        if unknown:
            found = self.store.get(FactKind.MISERE, unknown)
            losing.update(node_key for node_key, value in found.items() if value == "L")
        return losing

    def proof_size(self, key: str) -> int:
        """Losing nodes a proof of the outcome of ``key`` needs, as the paper's check
        algorithm counts them: from a losing node every child, from a winning node one
        losing child; nodes decided statically (terminal, one RCT, misère Nim) are free.

        Uses what this solver proved (call ``outcome`` first); KeyError if a node on the
        way is not decided in memory (e.g. proven by another run and read from the store
        would be found, a node never searched is not).
        """
        table = self._table
        seen: set[str] = set()
        stack: list[NodeParts] = [self.node(key)]
        count = 0
        while stack:
            node = stack.pop()
            node_key = self.key(node)
            if node_key in seen or self._static(node) is not None:
                continue
            seen.add(node_key)
            kids = self._children(node)
            if table[node_key]:
                count += 1
                stack.extend(kids.values())
                continue
            for child_key, child in kids.items():
                if self._static(child) is True or table.get(child_key) is True:
                    stack.append(child)
                    break
            else:
                raise KeyError(f"no losing child of the winning node {node_key!r} is known")
        return count

    def flush(self) -> None:
        """Put every proven losing node still buffered; MisereConflictError on conflict."""
        self._last_flush = time.monotonic()
        if not self._pending:
            return
        batch, self._pending = self._pending, {}
        self._stats.store_writes += 1
        result = self.store.put(FactKind.MISERE, batch)
        self._stats.facts_stored += result.inserted
        self._stats.facts_unchanged += result.unchanged
        self.store.flush()
        if self._news is not None:
            self._news.published(list(batch))
        if result.conflicts:
            first = result.conflicts[0]
            raise MisereConflictError(
                f"conflict on misère node {first.key!r}: the store says {first.stored!r}, "
                f"this search proved {first.offered!r}"
            )

    @property
    def stats(self) -> SolverStats:
        """A snapshot of the cumulative counters (``facts_stored``: new losing nodes)."""
        return SolverStats(**vars(self._stats))

    # ----------------------------------------------------------------- nodes

    def _rct_of(self, lands: Iterable[str]) -> dict[str, int | None]:
        """Known RCT (or None) of each land, asking the source once for the new ones: the
        memo, which holds at least ``lands`` (it is cleared first when it would outgrow
        LAND_RCT_CAPACITY, and the lands it held are asked again when next met)."""
        memo = self._land_rct
        wanted = dict.fromkeys(lands)
        new = [land for land in wanted if land not in memo]
        if new:
            if len(memo) + len(new) > LAND_RCT_CAPACITY:
                memo.clear()
                new = list(wanted)
            largest = self._largest_with_rct
            if largest is None:
                found = self.rcts.lookup(new)
            else:  # most lands a large search meets are larger than any of the table's
                lives = self._measure.lives
                found = self.rcts.lookup([land for land in new if lives(land) <= largest])
            land_of = self._land_of
            for land in new:
                handle = memo[land] = found.get(land)
                if handle is not None and handle not in land_of:
                    land_of[handle] = land
        return memo

    def _fold(self, added: Iterable[int]) -> tuple[int, list[int]]:
        """RCT handles folded into a node's parts: (parity flip, the handles that stay,
        unsorted). 0 disappears, *1 and the *1 factor of H + *1 flip the parity."""
        algebra = self.algebra
        flip = 0
        stays: list[int] = []
        for handle in added:
            while True:
                if handle == ZERO:
                    break
                if handle == ONE:
                    flip ^= 1
                    break
                base = algebra.plus1_of(handle)
                if base is None:
                    stays.append(handle)
                    break
                flip ^= 1
                handle = base
        cid = self._cid
        for handle in stays:
            if handle not in cid:
                cid[handle] = algebra.content_id(handle)
        return flip, stays

    def _folded(self, added: Iterable[int]) -> tuple[int, tuple[int, ...]]:
        """``_fold``, the handles that stay sorted by content id (a move's effect)."""
        flip, stays = self._fold(added)
        stays.sort(key=self._cid.__getitem__)
        return flip, tuple(stays)

    def _nimber_height(self, handles: Iterable[int]) -> tuple[int, int]:
        """Normal-play nim-sum and total height of RCT handles (move order, ``_size``)."""
        algebra = self.algebra
        nimber = height = 0
        for handle in handles:
            nimber ^= algebra.nimber(handle)
            height += algebra.height(handle)
        return nimber, height

    def _make(
        self,
        kept: tuple[str, ...],
        new: Iterable[str],
        parity: int,
        rcts: tuple[int, ...],
        extra: Iterable[int] = (),
    ) -> NodeParts:
        """Normalise kept lands (already of unknown RCT) + new lands + parity + RCTs."""
        memo = self._land_rct
        lands = list(kept)
        added: list[int] = []
        for land in new:
            handle = memo.get(land) if land in memo else self._rct_of((land,))[land]
            if handle is None:
                lands.append(land)
            else:
                added.append(handle)
        added.extend(extra)
        handles = list(rcts)
        if added:
            flip, stays = self._fold(added)
            parity ^= flip
            handles.extend(stays)
            handles.sort(key=self._cid.__getitem__)
        lands.sort()
        return tuple(lands), parity, tuple(handles)

    def _land_moves(self, land: str) -> LandMoves:
        """The moves in one land, each folded once into what it adds to a node (kept
        lands, their lives, parity flip, RCTs and their nimber and height; a lone new
        land as its string, see LandMoves); distinct effects only, in the order of the
        land's children; kept in a bounded LRU."""
        cache = self._moves
        found = cache.get(land)
        if found is not None:
            cache.move_to_end(land)
            return found
        kids = self._measure.children(land)
        memo = self._land_rct
        if any(part not in memo for kid in kids for part in kid):
            memo = self._rct_of(part for kid in kids for part in kid)
        lives = self._measure.lives
        # by effect: the kept lands alone when that is all the move adds (the common
        # case; a tuple of strings never equals a triple that starts with a tuple)
        seen: dict[object, LandMove] = {}
        for kid in kids:
            if len(kid) == 1 and memo[kid[0]] is None:  # the common move: one new land
                if kid not in seen:
                    seen[kid] = (kid, lives(kid[0]), 0, (), 0, 0)
                continue
            kept: list[str] = []
            added: list[int] = []
            for part in kid:
                handle = memo[part]
                if handle is None:
                    kept.append(part)
                else:
                    added.append(handle)
            kept_lands = tuple(kept)  # a kid's lands are sorted
            if not added:
                effect: object = kept_lands
                if effect not in seen:
                    seen[effect] = (kept_lands, sum(map(lives, kept)), 0, (), 0, 0)
                continue
            flip, handles = self._folded(added)
            effect = (kept_lands, flip, handles) if flip or handles else kept_lands
            if effect in seen:
                continue
            nimber, height = self._nimber_height(handles)
            seen[effect] = (kept_lands, sum(map(lives, kept)), flip, handles, nimber, height)
        moves = tuple(
            move[0][0] if len(move[0]) == 1 and not move[2] and not move[3] else move
            for move in seen.values()
        )
        move_lives = [move[1] for move in seen.values()]
        try:
            packed: Sequence[int] = bytes(move_lives)  # 1 byte a move (lives < 256)
        except ValueError:
            packed = tuple(move_lives)
        cache[land] = found = (moves, packed)
        if len(cache) > self._moves_capacity:
            cache.popitem(last=False)
        return found

    def _rct_moves(self, handle: int) -> LandMoves:
        """The moves inside one RCT as a land's moves that keep no land: each option folded
        once (parity flip, the RCTs that stay sorted by content id, their nimber and
        height), distinct ones only; cached for the search (an RCT's options never change)."""
        found = self._rct_moves_of.get(handle)
        if found is not None:
            return found
        seen: dict[tuple[int, tuple[int, ...]], LandMove] = {}
        for option in self.algebra.children(handle):
            flip, handles = self._folded((option,))
            if (flip, handles) not in seen:
                seen[flip, handles] = ((), 0, flip, handles, *self._nimber_height(handles))
        found = self._rct_moves_of[handle] = (tuple(seen.values()), bytes(len(seen)))
        return found

    def _children(self, node: NodeParts) -> dict[str, NodeParts]:
        """Distinct children by key."""
        return {key: child for key, (_, child) in self._sized_children(node).items()}

    def _sized_children(self, node: NodeParts) -> dict[str, tuple[Size, NodeParts]]:
        """Distinct children by key, each with its move order (``_size``).

        Moves in a land are assembled from that land's folded moves (``_land_moves``) by
        ``assemble``: the key, parts and order of a child come from the node's and the
        move's, without reading any land again.
        """
        lands, parity, rcts = node
        out: dict[str, tuple[Size, NodeParts]] = {}
        key = self.key
        cid = self._cid
        assemble = self._assemble
        algebra = self.algebra
        rct_nimber, rct_height = self._nimber_height(rcts)
        rct_cids = [cid[h] for h in rcts]
        lives = self._measure.lives
        total_lives = sum(lives(land) for land in lands)
        same_rcts = " " + " ".join(rct_cids) if rcts else ""
        suffix = (same_rcts, " " + PARITY_TOKEN + same_rcts)  # by child parity
        previous = None
        for i, land in enumerate(lands):
            if land == previous:
                continue
            previous = land
            rest = lands[:i] + lands[i + 1 :]
            moves, moves_lives = self._land_moves(land)
            assemble(
                out,
                rest,
                moves,
                moves_lives,
                total_lives - lives(land),
                parity,
                rcts,
                suffix,
                rct_nimber,
                rct_height,
                cid,
            )
        if parity:
            child: NodeParts = (lands, 0, rcts)
            child_key = key(child)
            if child_key not in out:
                out[child_key] = (self._size(child), child)
        # Moves in an RCT: the lands stay (so do their lives and count); each option is
        # folded once into what it adds (parity flip, RCTs) and assembled as a land's moves.
        for j, handle in enumerate(rcts):
            if j and rcts[j - 1] == handle:
                continue
            rest_rcts = rcts[:j] + rcts[j + 1 :]
            rest_suffix = " " + " ".join([cid[h] for h in rest_rcts]) if rest_rcts else ""
            moves, moves_lives = self._rct_moves(handle)
            assemble(
                out,
                lands,
                moves,
                moves_lives,
                total_lives,
                parity,
                rest_rcts,
                (rest_suffix, " " + PARITY_TOKEN + rest_suffix),
                rct_nimber ^ algebra.nimber(handle),
                rct_height - algebra.height(handle),
                cid,
            )
        return out

    def _static(self, node: NodeParts) -> bool | None:
        """Losing? decided without search: terminal, one RCT alone, or misère Nim."""
        lands, parity, rcts = node
        if lands:
            return None
        if not rcts:
            return parity == 1  # 0 is a misère win, *1 a loss
        algebra = self.algebra
        if len(rcts) == 1 and not parity:
            return algebra.outcome(rcts[0]) == "L"
        total = parity
        for handle in rcts:
            n = algebra.nim_value(handle)
            if n is None:
                return None
            total ^= n
        # misère Nim (Bouton): the heaps here are all ≥ 2 (0 and *1 are normalised away)
        return total == 0

    def _size(self, node: NodeParts) -> Size:
        """Move order: fewest lives in the position part, then most lands (split
        positions), then children whose RCT part has normal-play nim-sum 0 with the
        parity (a guess that they lose), then least total height of the RCT part."""
        lands, parity, rcts = node
        nimber, height = self._nimber_height(rcts)
        nimber ^= parity
        height += parity
        lives = sum(self._measure.lives(land) for land in lands)
        return lives, -len(lands), (1 if nimber else 0), height

    # ----------------------------------------------------------------- search

    def _call(self, root: NodeParts) -> bool:
        started = time.perf_counter()
        self._meter.start(self._stats.nodes)
        self._headway.start(lambda: self._settled(root))
        value = self._static(root)
        if value is not None:
            return value
        root_key = self.key(root)
        self._read_store()
        self._grow_caches_for(root)
        if self._reprove_roots:
            self._root = root_key
            self._asked.discard(hash(root_key))
            self._table.pop(root_key, None)
        else:
            self._fetch([root_key])  # a stored root is taken as proven, like any node
        finished = False
        try:
            known = self._table.get(root_key)
            if known is not None:
                finished = True
                return known
            self._resume_from(root, root_key)
            with self._collector.paused():
                losing = self._search(root, root_key)
            finished = True
            if not losing and self._reprove_roots:
                stored = self.store.get(FactKind.MISERE, [root_key]).get(root_key)
                if stored is not None and stored != "W":
                    raise MisereConflictError(
                        f"conflict on misère node {root_key!r}: the store says {stored!r}, "
                        "this search proved 'W'"
                    )
            return losing
        finally:
            self._root = ""
            self._headway.stop()
            self._stack = []
            self._stats.seconds += time.perf_counter() - started
            try:
                self.flush()
            finally:
                try:
                    self._leave_resume(finished)
                finally:
                    self._meter.tick(self._stats.nodes, self._stats.facts_stored, 0, force=True)

    def _grow_caches_for(self, root: NodeParts) -> None:
        """A large root's search keeps more canonical forms, if the game can, and the moves
        of more lands, unless a size was asked."""
        if sum(self._measure.lives(land) for land in root[0]) < MISERE_LARGE_ROOT_LIVES:
            return
        if isinstance(self.game, MemoHolder):
            self.game.reserve_memo(MISERE_LARGE_MEMO)
        if not self._moves_capacity_asked:
            self._moves_capacity = max(self._moves_capacity, MISERE_LARGE_CHILDREN_CACHE)

    def _search(self, root: NodeParts, root_key: str) -> bool:
        """df-pn from the root until it is decided, started again after a RestartSearch."""
        while True:
            self._dfpn.in_flight.clear()
            try:
                return self._drive(self._dfpn.solve(root, root_key)) is True
            except RestartSearch:
                self._stats.restarts += 1

    def _drive(self, task: Task) -> bool | None:
        """Run a task and all its sub-tasks on the explicit stack."""
        return cast("bool | None", run_tasks(task, self._stack, self._stats))

    def _read_store(self) -> None:
        """Once, when this search is the store's only writer (no other solvers to meet) and
        the store can list its facts: read every misère fact into the table, so that no
        child is ever asked about again (what this search proves goes to the table first).
        Read as `_fetch` reads: a fact of the store is taken as proven."""
        store = self.store
        if self._read_all or (self._share_seconds is not None and self._news is None):
            return
        if not isinstance(store, ListedProofStore):
            return
        if store.count(FactKind.MISERE) > min(READ_ALL_LIMIT, self._table_capacity // 2):
            return
        table = self._table
        for key, value in store.iter_facts(FactKind.MISERE):
            if value not in ("L", "W"):
                raise MisereConflictError(f"store misère outcome of {key!r} is {value!r}")
            table.setdefault(key, value == "L")
        self._read_all = True

    def _fetch(self, keys: list[str]) -> None:
        """One store read for the keys never asked (never the root being re-proven); none
        once the whole store was read."""
        if self._read_all:
            return
        asked, table, root = self._asked, self._table, self._root
        wanted = [k for k in keys if hash(k) not in asked and k not in table and k != root]
        if not wanted:
            return
        if len(asked) >= self._asked_capacity:
            asked.clear()
        asked.update(map(hash, wanted))
        self._stats.store_reads += 1
        found = self.store.get(FactKind.MISERE, wanted)
        for k, v in found.items():
            if v not in ("L", "W"):
                raise MisereConflictError(f"store misère outcome of {k!r} is {v!r}")
            table[k] = v == "L"
        self._stats.store_hits += len(found)

    def _decided(self, node: NodeParts, key: str) -> bool | None:
        """Losing? if known without search: statically, proven (here or in the store), or
        a resume record's claim of a win, re-derived now."""
        value = self._known(node, key)
        if value is None and key in self._claims:
            return self._settle_claim(node, key)
        return value

    def _scan(
        self,
        children: list[tuple[str, NodeParts, tuple[int, int]]],
        numbers: dict[Any, tuple[int, int]],
        learnt: dict[str, tuple[int, int]],
        hashed: bool,
    ) -> Scan:
        """df-pn's pass over a node's children by the compiled twin, which reads the table
        of proven nodes for a child with lands (what ``_decided`` answers for it). A table
        replaced during the pass (a claim settled into a full table) is read until the pass
        ends: what it held is proven all the same."""
        scan = cast(MisereScanner, self._scan_twin)
        return scan(children, self._decided, numbers, learnt, hashed, self._table, self._claims)

    def _known(self, node: NodeParts, key: str) -> bool | None:
        """Losing? if decided statically or proven (here or in the store)."""
        if node[0]:  # a node with lands is never decided statically
            return self._table.get(key)
        value = self._static(node)
        return self._table.get(key) if value is None else value

    def _settle_claim(self, node: NodeParts, key: str) -> bool | None:
        """A record's claim that ``node`` wins, checked once: False (winning, recorded) if
        a child is known losing, by the rules or in the table or the store; else None
        (the claim is dropped and the search decides the node)."""
        self._claims.discard(key)
        try:
            kids = self._children(node)
        except ValueError:  # a land the game cannot read (NotationError): no claim of ours
            return None
        known = self._known
        self._fetch([k for k, child in kids.items() if known(child, k) is None])
        if not any(known(child, k) is True for k, child in kids.items()):
            return None
        self._record(key, False)
        self.resumed_wins += 1
        self._stats.resumed_exclusions += 1  # the misère kind of a re-derived win
        return False

    def _expand(self, node: NodeParts, key: str) -> list[tuple[str, NodeParts, tuple[int, int]]]:
        """Children in move order with df-pn's initial proof numbers, kept in a small LRU
        for re-visits; the store is asked once about the new ones."""
        cache = self._expanded
        children = cache.get(key)
        if children is not None:
            cache.move_to_end(key)
            if key in self._stale:
                self._stale.discard(key)
                self._fetch(self._open_keys(children))
            return children
        kids = self._sized_children(node)
        if not kids:
            raise AssertionError(f"non-terminal misère node {key!r} has no children")
        self._stats.expansions += 1
        static = self._static
        self._fetch([k for k, (_, child) in kids.items() if child[0] or static(child) is None])
        # δ (the cost of showing a child losing: all its children) grows with its size.
        # Measured (visits): lives // 4 halved the nodes of 0*13 against δ = 1; lives // 2
        # gives 0*13 17 380 (// 4: 17 719; // 1: 30 300; // 8: 25 729; lives² // 32:
        # 19 277) and 0*14 46 306 (// 4: 57 543), with ε = 0.25 (0.5 and 1: 21 385, 19 710)
        children = self._order(kids, self._delta_divisor, self._initials)
        cache[key] = children
        if len(cache) > self._expanded_capacity:
            cache.popitem(last=False)
        return children

    def _record(self, key: str, losing: bool) -> None:
        if losing:
            self._prove_losing(key)
        else:
            if len(self._table) >= self._table_capacity:
                self._forget_wins()
            self._table[key] = False

    def _forget_wins(self) -> None:
        """Bound memory: drop the proven winning nodes (never stored; a later visit proves
        them again) and the record of keys asked of the store. Losing nodes stay: they are
        few (the proof) and the store has them once flushed."""
        self.flush()
        table = self._table
        self._table = {k: v for k, v in table.items() if v}
        self._asked = set()  # (the losing nodes kept are never asked: they are known)
        self.table_clears += 1

    def _visit(self) -> None:
        stats = self._stats
        stats.nodes += 1
        if self._share_seconds is not None and time.monotonic() >= self._next_share:
            self._share()
        if self._resume_root is not None and time.monotonic() >= self._resume_due:
            self._save_resume()  # a killed run resumes from here
        self._collector.tick()
        if self._meter.active:
            self._meter.tick(
                stats.nodes,
                stats.facts_stored,
                len(self._stack),
                root_options=self._headway.counts(),
            )

    def _open_keys(self, children: Iterable[tuple[str, NodeParts, object]]) -> list[str]:
        """The keys of the children not decided yet (a static one never is asked)."""
        table, static = self._table, self._static
        return [
            key
            for key, child, _ in children
            if key not in table and (child[0] or static(child) is None)
        ]

    def _share(self) -> None:
        """Meet the other solvers' facts: flush ours, forget which keys the store lacked
        (cached children lists ask again when next used) and ask now about the nodes on
        the path and their children; RestartSearch if one of them was decided meanwhile."""
        self._next_share = time.monotonic() + cast(float, self._share_seconds)
        self.flush()
        if self._news is not None:
            self._meet_news(self._news.news())
            return
        self._asked.clear()
        self._stale = set(self._expanded)
        path = self._dfpn.in_flight
        wanted = [key for key, _ in path[1:] if key not in self._table]
        for _, children in path:
            wanted.extend(self._open_keys(children))
        before = len(self._table)
        self._fetch(wanted)
        if len(self._table) > before:
            raise RestartSearch

    def _meet_news(self, keys: list[str]) -> None:
        """Read the nodes the other solvers stored (their news) into the table, never the
        root being proven; RestartSearch if one is on the search's path or a child of it.
        Nothing else is asked again: the table holds the store's facts (`_read_store`) or
        records which keys it lacked, and news is what changed since."""
        table, root = self._table, self._root
        wanted = [key for key in dict.fromkeys(keys) if key not in table and key != root]
        if not wanted:
            return
        self._stats.store_reads += 1
        found = self.store.get(FactKind.MISERE, wanted)
        if not found:
            return
        for key, value in found.items():
            if value not in ("L", "W"):
                raise MisereConflictError(f"store misère outcome of {key!r} is {value!r}")
            table[key] = value == "L"
        self._stats.store_hits += len(found)
        path = self._dfpn.in_flight
        if any(key in found for key, _ in path[1:]) or any(
            key in found for _, children in path for key, _, _ in children
        ):
            raise RestartSearch

    # ----------------------------------------------------------------- resume records

    def _resume_from(self, root: NodeParts, root_key: str) -> None:
        """Take up the record an interrupted search of ``root`` left: its df-pn numbers
        (clamped: they only steer) and its winning nodes, each re-derived first."""
        if self._resume is None:
            return
        data = self._resume.load(RESUME_PREFIX + root_key)
        state = decode_misere_state(root_key, data) if data is not None else None
        if state is not None:
            self._take_up(state, root)
        # only now: a call stopped while taking up a record leaves that record as it was
        self._resume_root = root_key
        # due at once: the first visit saves and flushes, and from then on each flush by
        # time falls due with a save, so a kill finds the record of the last flush beside it
        self._resume_due = time.monotonic()

    def _take_up(self, state: MisereState, root: NodeParts) -> None:
        """Install a decoded record: numbers as they are, winning nodes as claims to check
        when met (`_settle_claim`), both within the tables' bounds."""
        dfpn = self._dfpn
        room = max(dfpn.capacity - len(dfpn.numbers), 0)
        for count, (key, pair) in enumerate(state.numbers.items()):
            if count >= room:
                break
            dfpn.seed(key, pair)
        self._stats.resumed_numbers += min(len(state.numbers), room)
        # the trees the keys name, learnt from their lands through this run's own source
        lives, root_lives = self._measure.lives, sum(self._measure.lives(x) for x in root[0])
        # (as written: a text that is not a canonical land is one no search asks about)
        lands = [x for x in state.lands[:MAX_RESUMED_LANDS] if lives(x) <= root_lives]
        with contextlib.suppress(ValueError):  # a source refusing a text: only hints lost
            self._rct_of(lands)
        room = max(self._table_capacity // 2 - len(self._table), 0)
        # (a claim is met by its exact key: one not written as the search writes keys,
        # the root's among them, is never met)
        self._claims = set(state.wins[:room])
        self._claims.discard(self.key(root))

    def _save_resume(self, *, commit: bool = True) -> None:
        """Save the search state, then commit what is proven (unless just done): the df-pn
        numbers as the table holds them, of the nodes it can name (`_named_numbers`; those
        of the nodes in flight as they were when last left: updated from their children,
        they sent the rerun of 0*13 stopped at 10 % down another path, 19 940 visits
        against 15 646) and the winning nodes.

        The record first: a kill between the two leaves numbers a little ahead of the
        facts (the rerun proves the last batch again where they lead it) rather than
        facts ahead of the numbers, which move df-pn's path (see the module's text)."""
        if self._resume is None or self._resume_root is None:
            return
        started = time.monotonic()
        wins = [key for key, losing in self._table.items() if not losing]
        wins.extend(self._claims)  # not met yet: still claims for the next rerun
        lands = self._land_of.values()  # one land of each tree known as a land's RCT
        data = encode_misere_state(self._resume_root, self._named_numbers(), wins, lands)
        if self._resume.save(RESUME_PREFIX + self._resume_root, data):
            self._stats.resume_saves += 1
        now = time.monotonic()
        self._resume_due = now + max(self._resume_every, RESUME_COST_SHARE * (now - started))
        if commit:
            self.flush()

    def _named_numbers(self) -> dict[str, tuple[int, int]]:
        """The df-pn numbers of the nodes the search can still name, for its record: those
        of the nodes in flight and of the children lists kept (the table keys numbers by
        hash; the nodes it holds numbers of beyond those are left out of the record)."""
        numbers_of = self._dfpn.numbers_of
        out: dict[str, tuple[int, int]] = {}
        lists = chain(self._dfpn.in_flight, self._expanded.items())
        for key, children in lists:
            for name in chain((key,), (child_key for child_key, _, _ in children)):
                if name not in out and (pair := numbers_of(name)) is not None:
                    out[name] = pair
        return out

    def _leave_resume(self, finished: bool) -> None:
        """A finished call needs no record; an interrupted one saves where it stood."""
        if self._resume is None or self._resume_root is None:
            return
        try:
            if finished:
                self._resume.discard(RESUME_PREFIX + self._resume_root)
            else:
                self._save_resume(commit=False)  # the call has just flushed (or failed to)
        finally:
            self._resume_root = None

    def _prove_losing(self, key: str) -> None:
        self._table[key] = True
        self._pending[key] = "L"
        if (
            len(self._pending) >= self._batch_size
            or time.monotonic() - self._last_flush >= self._flush_seconds
        ):
            if self._resume_root is not None and time.monotonic() >= self._resume_due:
                self._save_resume()  # a flush that leaves the record beside what it commits
            else:
                self.flush()


# --------------------------------------------------------------------------- reference


def brute_force_misere(
    game: Game, key: str, memo: dict[str, bool] | None = None, nim: int = 0
) -> str:
    """Misère outcome of position + *nim by plain game-tree search (no RCT), for tests.

    Explicit stack; ``memo`` maps "position#heap" to losing? and may be shared.
    """
    memo = {} if memo is None else memo
    root = (game.canonical(key), nim)

    def kids(state: tuple[str, int]) -> list[tuple[str, int]]:
        position, heap = state
        out = [(child, heap) for child in game.children(position)]
        out.extend((position, h) for h in range(heap))
        return out

    def name(state: tuple[str, int]) -> str:
        return f"{state[0]}#{state[1]}"

    stack = [root]
    while stack:
        state = stack[-1]
        if name(state) in memo:
            stack.pop()
            continue
        children = kids(state)
        missing = [c for c in children if name(c) not in memo]
        if missing:
            stack.extend(missing)
            continue
        # no moves: a misère win; else losing iff every child is winning
        memo[name(state)] = bool(children) and not any(memo[name(c)] for c in children)
        stack.pop()
    return "L" if memo[name(root)] else "W"
