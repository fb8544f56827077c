"""The reference misère search: plain game-tree search without RCTs, for tests and checks."""

from __future__ import annotations

from sproutsdb.solver.ports.game import Game

__all__ = ["brute_force_misere"]


def brute_force_misere(
    game: Game, key: str, memo: dict[str, bool] | None = None, nim: int = 0
) -> str:
    """Misère outcome of position + *nim by plain game-tree search (no RCT), for tests.

    Explicit stack; ``memo`` maps "position#heap" to losing? and may be shared.
    """
    memo = {} if memo is None else memo
    root = (game.canonical(key), nim)

    def kids(state: tuple[str, int]) -> list[tuple[str, int]]:
        position, heap = state
        out = [(child, heap) for child in game.children(position)]
        out.extend((position, h) for h in range(heap))
        return out

    def name(state: tuple[str, int]) -> str:
        return f"{state[0]}#{state[1]}"

    stack = [root]
    while stack:
        state = stack[-1]
        if name(state) in memo:
            stack.pop()
            continue
        children = kids(state)
        missing = [c for c in children if name(c) not in memo]
        if missing:
            stack.extend(missing)
            continue
        # no moves: a misère win; else losing iff every child is winning
        memo[name(state)] = bool(children) and not any(memo[name(c)] for c in children)
        stack.pop()
    return "L" if memo[name(root)] else "W"
