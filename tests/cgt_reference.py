"""An independent, slow reference for the misère algebra (no tests in here).

Trees are nested frozensets (a tree is the set of its children). ``simplest`` applies
Conway's definition literally (ONAG ch. 12): simplify the children, then delete
reversible moves — a subset G of the options such that every other option has G as an
option, with the proviso that G = 0 needs a misère win — looking for G among *all*
grandchildren, with no mex rule, no heights and no prefixes. Outcomes of sums are found
by plain game-tree search. The cgt tests compare the algebra with this; the tests that
pin the reference itself down are in test_cgt_reference.py.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

from sproutsdb.solver.cgt import Algebra

Tree = frozenset

EMPTY: Tree = frozenset()


@cache
def heap(n: int) -> Tree:
    """The nim-heap *n as a canonical tree."""
    return frozenset(heap(k) for k in range(n))


@cache
def height(t: Tree) -> int:
    return 1 + max(map(height, t)) if t else 0


@cache
def wins(t: Tree) -> bool:
    """Misère: the player to move wins t alone (0 is a win: nothing to move)."""
    return not t or any(not wins(c) for c in t)


@cache
def nimber(t: Tree) -> int:
    values = {nimber(c) for c in t}
    m = 0
    while m in values:
        m += 1
    return m


@cache
def add(a: Tree, b: Tree) -> Tree:
    """Canonical (unreduced) tree of the sum a + b."""
    return frozenset({add(x, b) for x in a} | {add(a, y) for y in b})


def sum_wins(parts: list[Tree]) -> bool:
    """Misère outcome of a sum of trees, by searching the sum's game tree."""
    return _sum_wins(frozenset(Counter(p for p in parts if p).items()))


@cache
def _sum_wins(state: frozenset) -> bool:
    if not state:
        return True
    counts = dict(state)
    for part in counts:
        rest = Counter(counts)
        rest[part] -= 1
        for child in part:
            nxt = rest.copy()
            if child:
                nxt[child] += 1
            if not _sum_wins(frozenset((k, v) for k, v in nxt.items() if v)):
                return True
    return False


@cache
def simplest(t: Tree) -> Tree:
    """Conway's simplest form of t, by the literal definition."""
    kids = frozenset(simplest(c) for c in t)
    win = wins(kids)
    for option in kids:
        for g in option:
            if not g < kids:  # a proper subset of the options: something is removed
                continue
            if not g and not win:
                continue
            if all(g in other for other in kids - g):
                return g  # g is a grandchild of simplified trees: already simplest
    return kids


def rcts_up_to(n: int) -> list[Tree]:
    """All simplest forms of height ≤ n (their children: those of height ≤ n-1)."""
    level = [EMPTY]
    for _ in range(n):
        found = {
            simplest(frozenset(s)) for r in range(len(level) + 1) for s in combinations(level, r)
        }
        level = sorted(found, key=lambda t: (height(t), len(t), repr(sorted(map(id, t)))))
    return level


def build(algebra: Algebra, t: Tree) -> int:
    """Handle of (the RCT of) a nested-frozenset tree in an algebra, bottom-up."""
    return algebra.reduce_children([build(algebra, c) for c in t])


def nested(algebra: Algebra, handle: int) -> Tree:
    """The algebra's tree as a nested frozenset."""
    return frozenset(nested(algebra, c) for c in algebra.children(handle))
