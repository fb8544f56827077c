"""RCTs of lands taken only after they were re-derived from the rules (issue: misère trust).

A position → RCT map that comes from outside (a store's ``pos_rct`` facts, an RCT table, a
server) is a claim: a forged entry would make the misère checker replace a land by a tree of
the wrong outcome and accept a false proof. ``DerivedRcts`` wraps any ``RctSource`` of
claims and hands a land's RCT to the search or the checker only after computing it again
from the land's children (``RctSearch``, bottom-up, memoised), or after finding it in a set
of positions that were themselves re-derived (a table checked whole in this process or by a
recorded check, ``trusted``). Claims are accelerators that say which lands to replace; never
authorities. Pure computation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.rcts import largest_with_rct
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.normal.check import Inconsistency
from sproutsdb.solver.ports.game import Game

# Lands this large are not re-derived from scratch when no re-derived table covers them: the
# game tree below a land grows fast with its lives (the whole tree of 0*6, 18 lives, takes
# about 12 s; of 0*7, 21 lives, 9 minutes). A claim on a larger land is left unused.
DEFAULT_DERIVE_LIVES = 18


class ClaimSource(Protocol):
    """Where claimed RCTs come from (any ``solver.misere.rcts.RctSource``)."""

    algebra: Algebra

    def lookup(self, lands: Sequence[str]) -> dict[str, int]: ...


@dataclass(frozen=True)
class RctRefutation:
    """A claimed land → RCT entry that the rules contradict."""

    land: str
    claimed: str  # content id
    derived: str  # content id the land's children give

    def describe(self) -> str:
        return (
            f"{self.land} is claimed to have RCT {self.claimed}, its children give {self.derived}"
        )


@dataclass
class DerivationReport:
    """What a ``DerivedRcts`` did: claims used, re-derived, refuted, left unused."""

    claims_used: int = 0  # lands handed out with their claimed RCT, after re-derivation
    from_trusted: int = 0  # ... of which found in the re-derived table
    derived_lands: int = 0  # positions whose RCT was computed here from their children
    seconds: float = 0.0  # time spent re-deriving
    refuted: list[RctRefutation] = field(default_factory=list)
    too_large: list[tuple[str, str]] = field(default_factory=list)  # (land, claimed id)
    no_record: list[tuple[str, str]] = field(default_factory=list)  # mapped to a missing RCT

    def inconsistencies(self) -> list[Inconsistency]:
        """What a check of a proof must fail on: claims the rules refute, and claims naming
        an RCT of which the store holds no record."""
        refuted = [
            Inconsistency(r.land, 0, f"forged RCT claim: {r.describe()}") for r in self.refuted
        ]
        dangling = [
            Inconsistency(land, 0, f"mapped to RCT {cid}, which the store holds no record of")
            for land, cid in self.no_record
        ]
        return refuted + dangling

    def to_json(self, limit: int = 10) -> dict[str, object]:
        return {
            "claims_used": self.claims_used,
            "from_rederived_table": self.from_trusted,
            "positions_derived": self.derived_lands,
            "derive_seconds": round(self.seconds, 3),
            "refuted": len(self.refuted),
            "refuted_first": [r.describe() for r in self.refuted[:limit]],
            "not_derived": len(self.too_large),
            "not_derived_first": [
                f"{land} (claimed {cid})" for land, cid in self.too_large[:limit]
            ],
            "no_record": len(self.no_record),
            "no_record_first": [
                f"{land} (mapped to {cid})" for land, cid in self.no_record[:limit]
            ],
        }


class DerivedRcts:
    """An ``RctSource`` that hands out a land's RCT only once it is re-derived.

    ``claims`` says which lands have an RCT (and supplies records, themselves re-derived when
    loaded into its algebra); ``trusted`` maps a land to the content id a re-derived table
    gives it (None where the table has no entry). A claimed land is re-derived when it has
    at most ``max_lives`` lives (``game.size``) and skipped otherwise (it stays a position).
    A refuted claim is recorded and the land gets its true RCT, so a search stays correct;
    callers that check a proof refuse it on any refutation.
    """

    def __init__(
        self,
        game: Game,
        claims: ClaimSource,
        *,
        trusted: Callable[[str], str | None] | None = None,
        max_lives: int = DEFAULT_DERIVE_LIVES,
    ) -> None:
        self.game = game
        self.claims = claims
        self.algebra = claims.algebra
        self._trusted = trusted
        self.max_lives = max_lives
        self._search = RctSearch(game, self.algebra, via_lands=True)
        # a claim source that knows its largest land (an indexed table) bounds ours too
        self.max_size = largest_with_rct(claims)
        self._settled: dict[str, int | None] = {}  # land -> handle handed out (None: unused)
        self.report = DerivationReport()

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        settled = self._settled
        new = [land for land in dict.fromkeys(lands) if land not in settled]
        if new:
            claimed = self.claims.lookup(new)
            dangling: dict[str, str] = getattr(self.claims, "dangling", {})
            self.report.no_record.extend((land, dangling[land]) for land in new if land in dangling)
            for land in new:
                handle = claimed.get(land)
                settled[land] = None if handle is None else self._settle(land, handle)
        out: dict[str, int] = {}
        for land in lands:
            handle = settled.get(land)
            if handle is not None:
                out[land] = handle
        return out

    def looked_up(self) -> dict[str, int]:
        """Every land handed out so far with its (re-derived) RCT handle."""
        return {land: h for land, h in self._settled.items() if h is not None}

    def closure(self) -> list[int]:
        """The handles handed out and every tree below them, children first."""
        return self._search.closure(self.looked_up().values())

    def derive(self, land: str) -> int:
        """The RCT handle of a canonical land (or position) computed from the rules here."""
        started = time.perf_counter()
        before = len(self._search)
        handle = self._search.rct(land)
        self.report.derived_lands += len(self._search) - before
        self.report.seconds += time.perf_counter() - started
        return handle

    def _settle(self, land: str, claimed: int) -> int | None:
        """The handle to hand out for a claimed land: the claim once re-derived, the true
        RCT when the claim is refuted, None when the land is too large to re-derive."""
        algebra, report = self.algebra, self.report
        claimed_id = algebra.content_id(claimed)
        trusted_id = self._trusted(land) if self._trusted is not None else None
        if trusted_id == claimed_id:
            report.claims_used += 1
            report.from_trusted += 1
            return claimed
        if trusted_id is None and self.game.size(land) > self.max_lives:
            report.too_large.append((land, claimed_id))
            return None
        derived = self.derive(land)
        if derived != claimed:
            report.refuted.append(RctRefutation(land, claimed_id, algebra.content_id(derived)))
            return derived
        report.claims_used += 1
        return claimed
