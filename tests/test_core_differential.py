"""The compiled core (solver/sprouts/_core.c and its core_*.c parts) against the Python reference.

Keys are the identity of stored facts, so the core must give byte-identical children, in
the same order, for every land: checked on every land of the game tree of 0*4, on lands of
seeded random games of 0*5..0*8, on redrawn lands, on letter names beyond Y, and on text
the core must hand back to Python. Skipped when the extension is not built, unless
SPROUTSDB_REQUIRE_CORE=1 (then a missing core is an error).
"""

from __future__ import annotations

import contextlib
import gc
import os
import random
import re
import subprocess
import sys
from types import MappingProxyType

import pytest

from sprouts_helpers import random_playout, redraw
from sproutsdb.errors import UserError
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.canon import CANON_VERSION, canonical_lands
from sproutsdb.solver.sprouts.notation import key_lives, parse, upper_name

try:
    from sproutsdb.solver.sprouts import _core
except ImportError:
    if os.environ.get("SPROUTSDB_REQUIRE_CORE") == "1":
        raise
    pytest.skip("the C core is not built (pip install -e .)", allow_module_level=True)

reference = sprouts_game.python_land_children


def assert_same_children(land: str) -> tuple[tuple[str, ...], ...]:
    expected = reference(land)
    got = _core.land_children(land)
    assert got == expected, land
    return expected


def test_core_ports_the_current_canon_version() -> None:
    assert _core.CANON_VERSION == CANON_VERSION


def test_every_land_of_the_tree_of_four_spots() -> None:
    # The lands of the positions of a game tree are the closure of its root's lands under
    # land children (a child of a sum replaces one land by the lands of one of its children).
    seen = {"0*4"}
    todo = ["0*4"]
    while todo:
        for child in assert_same_children(todo.pop()):
            for land in child:
                if land not in seen:
                    seen.add(land)
                    todo.append(land)
    assert len(seen) == 1188  # 1 499 with canon_version 1


def playout_lands() -> list[str]:
    """Distinct lands met in seeded random games of 0*5..0*8."""
    game = sprouts_game.SproutsGame()
    rng = random.Random(20240611)
    lands: dict[str, None] = {}
    for spots in (5, 6, 7, 8):
        for _ in range(150):
            for key in random_playout(game, f"0*{spots}", rng, moves=3 * spots):
                lands.update(dict.fromkeys(game.components(key)))
    return list(lands)


PLAYOUT_LANDS = playout_lands()


def test_lands_of_random_games_of_five_to_eight_spots() -> None:
    """Every third playout land in the quick suite (the reference is pure Python and slow)."""
    assert len(PLAYOUT_LANDS[::3]) > 600  # 675
    for land in PLAYOUT_LANDS[::3]:
        assert_same_children(land)


@pytest.mark.slow
def test_every_land_of_random_games_of_five_to_eight_spots() -> None:
    assert len(PLAYOUT_LANDS) > 1800  # 2 025
    for land in PLAYOUT_LANDS:
        assert_same_children(land)


def test_redrawn_lands_get_the_reference_canonical_form_and_children() -> None:
    # Redrawn text is not canonical: other letter names, rotations, orders, mirror image.
    # Its children come in another order, the order of its own moves, in both.
    rng = random.Random(7)
    for index, land in enumerate(PLAYOUT_LANDS[::3]):
        for _ in range(2):
            drawn = redraw(land, rng, old_syntax=False)
            assert _core.canonical_lands(drawn) == tuple(canonical_lands(parse(drawn))), drawn
        if index % 4 == 0:
            assert_same_children(drawn)


# Lands where several boundaries are one isolated spot of the same lives in one region
# (the core enumerates moves once per way of swapping them): met in solves of 0*12, 0*17.
INTERCHANGEABLE_SPOTS = [
    "0*9",
    "0*7.1",
    "0*5.2",
    "0*3.2.2",
    "0.2.2.AB|AB",
    "0.AB|2.2.AB",
    "1a1a.2.2",
    "0*6.AB|AB",
    "0*5.AB|ABC|DEC|12.DE",
    "0*4.A.BC|2A|BC",
    "0*3.A|AB|0.1a1a.B",
    "0*3.A.BC|0.A.D|BC|EFD|0*2.EF",
    "0*4.2.2.1.1.AB|0*2.1.AB",
    "0*2.1.1.2.AB|0*3.2.2.AB",
]


