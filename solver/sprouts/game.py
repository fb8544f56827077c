"""Sprouts behind the `Game` protocol: canonical keys, lands, children, lives.

A position key is its canonical lands joined by `+` (sorted), or `!` when empty. The
children of a land are computed once and memoised, and the children of a sum are
assembled from the children of its lands, so shared lands cost nothing twice.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from sproutsdb.solver.sprouts.canon import CANON_VERSION, canonical_lands
from sproutsdb.solver.sprouts.moves import raw_children
from sproutsdb.solver.sprouts.notation import RawPosition, parse

TERMINAL = "!"


def lives_of(raw: RawPosition) -> int:
    """Lives of a position: 3/2/1 for 0/1/2 spots, 1 per letter (half per occurrence)."""
    return sum(raw.lives[v] for v in {v for region in raw.regions for b in region for v in b})


class SproutsGame:
    """The game of Sprouts on the plane, in GLOP notation."""

    name = "sprouts"
    terminal = TERMINAL
    canon_version = CANON_VERSION

    def __init__(self, cache_size: int = 1_000_000) -> None:
        self._land_children: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._cache_size = cache_size

    # -- keys -----------------------------------------------------------------
    def parse(self, text: str) -> RawPosition:
        """Read a position in GLOP 2.x or 1.x notation (NotationError if unreadable)."""
        return parse(text)

    def format(self, raw: RawPosition) -> str:
        """Canonical GLOP 2.x string of a parsed position."""
        return self.join(canonical_lands(raw))

    def canonical(self, text: str) -> str:
        return self.format(parse(text))

    def components(self, key: str) -> tuple[str, ...]:
        if key == TERMINAL:
            return ()
        return tuple(key.split("+"))

    def join(self, components: Iterable[str]) -> str:
        lands = sorted(components)
        return "+".join(lands) if lands else TERMINAL

    def size(self, key: str) -> int:
        return 0 if key == TERMINAL else lives_of(parse(key))

    # -- moves ----------------------------------------------------------------
    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        cached = self._land_children.get(component)
        if cached is not None:
            return cached
        seen: dict[tuple[str, ...], None] = {}
        for child in raw_children(parse(component)):
            seen.setdefault(tuple(canonical_lands(child)), None)
        result = tuple(seen)
        if len(self._land_children) >= self._cache_size:
            self._land_children.clear()
        self._land_children[component] = result
        return result

    def children(self, key: str) -> list[str]:
        lands = self.components(key)
        seen: dict[str, None] = {}
        done: set[str] = set()
        for index, land in enumerate(lands):
            if land in done:
                continue  # equal lands give equal children
            done.add(land)
            rest = lands[:index] + lands[index + 1:]
            for child in self.component_children(land):
                seen.setdefault(self.join(rest + child), None)
        return list(seen)
