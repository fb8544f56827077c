"""Canonical form v2: the equivalences v1 missed (adjacent repeats, one mirror per region),
checked on the named positions of issue #12 and on random redrawings, in the Python
reference and in the C core alike."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sprouts_helpers import random_playout, redraw
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.canon import CANON_VERSION, canonical_lands
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import parse

game = SproutsGame()


def python_canon(text: str) -> str:
    return game.join(canonical_lands(parse(text)))


def c_canon(text: str) -> str:
    """The C core reads one land at a time; a sum is the sorted union of its lands'."""
    core = sprouts_game._core
    assert core is not None
    if text == "!":
        return text
    return game.join(land for part in text.split("+") for land in core.canonical_lands(part))


CANONS: list[Callable[[str], str]] = [python_canon]
if sprouts_game._core is not None:
    CANONS.append(c_canon)
canons = pytest.mark.parametrize("canon", CANONS, ids=lambda f: f.__name__)


def test_version() -> None:
    assert CANON_VERSION == 2


@canons
@pytest.mark.parametrize(
    "one, other",
    [
        ("1aa", "12"),  # adjacent occurrences of a letter: one 1-life spot
        ("0.aa", "0.2"),
        ("a1a", "12"),  # adjacent cyclically
        ("0.ABCD|ABCD", "0.ABCD|ADCB"),  # one region mirrored on its own
        ("2A|2B|2C|2D|ABCD", "2A|2B|2C|2D|ADCB"),
        ("22aa", "222"),
        ("2a2a", "222"),
    ],
)
def test_named_equivalences(canon: Callable[[str], str], one: str, other: str) -> None:
    assert canon(one) == canon(other)


GLOP_CHILDREN_OF_0_1a1a = [
    "0.1AB|AB",
    "0.1a2a",
    "0.ABCD|ABCD",
    "0.AB|1AB",
    "0.A|1aAa",
    "11a1a",
    "1a1a.AB|AB",
    "1abc1cba",
]


def test_children_of_0_1a1a_are_glops() -> None:
    expected = sorted({python_canon(text) for text in GLOP_CHILDREN_OF_0_1a1a})
    assert sorted(game.children(game.canonical("0.1a1a"))) == expected


@canons
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), spots=st.integers(2, 7))
def test_region_mirrors_and_repeats_give_one_key(
    canon: Callable[[str], str], seed: int, spots: int
) -> None:
    rng = random.Random(seed)
    for key in random_playout(game, f"0*{spots}", rng, moves=3 * spots):
        for _ in range(3):
            drawn = redraw(key, rng, old_syntax=False, region_mirrors=True, repeats=True)
            assert canon(drawn) == key, (key, drawn)


@canons
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), spots=st.integers(2, 7))
def test_canon_of_a_redrawn_position_is_idempotent(
    canon: Callable[[str], str], seed: int, spots: int
) -> None:
    rng = random.Random(seed)
    for key in random_playout(game, f"0*{spots}", rng, moves=3 * spots):
        drawn = redraw(key, rng, old_syntax=False, region_mirrors=True, repeats=True)
        once = canon(drawn)
        assert canon(once) == once, (drawn, once)