@pytest.mark.parametrize("land", INTERCHANGEABLE_SPOTS)
def test_moves_that_swap_interchangeable_spots_are_made_once(land: str) -> None:
    assert_same_children(land)


@pytest.mark.parametrize("land", ["0*46", "0*45.AB|0*2.AB", "0*64", "0*20.2.2.1.1.12.12"])
def test_a_region_of_more_than_41_boundaries_splits_once_per_way_to_share_them(land: str) -> None:
    """Interchangeable boundaries are shared by how many go inside, not by which: 0*46's
    45 other spots give 46 splits where 2**45 were refused (GLOP's 0*46, 0*47, 0*53), and
    the reference makes the same ones in the same order."""
    assert_same_children(land)


@pytest.mark.parametrize("boundaries", [42, 70])
def test_a_region_with_too_many_distinct_splits_is_refused_alike(boundaries: int) -> None:
    """42 boundaries of two spots each share in 2**41 distinct ways; 70 do not fit a mask."""
    land = ".".join(["12"] * boundaries)
    with pytest.raises(ValueError, match="ways to split; too many") as expected:
        reference(land)
    with pytest.raises(ValueError) as got:
        _core.land_children(land)
    assert str(got.value) == str(expected.value)


def test_key_lives_matches_the_reference() -> None:
    for land in PLAYOUT_LANDS + INTERCHANGEABLE_SPOTS + ["", "0*12+AB|AB", "Z(25).Z(25)"]:
        assert _core.key_lives(land) == key_lives(land), land
    for text in ("0*", "0.@1", "{3}0", "0 1", "0*2.@2", "A(", "0**2"):
        with pytest.raises(_core.Unsupported):
            _core.key_lives(text)
        assert sprouts_game.text_lives(text) == key_lives(text)


def test_letter_names_beyond_y() -> None:
    # 30 uppercase letters (A..Y, Z(25)..Z(29)) around one boundary, each pair closing a
    # region that holds i spots `2`, so no two regions look alike; and 29 lowercase
    # letters nested on one boundary (a..y, z(25)..z(28)) around a spot, none adjacent to
    # its own repeat (canon v2 would make such a pair a spot `2`).
    letters = [upper_name(i) for i in range(30)]
    regions = ["".join(letters)]
    regions += [letters[2 * i] + letters[2 * i + 1] + "2" * i for i in range(15)]
    many_upper = "|".join(regions)
    lowers = [chr(97 + i) if i < 25 else f"z({i})" for i in range(29)]
    many_lower = "1" + "".join(lowers) + "2" + "".join(reversed(lowers))
    for land in (many_upper, many_lower, "2" + many_lower + "2"):
        children = assert_same_children(land)
        assert any("Z(" in part or "z(" in part for child in children for part in child)
        assert _core.canonical_lands(land) == tuple(canonical_lands(parse(land)))


@pytest.mark.parametrize(
    "text",
    [
        "0*2+0",
        "0.}]!",
        "!",
        " 0*3",
        "0*3@1",
        "0.AB}AB}]",
        "0*0",
        "",
        "A",
        "AA",
        "aa|a",
        "0a",
        "01",
        "0*2a",
        "a.a",
        "AB|AB|A",
        "B(x)",
        "A(",
        "0.|0",
        "0|",
        "3",
        "0**2",
    ],
)
def test_text_outside_the_core_goes_to_python(text: str) -> None:
    # The same children, or the same exception (NotationError, UnsupportedSurface).
    try:
        expected: object = reference(text)
    except UserError as error:
        expected = (type(error), str(error))
    try:
        got: object = sprouts_game.land_children(text)
    except UserError as error:
        got = (type(error), str(error))
    assert got == expected


def test_random_text_never_crashes_and_never_differs() -> None:
    # Whatever the core accepts, it reads as Python does; what Python rejects, it refuses.
    rng = random.Random(11)
    alphabet = "0012AABab.|*(1)"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 9)))
        if re.search(r"\*\d\d", text):
            continue  # 0*k, k >= 10: 2**(k-1) ways to split, too slow for the reference
        try:
            expected = reference(text)
        except NotationError:
            with pytest.raises(_core.Unsupported):
                _core.land_children(text)
            continue
        try:
            got = _core.land_children(text)
        except _core.Unsupported:
            continue
        assert got == expected, text


