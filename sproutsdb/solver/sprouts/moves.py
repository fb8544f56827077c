"""Sprouts moves on a raw position: every way to draw one curve with a new spot on it.

A move joins two live vertex occurrences of one region (or one vertex with two lives
to itself). Within one boundary the curve splits the region in two and the region's
other boundaries go to either side in every way (interchangeable ones, isolated spots
alike, by how many go inside, not by which); between two boundaries it merges them into
one. The new spot has one life and appears on both sides of the curve.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from math import prod

from sproutsdb.errors import UserError
from sproutsdb.solver.sprouts.notation import RawPosition


class UnsupportedSurface(UserError):
    """Moves on surfaces of genus > 0 are not implemented yet."""


class TooManySplits(UserError, ValueError):
    """A region whose other boundaries can be shared in more ways than any search can try."""


# The ways to share a region's other boundaries between the two sides of a curve, counting
# the splits that differ only by swapping interchangeable boundaries once: beyond 2**40
# the moves are refused, and beyond 63 other boundaries too (the compiled core's
# MAX_SPLIT_OTHERS and MAX_SPLIT_MASK are the same numbers). 0*46's region has 45 others
# that are all isolated spots: 46 distinct splits, not 2**45.
MAX_SPLIT_OTHERS = 40
MAX_SPLIT_MASK = 63


def raw_children(raw: RawPosition) -> Iterator[RawPosition]:
    """Yield the position after each move (not yet normalised; duplicates included)."""
    lives = raw.lives
    for r, region in enumerate(raw.regions):
        occurrences = [
            (b, i)
            for b, boundary in enumerate(region)
            for i, v in enumerate(boundary)
            if lives[v] > 0
        ]
        if not occurrences:
            continue
        if raw.genus[r]:
            raise UnsupportedSurface(
                "moves on surfaces of genus > 0 are not supported yet (plane positions only)"
            )
        for x, (b1, i1) in enumerate(occurrences):
            u = region[b1][i1]
            for b2, i2 in occurrences[x:]:
                w = region[b2][i2]
                if u == w:
                    if i1 != i2 or lives[u] < 2:
                        continue  # a letter's two corners: one life, cannot be joined to itself
                    yield from _split(raw, r, b1, i1, i1)
                elif b1 == b2:
                    yield from _split(raw, r, b1, i1, i2)
                else:
                    yield _merge(raw, r, b1, i1, b2, i2)


def _replace_region(
    raw: RawPosition, r: int, new_regions: list[list[list[int]]], lives: list[int]
) -> RawPosition:
    regions = raw.regions[:r] + new_regions + raw.regions[r + 1 :]
    genus = raw.genus[:r] + [0] * len(new_regions) + raw.genus[r + 1 :]
    return RawPosition(regions, genus, lives)


def _split(raw: RawPosition, r: int, b: int, i: int, j: int) -> Iterator[RawPosition]:
    """Curve from corner i to corner j (i <= j) of boundary b: the region splits in two."""
    region = raw.regions[r]
    boundary = region[b]
    lives = raw.lives[:]
    n = len(lives)
    lives.append(1)
    lives[boundary[i]] -= 1
    lives[boundary[j]] -= 1
    if i == j:
        inside = [boundary[i], n]
        outside = boundary[i:] + boundary[:i] + [n]
    else:
        inside = [*boundary[i : j + 1], n]
        outside = boundary[j:] + boundary[: i + 1] + [n]
    others = region[:b] + region[b + 1 :]
    k = len(others)
    if k > MAX_SPLIT_MASK:
        raise TooManySplits(f"a region with {k + 1} boundaries has 2**{k} ways to split; too many")
    pred = _interchangeable_predecessors(raw, r, b)
    heads: list[int] = []
    for t, p in enumerate(pred):
        heads.append(t if p < 0 else heads[p])
    if prod(size + 1 for size in Counter(heads).values()) > 2**MAX_SPLIT_OTHERS:
        raise TooManySplits(
            f"a region with {k + 1} boundaries has more than 2**{MAX_SPLIT_OTHERS} distinct "
            "ways to split; too many"
        )
    for sides in _sides(pred):
        first = [inside] + [o for o, s in zip(others, sides) if s == 0]
        second = [outside] + [o for o, s in zip(others, sides) if s == 1]
        yield _replace_region(raw, r, [first, second], lives)


def _interchangeable_predecessors(raw: RawPosition, r: int, b: int) -> list[int]:
    """Per other boundary of region r (boundary b left out): the index among the others of
    the previous one it is interchangeable with, or -1. Interchangeable: boundaries of one
    vertex with the same lives that occurs nowhere else in the position (the core's
    free_boundaries)."""
    occurrences = Counter(v for region in raw.regions for bd in region for v in bd)
    last: dict[int, int] = {}
    pred: list[int] = []
    for index, boundary in enumerate(raw.regions[r]):
        if index == b:
            continue
        v = boundary[0] if len(boundary) == 1 else -1
        lives = raw.lives[v] if v >= 0 else -1
        if v < 0 or occurrences[v] != 1 or not 0 <= lives <= 3:
            pred.append(-1)
            continue
        pred.append(last.get(lives, -1))
        last[lives] = len(pred) - 1
    return pred


def _sides(pred: list[int]) -> Iterator[tuple[int, ...]]:
    """The ways to share the others (0 inside, 1 outside) in increasing order (the first
    other the most significant), each the first of those that differ only by swapping
    interchangeable boundaries: one whose predecessor is outside is outside too."""
    sides = [0] * len(pred)

    def walk(t: int) -> Iterator[tuple[int, ...]]:
        if t == len(pred):
            yield tuple(sides)
            return
        if pred[t] < 0 or sides[pred[t]] == 0:
            sides[t] = 0
            yield from walk(t + 1)
        sides[t] = 1
        yield from walk(t + 1)
        sides[t] = 0

    yield from walk(0)


def _merge(raw: RawPosition, r: int, b1: int, i: int, b2: int, j: int) -> RawPosition:
    """Curve between two boundaries of one region: they become one boundary."""
    region = raw.regions[r]
    first, second = region[b1], region[b2]
    u, w = first[i], second[j]
    lives = raw.lives[:]
    n = len(lives)
    lives.append(1)
    # A vertex that had lines gains a corner (its corner splits around the new line);
    # an isolated spot (three lives) had one corner and keeps one.
    merged = first[i:] + first[:i]
    if raw.lives[u] < 3:
        merged.append(u)
    merged.append(n)
    merged += second[j:] + second[:j]
    if raw.lives[w] < 3:
        merged.append(w)
    merged.append(n)
    lives[u] -= 1
    lives[w] -= 1
    boundaries = [merged] + [bd for k, bd in enumerate(region) if k != b1 and k != b2]
    return _replace_region(raw, r, [boundaries], lives)
