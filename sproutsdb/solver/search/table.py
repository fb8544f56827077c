"""The in-memory transposition table of the normal-play search.

It knows exact nimbers of components (proven here or read from the store) and the
"nimber(C) ≠ n" facts of proven winning couples (C, n), which are never stored but save
re-searching. Every insertion is checked against what is already known, so a wrong stored
fact that meets a proof made here surfaces as an error instead of a wrong answer.

The table is a cache, never the only copy of a proof: proven nimbers go to the store, so
the solver may `clear` it when it outgrows its capacity (after flushing what it proved) and
read back what it needs; only exclusions are lost, and they are re-proven if asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from sproutsdb.solver.ports.proofstore import ConflictError


class InconsistentFactError(ConflictError):
    """Two facts about one component contradict each other (a wrong stored fact, or a bug)."""

    def __init__(self, key: str, claim: str, known: str) -> None:
        super().__init__(f"nimber of {key!r}: {claim} contradicts {known}")
        self.key = key


class TranspositionTable:
    """Known nimbers and excluded values of single components."""

    def __init__(self) -> None:
        self._nimbers: dict[str, int] = {}
        # Component -> a bit mask of its excluded values (bit n: nimber ≠ n): one int is
        # ~30 bytes where a set of ints was ~220, and the table holds ~10⁵ of them.
        self._excluded: dict[str, int] = {}
        self._from_store: set[str] = set()
        # Winning couples a resume record claims, as masks like _excluded's: none is used
        # before `redeem` re-derives it, the first time the search asks about it (taking
        # up 0*33's record re-derived them all first: ~100 s before the first visit).
        self._claimed: dict[str, int] = {}
        self.redeem: Callable[[str, int], bool] | None = None

    def __len__(self) -> int:
        return len(self._nimbers) + len(self._excluded)

    def clear(self) -> None:
        """Forget everything (the solver flushes proven nimbers to the store first)."""
        self._nimbers.clear()
        self._excluded.clear()
        self._from_store.clear()

    @property
    def nimbers(self) -> dict[str, int]:
        """Component -> exact nimber; read-only by convention (the search's hot lookup)."""
        return self._nimbers

    def nimber(self, key: str) -> int | None:
        """The known nimber of a component, or None."""
        return self._nimbers.get(key)

    def is_excluded(self, key: str, n: int) -> bool:
        """Whether the couple (key, n) is known to be winning, i.e. nimber(key) ≠ n."""
        known = self._nimbers.get(key)
        if known is not None:
            return known != n
        if (self._excluded.get(key, 0) >> n) & 1:
            return True
        return bool(self._claimed) and self._redeemed(key, n)

    def couple_value(self, key: str, n: int) -> bool | None:
        """True if (key, n) is a known losing couple, False a known winning one, else None."""
        known = self._nimbers.get(key)
        if known is not None:
            return known == n
        if (self._excluded.get(key, 0) >> n) & 1:
            return False
        if self._claimed and self._redeemed(key, n):
            return False
        return None

    def claim(self, claims: Mapping[str, Iterable[int]], limit: int) -> int:
        """Hold at most `limit` claimed winning couples (land -> values), each used only
        once `redeem` re-derives it; returns how many are held."""
        held = 0
        for key, values in claims.items():
            mask = 0
            for n in values:
                if held >= limit:
                    break
                if not (mask >> n) & 1:
                    mask |= 1 << n
                    held += 1
            if mask:
                self._claimed[key] = self._claimed.get(key, 0) | mask
            if held >= limit:
                break
        return held

    def drop_claims(self) -> None:
        """Forget the claims not re-derived yet (the call they were for has ended)."""
        self._claimed.clear()

    def _redeemed(self, key: str, n: int) -> bool:
        """A claim on (key, n), if held, re-derived now (once): True if it holds."""
        mask = self._claimed.get(key, 0)
        if not (mask >> n) & 1:
            return False
        mask &= ~(1 << n)
        if mask:
            self._claimed[key] = mask
        else:
            del self._claimed[key]
        if self.redeem is None or not self.redeem(key, n):
            return False
        self.exclude(key, n)
        return self.is_excluded(key, n)

    @property
    def exclusions(self) -> Mapping[str, set[int]]:
        """Component of unknown nimber -> the n proven ≠ it, and the claims not re-derived
        yet (a resume save passes them on as claims): a read-only view, whose sets are made
        as they are read (a resume save reads them all once)."""
        if not self._claimed:
            return _ExclusionView(self._excluded)
        masks = dict(self._claimed)
        for key, mask in self._excluded.items():
            masks[key] = masks.get(key, 0) | mask
        return _ExclusionView(masks)

    def exclude(self, key: str, n: int) -> None:
        """Record a proven winning couple (key, n): nimber(key) ≠ n."""
        known = self._nimbers.get(key)
        if known is not None:
            if known == n:
                raise InconsistentFactError(key, f"proven ≠ {n}", self._source(key, known))
            return
        self._excluded[key] = self._excluded.get(key, 0) | 1 << n

    def prove(self, key: str, n: int) -> None:
        """Record a proven losing couple (key, n): nimber(key) = n."""
        self._set(key, n, "proven")

    def learn(self, key: str, n: int) -> None:
        """Record a nimber read from the store."""
        self._set(key, n, "read from the store")
        self._from_store.add(key)

    def forget_stored(self, key: str) -> None:
        """Drop a store-read nimber so it gets proven again (proven ones are kept)."""
        if key in self._from_store:
            self._from_store.discard(key)
            del self._nimbers[key]

    def _set(self, key: str, n: int, how: str) -> None:
        known = self._nimbers.get(key)
        if known is not None:
            if known != n:
                raise InconsistentFactError(key, f"{how} = {n}", self._source(key, known))
            return
        excluded = self._excluded.pop(key, 0)
        if (excluded >> n) & 1:
            self._excluded[key] = excluded
            raise InconsistentFactError(key, f"{how} = {n}", f"a proof that it is ≠ {n}")
        self._nimbers[key] = n

    def _source(self, key: str, known: int) -> str:
        how = "read from the store" if key in self._from_store else "proven"
        return f"the nimber {known} {how}"


class _ExclusionView(Mapping[str, set[int]]):
    """The table's exclusion masks read as sets of excluded values."""

    def __init__(self, masks: dict[str, int]) -> None:
        self._masks = masks

    def __getitem__(self, key: str) -> set[int]:
        mask = self._masks[key]
        return {n for n in range(mask.bit_length()) if (mask >> n) & 1}

    def __iter__(self) -> Iterator[str]:
        return iter(self._masks)

    def __len__(self) -> int:
        return len(self._masks)
