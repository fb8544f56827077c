"""Move ordering for the normal-play search: which unresolved option of a couple to try first.

A winning couple needs only one losing option, so trying the cheapest, likeliest options
first shrinks the proof (Nimbers are inevitable, §5.5). The order is a plain function so
other heuristics can be plugged in and measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from sproutsdb.solver.search.measures import ComponentMeasures


class Option(NamedTuple):
    """An option (child couple) whose outcome is not known yet.

    `components` are the child's components of unknown nimber (sorted, identical pairs
    cancelled); `nim` is the couple's nim part with every known nimber folded in.
    """

    components: tuple[str, ...]
    nim: int


OrderFn = Callable[[Sequence[Option], ComponentMeasures], list[Option]]


def fewest_lives_first(options: Sequence[Option], measure: ComponentMeasures) -> list[Option]:
    """Fewest lives, then most components, then the cheapest-looking moves.

    Lives and moves count only the components still unknown. "Cheapest-looking" is: fewest
    moves that keep a component in one piece, then most pieces per move, then fewest moves;
    sums of small pieces are where known nimbers cut the search. Measured on Sprouts
    outcomes (nodes): 0*7 5 327 -> 983, 0*8 111 340 -> 15 701, compared with ordering by
    the bare number of moves. The sort is stable: ties keep the engine's child order.
    """

    def key(option: Option) -> tuple[int, int, int, float, int]:
        parts = option.components
        lives = solid = moves = 0
        spread = 0.0
        for part in parts:
            lives += measure.lives(part)
            profile = measure.profile(part)
            solid += profile.solid
            moves += profile.moves
            spread += profile.pieces / profile.moves if profile.moves else 0.0
        return lives, -len(parts), solid, -spread, moves

    return sorted(options, key=key)


def engine_order(options: Sequence[Option], measure: ComponentMeasures) -> list[Option]:
    """The engine's own child order, unchanged: the baseline for measuring heuristics."""
    return list(options)
