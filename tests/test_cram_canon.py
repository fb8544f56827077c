"""Cram's notation and canonical form: one key per land up to translation and the 8
symmetries of the grid, lands split, lone cells dropped; children against a plain
set-of-cells reference."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.games import get_game
from sproutsdb.solver.cram import CramGame
from sproutsdb.solver.cram.canon import canonical_shape, cut, grid_mask, images
from sproutsdb.solver.cram.notation import MAX_POSITION_CELLS, parse_terms
from sproutsdb.solver.ports.game import Game, NotationError

GAME = CramGame()
Cell = tuple[int, int]


def render(cells: Iterable[Cell], pad: tuple[int, int, int, int] = (0, 0, 0, 0)) -> str:
    """Cells as board text, cut to their bounding box plus `pad` filled rows and columns
    (top, left, bottom, right): a translation inside a larger filled board."""
    cells = set(cells)
    if not cells:
        return "!"
    top, left, bottom, right = pad
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    r1, c1 = max(r for r, _ in cells), max(c for _, c in cells)
    rows = []
    for r in range(r0 - top, r1 + bottom + 1):
        rows.append(
            "".join("." if (r, c) in cells else "#" for c in range(c0 - left, c1 + right + 1))
        )
    return "/".join(rows)


def transforms(cells: set[Cell]) -> list[set[Cell]]:
    """The 8 images of a set of cells: 4 rotations, each mirrored."""
    found = []
    current = cells
    for _ in range(4):
        current = {(c, -r) for r, c in current}  # a quarter turn
        found.append(current)
        found.append({(r, -c) for r, c in current})  # its mirror image
    return found


def components(cells: set[Cell]) -> list[set[Cell]]:
    """4-connected components, by a plain search."""
    left, found = set(cells), []
    while left:
        stack = [left.pop()]
        part = set(stack)
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in left:
                    left.discard(nb)
                    part.add(nb)
                    stack.append(nb)
        found.append(part)
    return found


def reference_children(cells: set[Cell]) -> set[str]:
    """Every child of a land as canonical keys: each domino, the rest keyed land by land."""
    found = set()
    for r, c in cells:
        for other in ((r, c + 1), (r + 1, c)):
            if other in cells:
                rest = cells - {(r, c), other}
                lands = [render(part) for part in components(rest) if len(part) > 1]
                found.add(GAME.canonical("+".join(lands) or "!"))
    return found


boards = st.sets(
    st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=0, max_size=22
)  # cell sets of a 5 x 6 board
pads = st.tuples(*(st.integers(0, 2) for _ in range(4)))


def test_the_game_is_registered_with_canon_version_1() -> None:
    entry = get_game("cram")
    assert entry.name == "cram" and entry.canon_version == 1 and entry.terminal == "!"
    engine = entry.engine()
    assert isinstance(engine, Game) and engine.canonical("4x5") == "4x5"
    assert entry.lives("4x5+#./..") == 23 and entry.count_vertices("2x3+..#") == 9


@settings(max_examples=150, deadline=None)
@given(cells=boards, pad=pads)
def test_the_8_symmetries_and_translations_give_one_key(
    cells: set[Cell], pad: tuple[int, int, int, int]
) -> None:
    key = GAME.canonical(render(cells))
    for image in transforms(cells):
        assert GAME.canonical(render(image, pad)) == key


@settings(max_examples=150, deadline=None)
@given(cells=boards)
def test_the_key_is_an_image_of_the_land_so_distinct_lands_keep_distinct_keys(
    cells: set[Cell],
) -> None:
    for land in components(cells):
        if len(land) < 2:
            continue
        key = GAME.canonical(render(land))
        assert "+" not in key
        shape = parse_terms(key)[0]
        mask, stride = grid_mask(parse_terms(render(land))[0])
        assert shape in images(cut(mask, stride))
        assert shape[0] <= shape[1]  # no more rows than columns
        assert canonical_shape(shape) == shape


@settings(max_examples=150, deadline=None)
@given(cells=boards)
def test_canonical_form_is_idempotent_and_splits_lands(cells: set[Cell]) -> None:
    key = GAME.canonical(render(cells))
    assert GAME.canonical(key) == key
    lands = [land for land in components(cells) if len(land) > 1]  # lone cells dropped
    assert len(GAME.components(key)) == len(lands)
    assert GAME.size(key) == sum(len(land) for land in lands)
    assert sorted(GAME.components(key)) == list(GAME.components(key))
    assert GAME.join(GAME.canonical(render(land)) for land in lands) == key


@settings(max_examples=80, deadline=None)
@given(cells=boards)
def test_children_are_every_domino_and_nothing_else(cells: set[Cell]) -> None:
    for land in components(cells):
        if len(land) < 2:
            continue
        key = GAME.canonical(render(land))
        children = GAME.component_children(key)
        assert len(set(children)) == len(children)
        assert {GAME.join(child) for child in children} == reference_children(land)
        assert all(GAME.size(GAME.join(child)) <= len(land) - 2 for child in children)


def test_known_keys() -> None:
    assert GAME.canonical("5x4") == GAME.canonical("4x5") == "4x5"
    assert GAME.canonical(".....") == "1x5"
    assert GAME.canonical("#../...") == GAME.canonical("../../.#") == "#../..."
    assert GAME.canonical(".#./#.#") == "!"  # lone cells: no move
    assert GAME.canonical("..#/#.#") == "#./.."  # an L of three
    assert GAME.canonical(" 2x2 + ! + 1x3 ") == "1x3+2x2"
    assert GAME.canonical("..#../..#..") == "2x2+2x2"  # a filled column splits the board
    assert GAME.canonical("!") == GAME.canonical("0x5") == "!"
    assert GAME.children("2x2") == ["1x2"]
    assert GAME.children("1x2+1x3") == ["1x3", "1x2"]
    assert GAME.children("!") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty position: write !"),
        ("../.x", "row 2, column 2: 'x' is neither '.'"),
        ("../...", "row 2 has 3 columns but row 1 has 2"),
        ("..//..", "row 2 is empty"),
        ("2x2+../#a", "term 2 '../#a' row 2, column 2: 'a'"),
        ("2x2++1x2", "term 2 '' is empty"),
        ("4y5", "'4y5' is not a board: write MxN"),
        ("4x", "'4x' is not a board: write MxN"),
        ("40x40", "1,600 grid cells; this sproutsdb accepts at most 1,024"),
        ("9" * 40 + "x9", "more than 10^15 grid cells"),
    ],
)
def test_bad_notation_says_where(text: str, message: str) -> None:
    with pytest.raises(NotationError) as raised:
        GAME.canonical(text)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_largest_board_is_accepted() -> None:
    assert GAME.canonical(f"1x{MAX_POSITION_CELLS}") == f"1x{MAX_POSITION_CELLS}"
    # 1 984 dominoes; the 8 symmetries leave 16 rows (of 32) x 16 columns (of 31): 256
    assert len(GAME.children("32x32")) == 256
