"""Circular sprouts on triangle-free planar graphs as a `Game` (docs/circular-sprouts.md).

A component is one circle: the cyclic list of open tips of its spots. A move joins a tip of
spot i to a tip of spot j, where i and j are distinct and not neighbours on the circle (else
the curve closes a cycle of length 2 or 3). The curve and its crossbar w cut the disc into
the circles i..j,w and j..i,w; the spent tip's neighbours around i (and j) fall on either
side, and w has one open tip on each side. Canonical form, in this order:

- runs of tipless spots shrink to one spot (only "adjacent or not" matters for them);
- a circle with fewer than four spots left has no move and is dropped;
- a circle's key is the least, as a tuple of tips, of its n rotations and n reflections.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from sproutsdb.solver.circular.notation import (
    MIN_SPOTS,
    TERMINAL,
    Cycle,
    key_lives,
    parse,
    write,
)
from sproutsdb.solver.ports.game import sum_children

CANON_VERSION = 1
IMPLEMENTATION = "python"


def compress(cycle: Cycle) -> Cycle:
    """The circle with every run of tipless spots shortened to one spot."""
    n = len(cycle)
    if n == 0 or all(t == 0 for t in cycle):
        return cycle[:1]
    start = next(i for i, t in enumerate(cycle) if t > 0)  # begin on a tipped spot
    out: list[int] = []
    for k in range(n):
        t = cycle[(start + k) % n]
        if t > 0 or out[-1] > 0:
            out.append(t)
    return tuple(out)


def least_symmetric(cycle: Cycle) -> Cycle:
    """The least of the circle's rotations and reflections."""
    n = len(cycle)
    best = cycle
    for seq in (cycle, cycle[::-1]):
        for r in range(n):
            candidate = seq[r:] + seq[:r]
            if candidate < best:
                best = candidate
    return best


@lru_cache(maxsize=1 << 16)
def canonical_cycle(cycle: Cycle) -> Cycle | None:
    """The canonical circle of a circle, or None when it has no move (it then vanishes)."""
    small = compress(cycle)
    if len(small) < MIN_SPOTS:
        return None
    return least_symmetric(small)


def split(cycle: Cycle, i: int, j: int, a: int, b: int) -> tuple[Cycle, Cycle]:
    """The two circles after joining spot i's tip number a to spot j's tip number b (i < j).

    Tips are counted from the side of the arc i+1..j-1; the `a` tips before the spent one
    stay on that side with spot i, the others go to the far side (likewise b for j).
    """
    near = (a, *cycle[i + 1 : j], b, 1)
    far = (cycle[j] - 1 - b, *cycle[j + 1 :], *cycle[:i], cycle[i] - 1 - a, 1)
    return near, far


def moves(cycle: Cycle) -> Iterable[tuple[int, int, int, int]]:
    """Every move (i, j, a, b) of a circle: tipped spots i < j, not equal and not adjacent."""
    n = len(cycle)
    for i in range(n):
        if cycle[i] == 0:
            continue
        for j in range(i + 2, n - 1 if i == 0 else n):
            if cycle[j] == 0:
                continue
            for a in range(cycle[i]):
                for b in range(cycle[j]):
                    yield i, j, a, b


@lru_cache(maxsize=1 << 14)
def cycle_children(cycle: Cycle) -> tuple[tuple[Cycle, ...], ...]:
    """Distinct children of a canonical circle, each its sorted canonical circles."""
    seen: dict[tuple[Cycle, ...], None] = {}
    for i, j, a, b in moves(cycle):
        halves = (canonical_cycle(half) for half in split(cycle, i, j, a, b))
        seen.setdefault(tuple(sorted(h for h in halves if h is not None)), None)
    return tuple(seen)


@lru_cache(maxsize=1 << 14)
def key_children(component: str) -> tuple[tuple[str, ...], ...]:
    """Distinct children of a canonical component key, each its sorted component keys."""
    return tuple(
        tuple(sorted(write(c) for c in child)) for child in cycle_children(read_key(component))
    )


@lru_cache(maxsize=1 << 16)
def read_key(component: str) -> Cycle:
    """The circle of a canonical component key."""
    (cycle,) = parse(component)
    return cycle


class CircularGame:
    """Sums of circular sprouts circles under girth ≥ 4, behind canonical string keys."""

    name = "circular"
    terminal = TERMINAL

    def __init__(self, cache_size: int | None = None) -> None:
        self.cache_size = cache_size  # accepted like the other engines; caches are module-wide

    def canonical(self, text: str) -> str:
        cycles = (canonical_cycle(c) for c in parse(text))
        return self.join(write(c) for c in cycles if c is not None)

    def components(self, key: str) -> tuple[str, ...]:
        return () if key == TERMINAL else tuple(key.split("+"))

    def join(self, components: Iterable[str]) -> str:
        parts = sorted(components)
        return "+".join(parts) if parts else TERMINAL

    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        return key_children(component)

    def children(self, key: str) -> list[str]:
        return sum_children(self, key, self.component_children)

    def size(self, key: str) -> int:
        return key_lives(key)
