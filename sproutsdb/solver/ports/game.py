"""The game interface every engine implements, so searches never depend on one game.

Positions travel between parts as *canonical keys* (strings): hashable, storable and
printable. A key is a sum of independent components; the empty sum is the terminal
position. The hot path (children and canonical form) stays behind this interface so a
compiled core can replace it without anything above noticing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from sproutsdb.errors import UserError

V = TypeVar("V")


class NotationError(UserError, ValueError):
    """A position string that cannot be read; the message says where and why."""


@runtime_checkable
class Game(Protocol):
    """An impartial, splittable game seen through canonical string keys."""

    name: str
    terminal: str  # canonical key of the empty (terminal) position

    def canonical(self, text: str) -> str:
        """Canonical key of a position written in any accepted notation.

        Raises NotationError on unreadable input.
        """
        ...

    def components(self, key: str) -> tuple[str, ...]:
        """The independent components of a canonical position, sorted; () if terminal."""
        ...

    def join(self, components: Iterable[str]) -> str:
        """Canonical key of the sum of canonical components (any order)."""
        ...

    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        """Distinct children of one canonical component, each as its sorted components."""
        ...

    def children(self, key: str) -> list[str]:
        """Distinct canonical children of a canonical position."""
        ...

    def size(self, key: str) -> int:
        """A measure that strictly decreases along every move (lives, for Sprouts)."""
        ...


@runtime_checkable
class MemoHolder(Protocol):
    """A game whose engine memoises canonical forms under a bound chosen for small solves,
    which a long search may raise: more memory for fewer canonical searches."""

    def reserve_memo(self, entries: int) -> None:
        """Keep at least this many canonical forms from now on (the bound never shrinks)."""
        ...


@runtime_checkable
class ChildValues(Protocol):
    """A game that looks up a land's children in a map of position keys as it makes them (a
    table check does this for every land of a whole game tree, where a tuple, a joined key
    and a lookup per child in Python were a large share of its work)."""

    def child_values(self, land: str, values: Mapping[str, V]) -> frozenset[V]:
        """{values[join(child)] for each distinct child of `land`}; KeyError(key) for the
        first child key that `values` lacks."""
        ...


def sum_children(
    game: Game, key: str, component_children: Callable[[str], Iterable[tuple[str, ...]]]
) -> list[str]:
    """Distinct canonical children of a sum, given the children of each component: a move is
    made in one component, the others stay (equal components give equal children)."""
    components = game.components(key)
    seen: dict[str, None] = {}
    done: set[str] = set()
    for index, component in enumerate(components):
        if component in done:
            continue
        done.add(component)
        rest = components[:index] + components[index + 1 :]
        for child in component_children(component):
            seen.setdefault(game.join(rest + child), None)
    return list(seen)