def test_non_strings_are_refused() -> None:
    with pytest.raises(TypeError):
        _core.land_children(b"0*2")  # type: ignore[arg-type]


def test_no_python_objects_leak() -> None:
    lands = PLAYOUT_LANDS[:200]
    values = {key: 0 for land in lands for key in _child_keys(land)}

    def calls(land: str) -> None:
        _core.land_children(land)
        _core.canonical_lands(land)
        _core.first_child(land, bool, True)  # takes the first child with a land
        _core.first_child(land, lambda child: False, True)  # both passes, nothing taken
        _core.land_children_until(land, bool)  # stops at the first child with a land
        _core.land_children_until(land, lambda child: False)  # the whole list
        _core.land_child_values(land, values, "!")  # every child found
        with contextlib.suppress(KeyError):
            _core.land_child_values(land, {}, "!")  # the first child missing

    for land in lands:  # fill the memo first
        calls(land)
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(5):
        for land in lands:
            calls(land)
    gc.collect()
    assert sys.getallocatedblocks() - before < 100


def test_pure_python_switch() -> None:
    assert sprouts_game.IMPLEMENTATION == ("python" if sprouts_game._core is None else "c")
    code = "from sproutsdb.solver.sprouts import game; print(game.IMPLEMENTATION)"
    for value, expected in (("1", "python"), ("0", "c")):
        env = {**os.environ, "SPROUTSDB_PURE_PYTHON": value}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        assert out == expected


def test_first_child_stops_at_the_first_accepted_child_in_order() -> None:
    rng = random.Random(11)
    for land in PLAYOUT_LANDS[::10] + INTERCHANGEABLE_SPOTS:
        children = _core.land_children(land)
        wanted = rng.randrange(len(children)) if children else 0
        offered: list[tuple[str, ...]] = []

        def accept(child: tuple[str, ...]) -> bool:
            offered.append(child)  # noqa: B023 - first_child calls it in this iteration
            return len(offered) == wanted + 1  # noqa: B023 - likewise

        assert _core.first_child(land, accept) == (children[wanted] if children else None)
        assert tuple(offered) == children[: wanted + 1], land  # none made after it
        assert _core.first_child(land, lambda child: False) is None


def test_land_children_until_stops_at_the_accepted_child_or_gives_them_all() -> None:
    # The normal-play search's one pass: the whole list when nothing is taken, else the
    # child taken and nothing made after it; either way, in land_children's order.
    rng = random.Random(23)
    for land in PLAYOUT_LANDS[::10] + INTERCHANGEABLE_SPOTS:
        children = _core.land_children(land)
        offered: list[tuple[str, ...]] = []
        assert _core.land_children_until(land, lambda child: offered.append(child)) == (  # noqa: B023
            children,
            None,
        ), land
        assert tuple(offered) == children, land
        if not children:
            continue
        wanted = rng.randrange(len(children))
        offered.clear()

        def accept(child: tuple[str, ...]) -> bool:
            offered.append(child)  # noqa: B023 - land_children_until calls it in this iteration
            return len(offered) == wanted + 1  # noqa: B023 - likewise

        assert _core.land_children_until(land, accept) == (None, children[wanted]), land
        assert tuple(offered) == children[: wanted + 1], land


def _child_keys(land: str) -> list[str]:
    """The reference's children of a land written as position keys (SproutsGame.join)."""
    return ["+".join(sorted(child)) or "!" for child in reference(land)]


