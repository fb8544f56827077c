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
        self.redeemed = 0  # claimed winning couples of resume records re-derived so far

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

    def take_claims(self, claims: Mapping[str, Iterable[int]], *, limit: int) -> int:
        """Hold a resume record's claimed winning couples (land, n), at most `limit`: each
        is used only once re-derived from known facts, one level deep, the first time the
        search asks about it (`rederive`); returns how many are held. A claim is never
        trusted: one that does not re-derive is dropped, and a land the game cannot read
        is never asked for."""
        self.table.redeem = self.rederive
        return self.table.claim(
            {land: values for land, values in claims.items() if "+" not in land}, limit
        )

    def rederive(self, land: str, n: int) -> bool:
        """Whether a resume record's claim (land, n) re-derives now (`losing_child_known`),
        counted in `redeemed`; False for a land the game cannot read."""
        try:
            known = self.losing_child_known(land, n)
        except ValueError:  # the game's NotationError: not a land of this game
            return False
        if known:
            self.redeemed += 1
        return known

    def losing_child_known(self, land: str, n: int) -> bool:
        """Whether (land, n) is winning by what is known now: a child of the land whose
        known nimbers nim-sum to n (the children made only up to it where the table holds
        the whole store and the game can stop early). No search."""

        def losing(child: tuple[str, ...]) -> bool:
            return self.fold(child, n) == ((), 0)

        if self.facts.complete:
            children, _ = self.measure.children_until(land, losing)
            if children is None:  # stopped at a losing child
                return True
        else:
            children = self.measure.children(land)
            self.fetch(piece for child in children for piece in child)
        return any(losing(child) for child in children)

    def prove(self, component: str, nimber: int) -> None:
        """A losing couple (component, nimber) is proven: remember it and queue it for the store."""
        self.table.prove(component, nimber)
        self.facts.record(component, nimber)
