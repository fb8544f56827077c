"""Move ordering for the normal-play search: which unresolved option of a couple to try first.

A winning couple needs only one losing option, so trying the cheapest, likeliest options
first shrinks the proof (Nimbers are inevitable, §5.5). The order is a plain function so
other heuristics can be plugged in and measured.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from sproutsdb.solver.game import Game


class Option(NamedTuple):
    """An option (child couple) whose outcome is not known yet.

    `components` are the child's components of unknown nimber (sorted, identical pairs
    cancelled); `nim` is the couple's nim part with every known nimber folded in.
    """

    components: tuple[str, ...]
    nim: int


OrderFn = Callable[[Game, Sequence[Option]], list[Option]]


def fewest_lives_first(game: Game, options: Sequence[Option]) -> list[Option]:
    """Fewest lives (`game.size`) first, then most components, then fewest estimated moves.

    The move estimate is `game.move_estimate(component)` when the game offers one, else the
    length of the component's key (more structure, more moves). The sort is stable, so ties
    keep the engine's deterministic child order.
    """
    estimate: Callable[[str], int] = getattr(game, "move_estimate", len)

    def key(option: Option) -> tuple[int, int, int]:
        parts = option.components
        lives = sum(game.size(part) for part in parts)
        return lives, -len(parts), sum(estimate(part) for part in parts)

    return sorted(options, key=key)


def engine_order(game: Game, options: Sequence[Option]) -> list[Option]:
    """The engine's own child order, unchanged: the baseline for measuring heuristics."""
    return list(options)
