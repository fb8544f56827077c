"""RCTs of Sprouts positions: every tree, label and value the misère paper prints.

Positions are written as the paper writes them (GLOP 1.x); the expected trees are the
paper's compact notation. Nimbers and misère outcomes are also checked against a direct
walk of the game tree that never builds an RCT.
"""

from __future__ import annotations

import pytest

from sproutsdb.solver.misere.rctsearch import RctSearch, game_tree_rcts
from sproutsdb.solver.sprouts.game import SproutsGame


@pytest.fixture(scope="module")
def game() -> SproutsGame:
    return SproutsGame()


@pytest.fixture(scope="module")
def search(game: SproutsGame) -> RctSearch:
    return RctSearch(game)


@pytest.fixture(scope="module")
def tree5(game: SproutsGame) -> RctSearch:
    """Every position of the game tree of S5 with its RCT (about 2 s)."""
    return game_tree_rcts(game, game.canonical("0*5"))


def direct_values(game: SproutsGame, root: str) -> dict[str, tuple[int, bool]]:
    """(normal-play nimber, misère win) of every position below root, by mex and by
    'a move to a misère loss, or no move at all', children first, without any RCT."""
    values: dict[str, tuple[int, bool]] = {}
    stack = [root]
    while stack:
        key = stack[-1]
        if key in values:
            stack.pop()
            continue
        kids = game.children(key)
        missing = [k for k in kids if k not in values]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        nimbers = {values[k][0] for k in kids}
        mex = 0
        while mex in nimbers:
            mex += 1
        values[key] = (mex, not kids or any(not values[k][1] for k in kids))
    return values


# -- trees printed in the paper ------------------------------------------------------------

PAPER_TREES = [
    ("0*2", "{2}"),  # §2.9: both children of S2 are ~ 2
    ("0.0.AB.}AB.}]!", "{1;{2}}"),  # §2.9: contaminated by its child S2
    ("0*3", "1"),  # §2.10: {0;{1;{2}}} recovers to 1
    ("0*4", "{3;{1;2;{3;{2}}}}"),  # §3.1.1
    ("0.0.0.0.2.}]!", "0"),  # §5.1: a complex position ~ 0
    ("ABC.}ABD.}CE.}DE.}]!", "{2}"),  # §5.1: fewest lives without a nim-heap
    ("1ABC.}BCDE.}ADE.}]!", "{0;2;{3};{1;3;{2}}}"),  # §3.1.2, Figure 8
    ("0.0.A.}0.A.}]!", "{3;{2}}"),  # §4.4: 3-1+1-W, that is {2} + 1
    ("0.0.A.}1A.}]!", "{2}"),  # §2.10, Figure 4
    ("ABCD.}ABEF.}CDFE.}]!", "{1;{2}}"),  # §2.7: distinguishes 2 from 2+2+2
]


@pytest.mark.parametrize(("position", "tree"), PAPER_TREES)
def test_paper_trees(search: RctSearch, position: str, tree: str) -> None:
    handle = search.rct(search.game.canonical(position))
    assert search.algebra.format(handle) == tree
    assert handle == search.algebra.parse(tree)


def test_0_0_A_0_A_is_2_plus_1_labelled_3_1_plus_1_W(game: SproutsGame) -> None:
    search = RctSearch(game)  # fresh: labels are numbered in discovery order
    alg = search.algebra
    handle = search.rct(game.canonical("0.0.A.}0.A.}]!"))
    assert handle == alg.parse("{2}+1")
    assert alg.plus1_of(handle) == alg.parse("{2}")
    assert alg.label(handle) == "3-1+1-W"


def test_figure_8_labels_from_the_position(game: SproutsGame) -> None:
    search = RctSearch(game)
    alg = search.algebra
    handle = search.rct(game.canonical("1ABC.}BCDE.}ADE.}]!"))
    assert alg.label(handle, "paper") == "5-1-W"
    children = sorted(alg.label(c, "paper") for c in alg.children(handle))
    assert children == ["0-0-W", "2-0-W", "4-1-L", "4-2-W"]


def test_figure_4_reversible_move(search: RctSearch, game: SproutsGame) -> None:
    # 0.0.A.}1A.}]!: the RCTs of its children form H = {2;{3;{2}}}, which is not reduced:
    # R1 = {3;{2}} is reversible through G = {2}, its only other option being 3.
    alg = search.algebra
    key = game.canonical("0.0.A.}1A.}]!")
    h = frozenset(search.rct(child) for child in game.children(key))
    g, r1 = alg.parse("{2}"), alg.parse("{3;{2}}")
    assert h == {alg.nim(2), r1}
    assert not alg.is_reduced(h)
    assert alg.children(r1) == {alg.nim(3), g}
    assert search.rct(key) == g


