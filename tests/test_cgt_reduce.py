"""The reduction against the paper's counts and against Conway's definition applied literally."""

from __future__ import annotations

import random
from itertools import combinations, combinations_with_replacement

import pytest

from cgt_reference import add, build, heap, height, nested, rcts_up_to, simplest, sum_wins
from sproutsdb.solver.cgt import Algebra


def all_subsets(items: list[int]) -> list[list[int]]:
    return [list(s) for r in range(len(items) + 1) for s in combinations(items, r)]


def rct_levels(alg: Algebra, top: int) -> list[list[int]]:
    """levels[n] = handles of every RCT of height ≤ n, found by reducing all children sets."""
    levels = [[alg.ZERO]]
    for n in range(1, top + 1):
        found = {alg.reduce_children(s) for s in all_subsets(levels[-1])}
        assert all(alg.height(h) <= n for h in found)
        levels.append(sorted(found))
    return levels


def test_counts_of_rcts_by_height_are_1_2_3_5_22() -> None:
    alg = Algebra()
    levels = rct_levels(alg, 4)
    assert [len(level) for level in levels] == [1, 2, 3, 5, 22]
    # An RCT of height ≤ n is exactly an irreducible set of RCTs of height ≤ n-1.
    for n in range(1, 5):
        irreducible = [s for s in all_subsets(levels[n - 1]) if alg.is_reduced(s)]
        assert len(irreducible) == len(levels[n])
    assert len(alg) == 22  # nothing else was interned on the way


def test_rcts_of_height_at_most_3_are_0_1_2_3_and_2() -> None:
    alg = Algebra()
    assert sorted(alg.format(h) for h in rct_levels(alg, 3)[3]) == ["0", "1", "2", "3", "{2}"]


@pytest.fixture(scope="module")
def r4() -> list:
    return rcts_up_to(4)


@pytest.fixture(scope="module")
def witnesses(r4: list) -> list:
    """Trees that tell the 22 RCTs of height ≤ 4 apart: those RCTs and their pairwise sums."""
    return r4 + [add(a, b) for a, b in combinations_with_replacement(r4, 2)]


def test_rcts_of_height_4_are_pairwise_distinguishable(r4: list, witnesses: list) -> None:
    for a, b in combinations(r4, 2):
        assert any(sum_wins([a, t]) != sum_wins([b, t]) for t in witnesses)


def agree(alg: Algebra, tree: frozenset, witnesses: list) -> None:
    """The algebra's RCT of ``tree`` is Conway's simplest form and plays like ``tree``."""
    h = build(alg, tree)
    rct = nested(alg, h)
    assert rct == simplest(tree)
    assert alg.height(h) == height(rct)
    assert alg.outcome(h) == ("W" if sum_wins([tree]) else "L")
    for t in witnesses:
        assert sum_wins([rct, t]) == sum_wins([tree, t])


def test_every_tree_on_rcts_of_height_3_reduces_like_conway(witnesses: list) -> None:
    alg = Algebra()
    r3 = rcts_up_to(3)
    for r in range(len(r3) + 1):
        for kids in combinations(r3, r):
            agree(alg, frozenset(kids), witnesses)


def structured_trees(r4: list, rng: random.Random, count: int) -> list[frozenset]:
    """Trees built to have reducers: a tree G's children plus options that have G as a child."""
    pool = list(r4)
    for _ in range(60):  # some taller RCTs to draw from
        pool.append(simplest(frozenset(rng.sample(r4, rng.randint(1, 6)))))
    trees = []
    for _ in range(count):
        g = rng.choice(pool)
        above = [t for t in pool if g in t] + [
            simplest(frozenset([g, *rng.sample(pool, rng.randint(0, 2))])) for _ in range(3)
        ]
        extra = rng.sample(above, rng.randint(1, min(3, len(above))))
        noise = rng.sample(pool, rng.randint(0, 1))
        trees.append(frozenset(g | set(extra) | set(noise)))
    return trees


def test_trees_with_reducers_reduce_like_conway(r4: list, witnesses: list) -> None:
    alg = Algebra()
    rng = random.Random(20240601)
    for tree in structured_trees(r4, rng, 150):
        agree(alg, tree, witnesses[:80])


def test_random_sets_of_height_4_rcts_reduce_like_conway(r4: list) -> None:
    alg = Algebra()
    rng = random.Random(7)
    for _ in range(300):
        tree = frozenset(rng.sample(r4, rng.randint(0, len(r4))))
        assert nested(alg, build(alg, tree)) == simplest(tree)


def test_a_reducible_prefix_is_never_the_reducer() -> None:
    alg = Algebra()
    # {0;2} reduces to 1, so it is no RCT and no tree has it as a child. The options of
    # {0;2;{1;{2}}} above it do have 1 as a child; the smaller prefix {0} = 1 catches it.
    assert alg.parse("{0;2;{1;{2}}}") == alg.nim(1)
    # Here {3} lacks the child 1: the prefix {0} fails and {0;2}, not an RCT, is no reducer.
    t = alg.parse("{0;2;{3}}")
    assert alg.format(t) == "{0;2;{3}}"
    assert simplest(frozenset([heap(0), heap(2), frozenset([heap(3)])])) == nested(alg, t)


def test_sums_and_plus_one_match_the_reference(r4: list) -> None:
    alg = Algebra()
    one = heap(1)
    for x in r4:
        hx = build(alg, x)
        y = alg.plus1(hx)
        assert nested(alg, y) == simplest(add(x, one))
        # G ~ H + *1 implies heights differ by exactly one; the taller one is factored.
        assert abs(alg.height(y) - alg.height(hx)) == 1
        tall, short = (y, hx) if alg.height(y) > alg.height(hx) else (hx, y)
        assert alg.plus1_of(tall) == short and alg.plus1_of(short) != tall
    for a, b in combinations_with_replacement(r4[:12], 2):
        assert nested(alg, alg.add(build(alg, a), build(alg, b))) == simplest(add(a, b))


def test_factoring_is_found_for_every_tree_met() -> None:
    """Every pair (X, X + *1) present in the table is recorded, whatever the order met."""
    alg = Algebra()
    r4 = rcts_up_to(4)
    handles = [build(alg, t) for t in r4]
    rng = random.Random(3)
    for _ in range(40):
        alg.add(rng.choice(handles), rng.choice(handles))
    trees = {nested(alg, h): h for h in alg.handles()}
    for tree, h in trees.items():
        partner = trees.get(simplest(add(tree, heap(1))))
        if partner is not None and alg.height(partner) > alg.height(h):
            assert alg.plus1_of(partner) == h
        if alg.plus1_of(h) is not None:
            assert trees[simplest(add(tree, heap(1)))] == alg.plus1_of(h)
