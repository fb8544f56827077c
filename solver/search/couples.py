"""What the two normal-play searches share: the known nimbers, the store buffer, the lands.

The depth-first search (`normal.NormalSolver`) and its df-pn space (`normal_dfpn.CoupleSpace`)
decide the same couples (C, n) against the same memory: one transposition table of known
nimbers and exclusions, one write-behind buffer of proven nimbers, one memo of children and
lives. `Couples` holds them with the three steps both take (fold known nimbers into a
couple, fetch what the store knows, record a proof), so that neither reaches into the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sproutsdb.solver.cgt.nimarith import cancel_pairs
from sproutsdb.solver.search.facts import NimberFacts
from sproutsdb.solver.search.measures import ComponentMeasures
from sproutsdb.solver.search.table import TranspositionTable

__all__ = ["Couples"]


class Couples:
    """The shared state of one normal-play solve: table, store buffer, measures, roots.

    `roots` are the components a call is asked about when they are to be proven again:
    `fetch` never reads their stored nimbers, so those are re-derived, not trusted.
    """

    def __init__(
        self, table: TranspositionTable, facts: NimberFacts, measure: ComponentMeasures
    ) -> None:
        self.table = table
        self.facts = facts
        self.measure = measure
        self.roots: frozenset[str] = frozenset()

    def fold(self, components: Iterable[str], n: int) -> tuple[tuple[str, ...], int]:
        """Fold known nimbers into n; cancel identical pairs (X + X = 0) among the rest."""
        nimbers = self.table.nimbers
        rest: list[str] = []
        for part in components:
            value = nimbers.get(part)
            if value is None:
                rest.append(part)
            else:
                n ^= value
        if len(rest) > 1:
            rest = cancel_pairs(rest)
        return tuple(rest), n

    def read_all(self, limit: int) -> bool:
        """Learn every stored nimber but the roots' at once, if the store can list them
        and holds at most `limit`: `fetch` then asks the store nothing until `forget_all`.
        For a search that is its store's only writer, or that hears of every key the
        others put (`refresh`, `solve --jobs`): the table then lacks no stored fact."""
        found = self.facts.read_all(limit)
        if found is None:
            self.facts.complete = False
            return False
        table, roots = self.table, self.roots
        for key, value in found.items():
            if key not in roots:
                table.learn(key, value)
        self.facts.complete = True
        return True

    def forget_all(self) -> None:
        """Back to asking the store key by key (the call ends: its roots were not read)."""
        self.facts.complete = False

    def fetch(self, keys: Iterable[str]) -> None:
        """One store read for the components not known yet (never the roots being re-proven);
        none while the table holds the whole store (`read_all`)."""
        if not self.facts.complete:
            self._read(keys)

    def _read(self, keys: Iterable[str]) -> None:
        """The store's nimbers of those keys the table lacks, learnt into it."""
        table = self.table
        nimbers, roots = table.nimbers, self.roots
        found = self.facts.fetch(k for k in keys if k not in nimbers and k not in roots)
        for key, value in found.items():
            table.learn(key, value)

    def refresh(self, keys: Iterable[str]) -> None:
        """Read these keys from the store again, whatever was asked before: another
        process has just put them (`solve --jobs`)."""
        keys = list(keys)
        self.facts.forget(keys)
        self._read(keys)  # even when complete: these are the only facts the table may lack

    def rederive_exclusions(
        self, claims: Mapping[str, Iterable[int]], *, limit: int, chunk: int = 256
    ) -> int:
        """Re-derive claimed winning couples (land, n) from stored facts, one level deep:
        (land, n) is winning if a child of the land has known nimbers nim-summing to n.
        Those that re-derive are excluded in the table; the rest are dropped. At most
        `limit` are taken; returns how many were excluded. A claim is never trusted: a
        land the game cannot read is dropped too (one not canonical is never asked for)."""
        table, measure = self.table, self.measure
        lands = [(land, sorted(set(ns))) for land, ns in claims.items() if "+" not in land]
        excluded = 0
        for start in range(0, len(lands), chunk):
            part: list[tuple[str, list[int]]] = []
            children: dict[str, tuple[tuple[str, ...], ...]] = {}
            for land, ns in lands[start : start + chunk]:
                try:
                    children[land] = measure.children(land)
                except ValueError:  # the game's NotationError: not a land of this game
                    continue
                part.append((land, ns))
            self.fetch([land for land, _ in part])
            self.fetch(piece for kids in children.values() for kid in kids for piece in kid)
            for land, ns in part:
                for n in ns:
                    if excluded >= limit:
                        return excluded
                    if table.nimber(land) is not None:
                        break  # known: its other values are excluded by it already
                    if not table.is_excluded(land, n) and any(
                        self.fold(kid, n) == ((), 0) for kid in children[land]
                    ):
                        table.exclude(land, n)
                        excluded += 1
        return excluded

    def prove(self, component: str, nimber: int) -> None:
        """A losing couple (component, nimber) is proven: remember it and queue it for the store."""
        self.table.prove(component, nimber)
        self.facts.record(component, nimber)