def test_s3_has_two_positions_that_are_not_nim_heaps(game: SproutsGame) -> None:
    # §2.9: in the game tree of S3 only S2 and 0.0.AB.}AB.}]! are not ~ a nim-heap.
    search = game_tree_rcts(game, game.canonical("0*3"))
    alg = search.algebra
    odd = {p: alg.format(h) for p, h in search.positions().items() if alg.nim_value(h) is None}
    assert odd == {"0*2": "{2}", game.canonical("0.0.AB.}AB.}]!"): "{1;{2}}"}


def test_fewest_lives_without_a_nim_heap(game: SproutsGame, tree5: RctSearch) -> None:
    # §5.1: ABC.}ABD.}CE.}DE.}]! ~ {2} has the fewest lives of such positions; in the game
    # tree of S5 it is the only one with 5 lives and none has fewer.
    search = tree5
    alg = search.algebra
    odd = sorted(
        (game.size(p), p) for p, h in search.positions().items() if alg.nim_value(h) is None
    )
    assert odd[0] == (5, game.canonical("ABC.}ABD.}CE.}DE.}]!"))
    assert odd[1][0] > 5


# -- values: normal nimbers and misère outcomes ---------------------------------------------

# 0*0 is the empty position (the parser reads "0*0" as "!").
NIMBERS = [
    ("!", 0), ("0*1", 0), ("0*2", 0), ("0*3", 1), ("0*4", 1), ("0*5", 1),
    ("0.AB|AB", 2), ("1a1a", 2), ("2ab2ba", 3), ("1ABC|BCDE|ADE", 1), ("22", 1),
    ("222", 0), ("0.A|0.A", 1), ("0.1a2a", 1), ("ABCD.}AB.}CD.}]!", 3),
]  # fmt: skip


@pytest.mark.parametrize(("position", "nimber"), NIMBERS)
def test_normal_nimber_of_the_rct(
    search: RctSearch, game: SproutsGame, position: str, nimber: int
) -> None:
    key = game.canonical(position)
    assert search.algebra.nimber(search.rct(key)) == nimber
    if game.size(key) <= 12:  # the direct walk is cheap up to the tree of 0*4
        assert direct_values(game, key)[key][0] == nimber


def test_misere_outcomes_of_figure_1(search: RctSearch, game: SproutsGame) -> None:
    outcomes = [search.algebra.outcome(search.rct(game.canonical(f"0*{p}"))) for p in range(1, 6)]
    assert outcomes == ["W", "L", "L", "L", "W"]


def test_every_position_of_s4_against_the_direct_walk(game: SproutsGame) -> None:
    search = game_tree_rcts(game, game.canonical("0*4"))
    alg = search.algebra
    direct = direct_values(game, game.canonical("0*4"))
    assert direct.keys() == search.positions().keys()
    for position, handle in search.positions().items():
        nimber, win = direct[position]
        assert (alg.nimber(handle), alg.outcome(handle)) == (nimber, "W" if win else "L")


# -- sums: through children or through lands, the same tree ------------------------------


def test_sums_through_lands_agree_with_children(game: SproutsGame, tree5: RctSearch) -> None:
    search = tree5
    alg = search.algebra
    positions = search.positions()
    before = len(alg)
    sums = [p for p in positions if len(game.components(p)) > 1]
    assert sums
    for position in sums:
        lands = game.components(position)
        assert alg.sum(positions[land] for land in lands) == positions[position], position
    assert len(alg) == before  # no sum of lands reaches a tree the game tree does not have


def test_via_lands_search_agrees_everywhere(game: SproutsGame) -> None:
    by_children = game_tree_rcts(game, game.canonical("0*4"))
    by_lands = RctSearch(game, via_lands=True)
    by_lands.rct(game.canonical("0*4"))
    for position, handle in by_children.positions().items():
        other = by_lands.rct(position)
        assert by_lands.algebra.content_id(other) == by_children.algebra.content_id(handle)


def test_queried_sum_goes_through_its_lands(game: SproutsGame) -> None:
    search = RctSearch(game)
    key = game.canonical("0*3+0*3+0*4")
    # 1 + 1 + RCT(S4) = RCT(S4); the product game tree of the sum is never walked.
    assert search.rct(key) == search.rct(game.canonical("0*4"))
    assert key in search.positions() and "0*3+0*4" not in search.positions()


def test_terminal_and_memo(game: SproutsGame) -> None:
    search = RctSearch(game)
    assert search.rct("!") == search.algebra.ZERO
    assert search.known("0*2") is None
    handle = search.rct("0*2")
    assert (
        search.known("0*2") == handle and len(search) == 18
    )  # the 18 positions of S2 (20 with canon_version 1)
