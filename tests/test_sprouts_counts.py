"""Published counts of the misère paper (Figure 9): distinct canonical game trees."""

from __future__ import annotations

import pytest

from sproutsdb.solver.extras.treestats import explore
from sproutsdb.solver.sprouts.game import SproutsGame

# Number of distinct canonical trees in the game tree of S_n (misère paper, Figure 9).
CANONICAL_TREES = {2: 10, 3: 55, 4: 713, 5: 10_461, 6: 150_147}


@pytest.mark.parametrize("spots", [2, 3, 4, 5])
def test_canonical_tree_counts(spots: int) -> None:
    game = SproutsGame()
    stats, _, _ = explore(game, game.canonical(f"0*{spots}"))
    assert stats.canonical_trees == CANONICAL_TREES[spots]
    assert stats.max_lives == 3 * spots


@pytest.mark.slow
def test_canonical_tree_count_of_six_spots() -> None:
    game = SproutsGame()
    stats, _, _ = explore(game, game.canonical("0*6"))
    assert stats.canonical_trees == CANONICAL_TREES[6]


def test_position_counts_are_stable() -> None:
    # Distinct canonical positions (sums) in the trees of S_2..S_5 with canon_version 2
    # (version 1: 20, 181, 1 988, 24 835). These measure the canonical form's quality
    # (fewer is better; GLOP 2.2's S5 base has 22 902 distinct keys); a change here means
    # the canonical form changed and canon_version must be bumped.
    game = SproutsGame()
    got = [explore(game, f"0*{n}")[0].positions for n in (2, 3, 4, 5)]
    assert got == [18, 148, 1505, 17_457]
