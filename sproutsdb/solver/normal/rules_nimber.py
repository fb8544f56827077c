"""Nimbers of small lands re-derived from the rules alone (no stored fact is read).

Certificate writers (SPOTS, GLOP) evaluate lands of very few lives on the fly and do not
store them, so a checker of their certificates needs those nimbers without trusting
anything: `SmallLands` computes them by a plain recursive mex search over the game's
children, memoised, for lands of at most `max_lives` lives (their descendants have fewer
lives, so they are derived the same way). Values derived here are never facts of a store.
"""

from __future__ import annotations

from sproutsdb.solver.cgt.nimarith import mex, nim_sum
from sproutsdb.solver.ports.game import Game


class SmallLands:
    """Derives nimbers of lands of at most `max_lives` lives (`game.size`); 0 disables."""

    def __init__(self, game: Game, max_lives: int) -> None:
        if max_lives < 0:
            raise ValueError("max_lives must be at least 0")
        self.game = game
        self.max_lives = max_lives
        self._memo: dict[str, int] = {}

    def covers(self, land: str) -> bool:
        """True when `land` is small enough to be derived from the rules."""
        return self.max_lives > 0 and self.game.size(land) <= self.max_lives

    def nimber(self, land: str) -> int | None:
        """The nimber of a covered land from the rules alone; None when it is not covered."""
        if not self.covers(land):
            return None
        return self._derive(land)

    def _derive(self, land: str) -> int:
        """mex of the children's nimbers, each child a sum of lands of fewer lives."""
        known = self._memo.get(land)
        if known is not None:
            return known
        values = {
            nim_sum(self._derive(part) for part in child)
            for child in self.game.component_children(land)
        }
        value = self._memo[land] = mex(values)
        return value
