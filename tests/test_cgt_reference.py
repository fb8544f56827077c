"""The tests that pin down the independent misère reference (tests/cgt_reference.py)."""

from __future__ import annotations

from cgt_reference import add, heap, rcts_up_to, simplest, sum_wins

# -- the reference itself ----------------------------------------------------------------


def test_reference_simplest_matches_paper_basics() -> None:
    assert simplest(frozenset({heap(0), heap(1), heap(3), heap(5)})) == heap(2)
    assert simplest(frozenset({heap(2), heap(3)})) == frozenset({heap(2), heap(3)})
    assert simplest(add(heap(2), heap(1))) == heap(3)
    assert simplest(add(heap(2), heap(2))) == frozenset({heap(2), heap(3)})


def test_reference_counts_rcts_of_height_at_most_4() -> None:
    assert [len(rcts_up_to(n)) for n in range(5)] == [1, 2, 3, 5, 22]


def test_reference_sum_outcomes_of_misere_nim() -> None:
    # Misère nim (Bouton): with a heap ≥ 2 the normal rule; else odd count of 1s loses.
    for heaps in [(1,), (1, 1), (1, 1, 1), (2, 2), (2, 3), (1, 2, 3), (3, 3), (0,), ()]:
        big = any(h >= 2 for h in heaps)
        xor = 0
        for h in heaps:
            xor ^= h
        expected = xor != 0 if big else sum(heaps) % 2 == 0
        assert sum_wins([heap(h) for h in heaps]) is expected, heaps