def test_land_child_values_looks_up_each_child_key_as_join_writes_it() -> None:
    # The table check's inner loop: the set of values[key] over the distinct children, each
    # key written as SproutsGame.join writes it ('+' between sorted lands, '!' for none).
    for land in PLAYOUT_LANDS[::10] + INTERCHANGEABLE_SPOTS + ["0*2", "2", "0.1a1a"]:
        keys = _child_keys(land)
        values = {key: index for index, key in enumerate(sorted(keys))}
        expected = frozenset(values[key] for key in keys)
        assert _core.land_child_values(land, values, "!") == expected, land
        assert sprouts_game.SproutsGame().child_values(land, values) == expected, land
        if keys:  # the first child, in move order, that the map lacks is named
            missing = keys[len(keys) // 2]
            del values[missing]
            with pytest.raises(KeyError) as raised:
                _core.land_child_values(land, values, "!")
            assert raised.value.args == (next(k for k in keys if k not in values),)


def test_land_child_values_refuses_what_land_children_refuses() -> None:
    with pytest.raises(_core.Unsupported):
        _core.land_child_values("0.AB.}AB.}]!", {}, "!")  # GLOP 1.x: the Python path's
    with pytest.raises(TypeError):
        _core.land_child_values("0*3", [], "!")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _core.land_child_values("0*3", {})  # type: ignore[call-arg]
    game = sprouts_game.SproutsGame()  # the game's method: the Python path for the rest
    older = "0.AB.}AB.}]!"
    keys = [game.join(child) for child in game.component_children(older)]
    values = {key: len(key) for key in keys}
    assert game.child_values(older, values) == frozenset(len(key) for key in keys)
    new_land = "0*3"  # a Mapping that is not a dict takes the Python path too, alike
    new_keys = _child_keys(new_land)
    table = {key: index for index, key in enumerate(new_keys)}
    assert game.child_values(new_land, MappingProxyType(table)) == game.child_values(
        new_land, table
    )


def test_land_children_until_refuses_what_land_children_refuses() -> None:
    with pytest.raises(_core.Unsupported):
        _core.land_children_until("0.AB.}AB.}]!", bool)  # GLOP 1.x: the Python path's
    with pytest.raises(TypeError):
        _core.land_children_until("0*3", 3)  # type: ignore[arg-type]
    with pytest.raises(ZeroDivisionError):
        _core.land_children_until("0*3", lambda child: 1 / 0)


def _meet_children(land: str, count: int, others: list[tuple[str, ...]]) -> None:
    """Empty the memo, then put in it the lands of the first `count` children of land as
    made (their keys), and the lands of `others` read from their strings (mostly the same
    keys: a land read back often tidies as it was made, not always)."""
    _core.clear_memo()
    made: list[tuple[str, ...]] = []
    _core.first_child(land, lambda child: made.append(child) or len(made) == count)
    for child in others:
        for part in child:
            _core.canonical_lands(part)


def test_first_child_memoised_first_offers_met_children_first_and_each_once() -> None:
    # memoised_first: first the children made of lands in the memo, then the others, each
    # part in move order; every child once, and none made after the accepted one.
    rng = random.Random(17)
    for land in PLAYOUT_LANDS[::10] + INTERCHANGEABLE_SPOTS:
        children = _core.land_children(land)
        offered: list[tuple[str, ...]] = []
        assert _core.first_child(land, lambda child: offered.append(child), True) is None  # noqa: B023
        assert offered == list(children), land  # every land met just above: move order
        if not children:
            continue
        _core.clear_memo()
        offered.clear()
        assert _core.first_child(land, lambda child: offered.append(child), True) is None  # noqa: B023
        no_land = [child for child in children if not child]  # made without a search
        assert offered == no_land + [child for child in children if child], land

        met = rng.randrange(len(children)) + 1
        others = [child for child in children[met:] if rng.random() < 0.5]
        _meet_children(land, met, others)
        offered.clear()
        assert _core.first_child(land, lambda child: offered.append(child), True) is None  # noqa: B023
        assert sorted(offered) == sorted(children), land

        stop = rng.randrange(len(offered))
        _meet_children(land, met, others)
        again: list[tuple[str, ...]] = []

        def accept(child: tuple[str, ...]) -> bool:
            again.append(child)  # noqa: B023 - first_child calls it in this iteration
            return len(again) == stop + 1  # noqa: B023 - likewise

        assert _core.first_child(land, accept, True) == offered[stop], land
        assert again == offered[: stop + 1], land


def test_first_child_lets_the_callbacks_exception_through() -> None:
    def accept(child: tuple[str, ...]) -> bool:
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        _core.first_child("0*3", accept)


def test_lands_drawn_many_ways_share_the_reference_string_through_the_memo() -> None:
    # The memo key names the land rewritten in a tidier order (bags sorted, boundaries
    # rotated, ties broken by the names given so far): every way of drawing one land must
    # still read the reference string, whether its key was met first or shared.
    rng = random.Random(13)
    lettered = [land for land in PLAYOUT_LANDS if len(set(re.findall("[A-Z]", land))) >= 3]
    assert len(lettered) > 300
    _core.clear_memo()
    for land in lettered[:120]:
        expected = tuple(canonical_lands(parse(land)))
        for _ in range(6):
            drawn = redraw(land, rng, old_syntax=False, region_mirrors=True)
            assert _core.canonical_lands(drawn) == expected, (land, drawn)
