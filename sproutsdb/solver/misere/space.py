"""df-pn's space over misère nodes: what is proven of them, in memory and in the store.

``MisereSpace`` is what ``search.dfpn`` searches (its ``Space``): a node's children in move
order with their initial proof numbers (from ``misere.nodes``), kept in a small LRU for
re-visits; whether a node is decided (by the rules, the table of proven nodes, the store,
or a resume record's claim, re-derived first); and where a decision goes (losing nodes to
the table and the store's write-behind buffer, winning ones to the table only, which is
bounded). The run of a search around it (calls, visits, resume records) is the solver's.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, cast

from sproutsdb.solver.misere.assemble import COMPILED_SCAN, ORDER, MisereScanner, NodeParts, Orderer
from sproutsdb.solver.misere.facts import LosingNodes, losing_value
from sproutsdb.solver.misere.nodes import MisereNodes
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, ListedProofStore, ProofStore
from sproutsdb.solver.search.dfpn import Scan, Scanner
from sproutsdb.solver.search.progress import SolverStats

__all__ = ["Children", "MisereSpace"]

Children = list[tuple[str, NodeParts, tuple[int, int]]]  # key, node, initial (φ, δ)


class _Initials(dict[int, tuple[int, int]]):
    """The initial numbers (1, δ) of unseen children, one shared tuple per δ: the cached
    children lists held one each (56 bytes a child, ~15 % of those lists)."""

    def __missing__(self, delta: int) -> tuple[int, int]:
        pair = self[delta] = (1, delta)
        return pair


class MisereSpace:
    """The df-pn ``Space`` of one misère solver over ``nodes``, against ``store``.

    ``visit`` counts a node visit (the solver's run: statistics, progress, resume records);
    ``commit_due`` is called when the buffer of proven losing nodes is due to be committed.
    ``root`` is the key of the node a call proves again: never read from the store.
    """

    def __init__(
        self,
        nodes: MisereNodes,
        store: ProofStore,
        facts: LosingNodes,
        stats: SolverStats,
        *,
        visit: Callable[[], None],
        commit_due: Callable[[], None],
        table_capacity: int,
        asked_capacity: int,
        node_cache: int,
        delta_divisor: int,
    ) -> None:
        self.nodes = nodes
        self.store = store
        self._facts = facts
        self._stats = stats
        self._visit = visit
        self._commit_due = commit_due
        self._static = nodes.static
        self.table: dict[str, bool] = {}  # node key -> losing?
        self.table_capacity = table_capacity
        self.table_clears = 0  # times the proven winning nodes were dropped (memory bound)
        # hashes of the keys already looked up in the store: two keys of one hash (about
        # n²/2⁶⁵ at n keys) only make one of them unasked, and the search proves it itself
        self.asked: set[int] = set()
        self._asked_capacity = asked_capacity
        self.root = ""
        self.read_all = False  # every misère fact of the store is in the table (read_store)
        self.expanded: OrderedDict[str, Children] = OrderedDict()
        self._expanded_capacity = node_cache
        self._stale: set[str] = set()  # cached children lists to ask the store about again
        self._initials = _Initials()
        self._delta_divisor = delta_divisor  # df-pn+: a child's δ is 1 + lives // this + RCTs
        # children in move order, and df-pn's pass over them: compiled when built (else
        # df-pn's own pass)
        self.order: Orderer = ORDER
        self.scan_twin: MisereScanner | None = COMPILED_SCAN
        self.scan: Scanner | None = None if self.scan_twin is None else self._scan
        # winning nodes a resume record claims, each re-derived when the search meets it:
        # re-deriving 0*18's 2 M claims up front took its rerun 1 050 s before a visit
        self.claims: set[str] = set()
        self.resumed_wins = 0  # winning nodes of resume records re-derived and used

    # ----------------------------------------------------------------- Space protocol

    def expand(self, node: NodeParts, key: str) -> Children:
        """Children in move order with df-pn's initial proof numbers, kept in a small LRU
        for re-visits; the store is asked once about the new ones."""
        cache = self.expanded
        children = cache.get(key)
        if children is not None:
            cache.move_to_end(key)
            if key in self._stale:
                self._stale.discard(key)
                self.fetch(self.open_keys(children))
            return children
        kids = self.nodes.sized_children(node)
        if not kids:
            raise AssertionError(f"non-terminal misère node {key!r} has no children")
        self._stats.expansions += 1
        static = self._static
        self.fetch([k for k, (_, child) in kids.items() if child[0] or static(child) is None])
        # δ (the cost of showing a child losing: all its children) grows with its size.
        # Measured (visits): lives // 4 halved the nodes of 0*13 against δ = 1; lives // 2
        # gives 0*13 17 380 (// 4: 17 719; // 1: 30 300; // 8: 25 729; lives² // 32:
        # 19 277) and 0*14 46 306 (// 4: 57 543), with ε = 0.25 (0.5 and 1: 21 385, 19 710)
        children = self.order(kids, self._delta_divisor, self._initials)
        cache[key] = children
        if len(cache) > self._expanded_capacity:
            cache.popitem(last=False)
        return children

    def decided(self, node: NodeParts, key: str) -> bool | None:
        """Losing? if known without search: statically, proven (here or in the store), or
        a resume record's claim of a win, re-derived now."""
        value = self.known(node, key)
        if value is None and key in self.claims:
            return self._settle_claim(node, key)
        return value

    def record(self, key: str, losing: bool) -> None:
        """A node is decided: a losing one is stored, a winning one kept in memory only."""
        if losing:
            self.table[key] = True
            if self._facts.add(key, "L"):
                self._commit_due()
        else:
            if len(self.table) >= self.table_capacity:
                self._forget_wins()
            self.table[key] = False

    def visit(self) -> None:
        self._visit()

    def _scan(
        self,
        children: list[tuple[str, NodeParts, tuple[int, int]]],
        numbers: dict[Any, tuple[int, int]],
        learnt: dict[str, tuple[int, int]],
        hashed: bool,
    ) -> Scan:
        """df-pn's pass over a node's children by the compiled twin, which reads the table
        of proven nodes for a child with lands (what ``decided`` answers for it). A table
        replaced during the pass (a claim settled into a full table) is read until the pass
        ends: what it held is proven all the same."""
        scan = cast(MisereScanner, self.scan_twin)
        return scan(children, self.decided, numbers, learnt, hashed, self.table, self.claims)

    # ----------------------------------------------------------------- what is known

    def known(self, node: NodeParts, key: str) -> bool | None:
        """Losing? if decided statically or proven (here or in the store)."""
        if node[0]:  # a node with lands is never decided statically
            return self.table.get(key)
        value = self._static(node)
        return self.table.get(key) if value is None else value

    def open_keys(self, children: Iterable[tuple[str, NodeParts, object]]) -> list[str]:
        """The keys of the children not decided yet (a static one never is asked)."""
        table, static = self.table, self._static
        return [
            key
            for key, child, _ in children
            if key not in table and (child[0] or static(child) is None)
        ]

    def _settle_claim(self, node: NodeParts, key: str) -> bool | None:
        """A record's claim that ``node`` wins, checked once: False (winning, recorded) if
        a child is known losing, by the rules or in the table or the store; else None
        (the claim is dropped and the search decides the node)."""
        self.claims.discard(key)
        try:
            kids = self.nodes.children(node)
        except ValueError:  # a land the game cannot read (NotationError): no claim of ours
            return None
        known = self.known
        self.fetch([k for k, child in kids.items() if known(child, k) is None])
        if not any(known(child, k) is True for k, child in kids.items()):
            return None
        self.record(key, False)
        self.resumed_wins += 1
        self._stats.resumed_exclusions += 1  # the misère kind of a re-derived win
        return False

    def _forget_wins(self) -> None:
        """Bound memory: drop the proven winning nodes (never stored; a later visit proves
        them again) and the record of keys asked of the store. Losing nodes stay: they are
        few (the proof) and the store has them once flushed."""
        self._facts.flush()
        table = self.table
        self.table = {k: v for k, v in table.items() if v}
        self.asked = set()  # (the losing nodes kept are never asked: they are known)
        self.table_clears += 1

    # ----------------------------------------------------------------- store reads

    def read_store(self, limit: int) -> None:
        """Once, if the store can list its facts and holds at most ``limit``: read every
        misère fact into the table, so that no child is ever asked about again (what the
        search proves goes to the table first). Read as ``fetch`` reads: a fact of the
        store is taken as proven."""
        store = self.store
        if self.read_all or not isinstance(store, ListedProofStore):
            return
        if store.count(FactKind.MISERE) > limit:
            return
        table = self.table
        for key, value in store.iter_facts(FactKind.MISERE):
            table.setdefault(key, losing_value(key, value))
        self.read_all = True

    def fetch(self, keys: list[str]) -> None:
        """One store read for the keys never asked (never the root being re-proven); none
        once the whole store was read."""
        if self.read_all:
            return
        asked, table, root = self.asked, self.table, self.root
        wanted = [k for k in keys if hash(k) not in asked and k not in table and k != root]
        if not wanted:
            return
        if len(asked) >= self._asked_capacity:
            asked.clear()
        asked.update(map(hash, wanted))
        self._learn(wanted)

    def read_news(self, keys: list[str]) -> dict[str, FactValue]:
        """Read the nodes other solvers stored (their news) into the table, never the root
        being proven; what was found. Nothing else is asked again: the table holds the
        store's facts (``read_store``) or records which keys it lacked, and news is what
        changed since."""
        table, root = self.table, self.root
        wanted = [key for key in dict.fromkeys(keys) if key not in table and key != root]
        if not wanted:
            return {}
        return self._learn(wanted)

    def forget_asked(self) -> None:
        """Ask the store again about every key (other solvers may have stored them): now
        for the keys fetched next, when next used for the cached children lists."""
        self.asked.clear()
        self._stale = set(self.expanded)

    def _learn(self, wanted: list[str]) -> dict[str, FactValue]:
        """One store read of ``wanted``, learnt into the table; what was found."""
        self._stats.store_reads += 1
        found = self.store.get(FactKind.MISERE, wanted)
        if not found:
            return found
        table = self.table
        for key, value in found.items():
            table[key] = losing_value(key, value)
        self._stats.store_hits += len(found)
        return found
