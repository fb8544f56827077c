"""Algebraic properties of the RCT algebra on random small trees (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cgt_reference import build, nested, simplest, sum_wins
from sproutsdb.solver.cgt import Algebra

# Small canonical trees (height ≤ 4, few children): sums of three stay cheap.
trees = st.recursive(
    st.just(frozenset()),
    lambda kids: st.frozensets(kids, max_size=3),
    max_leaves=7,
)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALG = Algebra()  # shared on purpose: results must not depend on what was met before


@FAST
@given(trees)
def test_reduction_is_idempotent_and_matches_reference(t: frozenset) -> None:
    h = build(ALG, t)
    assert ALG.reduce_children(ALG.children(h)) == h
    assert ALG.is_reduced(ALG.children(h))
    assert nested(ALG, h) == simplest(t)


@FAST
@given(trees)
def test_outcome_and_nimber_survive_reduction(t: frozenset) -> None:
    h = build(ALG, t)
    assert ALG.outcome(h) == ("W" if sum_wins([t]) else "L")
    normal = _nimber(t)
    assert ALG.nimber(h) == normal  # misère reduction preserves the normal-play nimber


def _nimber(t: frozenset) -> int:
    values = {_nimber(c) for c in t}
    m = 0
    while m in values:
        m += 1
    return m


@FAST
@given(st.lists(trees, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_content_ids_do_not_depend_on_discovery_order(ts: list, rnd: random.Random) -> None:
    first, second = Algebra(), Algebra()
    ids = [first.content_id(build(first, t)) for t in ts]
    order = list(range(len(ts)))
    rnd.shuffle(order)
    second.parse("{{2};{1;{2}};5}+3")  # meet other trees first
    again = {i: second.content_id(build(second, ts[i])) for i in order}
    assert ids == [again[i] for i in range(len(ts))]
    assert ids == [ALG.content_id(build(ALG, t)) for t in ts]


@FAST
@given(trees, trees)
def test_sum_is_commutative_and_normal_nimbers_xor(a: frozenset, b: frozenset) -> None:
    ha, hb = build(ALG, a), build(ALG, b)
    s = ALG.add(ha, hb)
    assert s == ALG.add(hb, ha)
    assert ALG.nimber(s) == ALG.nimber(ha) ^ ALG.nimber(hb)
    assert ALG.add(ha, ALG.ZERO) == ha


@FAST
@given(trees, trees, trees)
def test_sum_is_associative(a: frozenset, b: frozenset, c: frozenset) -> None:
    ha, hb, hc = build(ALG, a), build(ALG, b), build(ALG, c)
    assert ALG.add(ALG.add(ha, hb), hc) == ALG.add(ha, ALG.add(hb, hc))


@FAST
@given(trees, trees)
def test_sum_outcome_matches_play(a: frozenset, b: frozenset) -> None:
    s = ALG.add(build(ALG, a), build(ALG, b))
    assert ALG.outcome(s) == ("W" if sum_wins([a, b]) else "L")


@FAST
@given(trees)
def test_plus_one_is_an_involution(t: frozenset) -> None:
    h = build(ALG, t)
    assert ALG.plus1(ALG.plus1(h)) == h
    assert abs(ALG.height(ALG.plus1(h)) - ALG.height(h)) == 1


def test_g_plus_g_for_nim_heaps() -> None:
    alg = Algebra()
    assert alg.add(alg.nim(0), alg.nim(0)) == alg.ZERO
    assert alg.add(alg.ONE, alg.ONE) == alg.ZERO
    for n in range(2, 8):
        g = alg.nim(n)
        s = alg.add(g, g)
        # Misère nim: with a heap ≥ 2, n + n is a loss for the player to move; no heap.
        assert (alg.outcome(s), alg.nimber(s), alg.nim_value(s)) == ("L", 0, None)
    for n in range(1, 4):
        odd, even = alg.nim(2 * n + 1), alg.nim(2 * n)
        assert alg.add(odd, odd) == alg.add(even, even)  # (2n+1)+(2n+1) ~ 2n+2n+1+1
    assert alg.add(alg.nim(2), alg.nim(2)) == alg.parse("{2;3}")


def test_reduce_children_memo_and_duplicates() -> None:
    alg = Algebra()
    two, three = alg.nim(2), alg.nim(3)
    t = alg.reduce_children([two, three, two])
    assert t == alg.reduce_children(frozenset([three, two])) == alg.reduce_children((three, two))
    assert alg.children(t) == frozenset([two, three])


def test_sums_of_tall_trees_need_no_deep_recursion() -> None:
    alg = Algebra()
    t = alg.parse("{2}")
    for _ in range(1500):  # a chain {{…{2}…}}: each level one taller, never reducible
        t = alg.reduce_children([t])
    assert alg.height(t) == 1503
    s = alg.add(t, alg.parse("2+2"))
    assert alg.height(s) <= 1507 and alg.nimber(s) == alg.nimber(t)
    assert alg.plus1(alg.plus1(t)) == t
