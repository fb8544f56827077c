"""Move ordering for the normal-play search: which unresolved option of a couple to try first.

A winning couple needs only one losing option, so trying the cheapest, likeliest options
first shrinks the proof (Nimbers are inevitable, §5.5). The order is a plain function so
other heuristics can be plugged in and measured.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

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
    """Fewest lives first, then most components, then fewest moves (summed over components).

    Lives and moves count only the components still unknown. The sort is stable, so ties
    keep the engine's deterministic child order.
    """

    def key(option: Option) -> tuple[int, int, int]:
        parts = option.components
        lives = sum(measure.lives(part) for part in parts)
        return lives, -len(parts), sum(measure.moves(part) for part in parts)

    return sorted(options, key=key)


def engine_order(options: Sequence[Option], measure: ComponentMeasures) -> list[Option]:
    """The engine's own child order, unchanged: the baseline for measuring heuristics."""
    return list(options)
