"""Canonical form: invariance under redrawing, idempotency, moves and lives."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sprouts_helpers import random_playout, redraw
from sproutsdb.solver.sprouts.game import SproutsGame, lives_of
from sproutsdb.solver.sprouts.moves import raw_children
from sproutsdb.solver.sprouts.notation import parse

game = SproutsGame()


def positions_from_playouts(seed: int, spots: int) -> list[str]:
    rng = random.Random(seed)
    return random_playout(game, f"0*{spots}", rng, moves=3 * spots)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), spots=st.integers(2, 6))
def test_redrawing_a_position_never_changes_its_key(seed: int, spots: int) -> None:
    rng = random.Random(seed)
    for key in positions_from_playouts(seed, spots):
        for _ in range(3):
            drawn = redraw(key, rng)
            assert game.canonical(drawn) == key, (key, drawn)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), spots=st.integers(2, 7))
def test_canonical_form_is_idempotent(seed: int, spots: int) -> None:
    for key in positions_from_playouts(seed, spots):
        assert game.canonical(key) == key


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), spots=st.integers(2, 5))
def test_every_move_removes_exactly_one_life(seed: int, spots: int) -> None:
    # The move itself uses two lives and adds one (the new spot). The reductions of the
    # canonical form may then drop lives that can never be used (a dead region's spot),
    # so a canonical child has at most one life less, and exactly one less before them.
    for key in positions_from_playouts(seed, spots):
        lives = game.size(key)
        for raw in raw_children(parse(key)):
            assert lives_of(raw) == lives - 1, key
        for child in game.children(key):
            assert game.size(child) <= lives - 1, (key, child)


def test_reductions_drop_only_unusable_lives() -> None:
    # Joining A and B in the region without the 1 leaves the new spot alone in two
    # dead regions: the child 1 has two lives, not three.
    assert game.size("1AB|AB") == 4
    assert "1" in game.children("1AB|AB")


@pytest.mark.parametrize("spots", range(2, 11))
def test_children_of_n_spots(spots: int) -> None:
    # ⌊(n−1)/2⌋ ways to share the other spots between inside and outside of a loop
    # (up to symmetry) plus the loop with all outside, plus joining two spots.
    assert len(game.children(f"0*{spots}")) == (spots - 1) // 2 + 2


def test_children_are_canonical_and_distinct() -> None:
    for key in ["0*4", "0.AB|AB", "1ABC|ADE|BCDE", "2ab2ba", "0.1a2a", "AB|CD|ABCD"]:
        key = game.canonical(key)
        children = game.children(key)
        assert len(children) == len(set(children))
        assert all(game.canonical(c) == c for c in children)


def test_known_children() -> None:
    assert sorted(game.children("0*2")) == sorted(["0.AB|AB", "1a1a"])
    assert game.children("22") == ["!"]
    assert sorted(game.children("0.AB|AB")) == sorted(
        [game.canonical(p) for p in ["0", "0.2", "1a2a", "AB|CD|AB.CD"]]
    )


def test_sums_keep_equal_lands_apart() -> None:
    key = game.canonical("0.AB|AB+0.AB|AB")
    assert game.components(key) == ("0.AB|AB", "0.AB|AB")
    assert game.join(reversed(game.components(key))) == key
    assert "0+0.AB|AB" in game.children(key)


def test_mirror_images_share_a_key() -> None:
    # A boundary with three distinct uppercase letters has two cyclic orders, mirror images.
    key = game.canonical("1ABC|BCDE|ADE")
    mirrored = "CBA1|EDCB|EDA"
    assert game.canonical(mirrored) == key


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), spots=st.integers(2, 12))
def test_lives_read_from_the_key_match_the_parsed_position(seed: int, spots: int) -> None:
    for key in positions_from_playouts(seed, spots):
        assert game.size(key) == lives_of(parse(key)), key


def test_zero_spots_is_the_empty_position() -> None:
    assert game.canonical("0*0") == "!"
    assert game.size("!") == 0
