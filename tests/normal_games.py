"""Small splittable games with known values, and oracles written independently of the solver.

Kayles rows and Grundy's game are implemented here as `Game`s for the normal-play solver
tests; their truth comes from a bottom-up mex table (Sprague-Grundy) and, for tiny sums,
from a plain win/lose search of the whole sum that knows nothing of nimbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache

Moves = Callable[[int], list[tuple[int, ...]]]  # heap size -> the heap tuples it can become


class HeapGame:
    """A game whose components are heaps `<letter><size>`, split by `moves`; `!` is empty."""

    terminal = "!"

    def __init__(self, name: str, letter: str, moves: Moves, keep: Callable[[int], bool]):
        self.name = name
        self._letter = letter
        self._moves = moves
        self._keep = keep  # which heap sizes stay in a canonical key (dead ones vanish)

    def heap(self, n: int) -> str:
        return f"{self._letter}{n}"

    def canonical(self, text: str) -> str:
        if text.strip() in ("", "!"):
            return self.terminal
        return self.join(part.strip() for part in text.split("+"))

    def components(self, key: str) -> tuple[str, ...]:
        return () if key == self.terminal else tuple(key.split("+"))

    def join(self, components: Iterable[str]) -> str:
        sizes = sorted(self._size_of(c) for c in components)
        parts = [self.heap(n) for n in sizes if self._keep(n)]
        return "+".join(parts) if parts else self.terminal

    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        seen: dict[tuple[str, ...], None] = {}
        for heaps in self._moves(self._size_of(component)):
            seen.setdefault(self.components(self.join(self.heap(h) for h in heaps)), None)
        return list(seen)

    def children(self, key: str) -> list[str]:
        parts = self.components(key)
        seen: dict[str, None] = {}
        for i, part in enumerate(parts):
            rest = parts[:i] + parts[i + 1 :]
            for child in self.component_children(part):
                seen.setdefault(self.join(rest + child), None)
        return list(seen)

    def size(self, key: str) -> int:
        return sum(self._size_of(c) for c in self.components(key))

    def _size_of(self, component: str) -> int:
        if not component.startswith(self._letter):
            raise ValueError(f"{self.name}: {component!r} is not a heap")
        return int(component[len(self._letter) :])


def kayles_moves(n: int) -> list[tuple[int, ...]]:
    """Knock down one pin or two adjacent pins of a row of n: at most two rows remain."""
    return [(i, n - k - i) for k in (1, 2) for i in range(n - k + 1)]


def grundy_moves(n: int) -> list[tuple[int, ...]]:
    """Split a heap into two non-empty heaps of different sizes."""
    return [(a, n - a) for a in range(1, (n + 1) // 2) if a != n - a]


def chain_moves(n: int) -> list[tuple[int, ...]]:
    """Remove exactly one token: a chain of n moves, the deepest tree for its size."""
    return [(n - 1,)] if n else []


def kayles() -> HeapGame:
    return HeapGame("kayles", "K", kayles_moves, keep=lambda n: n > 0)


def grundys_game() -> HeapGame:
    # Heaps of 1 and 2 cannot be split, but they stay as (dead) components on purpose:
    # the solver must handle components without moves.
    return HeapGame("grundy", "G", grundy_moves, keep=lambda n: n > 0)


def chain() -> HeapGame:
    return HeapGame("chain", "C", chain_moves, keep=lambda n: n > 0)


def mex_table(moves: Moves, limit: int) -> list[int]:
    """Sprague-Grundy values of heaps 0..limit, bottom-up: mex over moves of the xor of parts."""
    values: list[int] = []
    for n in range(limit + 1):
        options = set()
        for heaps in moves(n):
            total = 0
            for h in heaps:
                total ^= values[h]
            options.add(total)
        g = 0
        while g in options:
            g += 1
        values.append(g)
    return values


def brute_force_losing(moves: Moves, heaps: Sequence[int]) -> bool:
    """Whether the sum of heaps is lost by the player to move, by searching the whole sum."""

    @cache
    def losing(state: tuple[int, ...]) -> bool:
        for i, h in enumerate(state):
            rest = state[:i] + state[i + 1 :]
            for parts in moves(h):
                child = tuple(sorted(rest + tuple(p for p in parts if p > 0)))
                if losing(child):
                    return False
        return True

    return losing(tuple(sorted(h for h in heaps if h > 0)))
