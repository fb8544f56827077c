"""Memoised facts about single components that the search and its move order ask often.

Children are kept in a small LRU (algorithm 3 re-expands the same component for n = 0, 1, …
and the move order looks one level ahead); lives and move profiles in bounded dicts.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import NamedTuple

from sproutsdb.solver.ports.game import Game

Children = tuple[tuple[str, ...], ...]


class MoveProfile(NamedTuple):
    """How a component's moves look: how many, how many keep it in one piece, pieces made."""

    moves: int  # distinct children
    solid: int  # children with at most one component (moves that do not split)
    pieces: int  # components summed over all children


class ComponentMeasures:
    """Children, lives (`game.size`) and move profiles of components, memoised."""

    def __init__(
        self,
        game: Game,
        *,
        children_capacity: int = 4096,
        capacity: int = 1 << 18,
        lives_capacity: int = 1 << 15,
        twins_capacity: int = 1 << 16,
    ):
        self.game = game
        self._children: OrderedDict[str, Children] = OrderedDict()
        self._children_capacity = children_capacity
        # A large land has hundreds of children: the LRU also keeps the number of children
        # it holds under a bound, so its memory does not depend on the size of the lands.
        self._children_held = 0
        self._children_held_capacity = children_capacity * 32
        self._capacity = capacity
        # Lives are asked of every child land df-pn meets, and recomputed in a C call:
        # a small dict keeps the hot lands (a 2¹⁸ one held ~20 MB of lands seen once).
        self._lives_capacity = lives_capacity
        self._lives: dict[str, int] = {}
        self._profiles: dict[str, MoveProfile] = {}
        # an optional capability of the game (the Sprouts engine's C core), so untyped
        self._children_until = getattr(game, "component_children_until", None)
        # another (Sprouts): the lands a df-pn hint compares a land with (`twins`)
        self._smaller_twins = getattr(game, "smaller_twins", None)
        self._twins: dict[str, tuple[str, ...]] = {}
        self._twins_capacity = twins_capacity

    def children(self, component: str) -> Children:
        """Distinct children of a component, each as its sorted components."""
        cache = self._children
        children = cache.get(component)
        if children is not None:
            cache.move_to_end(component)
            return children
        return self._remember(component, self.game.component_children(component))

    def _remember(self, component: str, found: Sequence[tuple[str, ...]]) -> Children:
        """Keep a component's children in the LRU, within its bounds."""
        cache = self._children
        children = found if type(found) is tuple else tuple(tuple(child) for child in found)
        cache[component] = children
        self._children_held += len(children)
        while len(cache) > self._children_capacity or (
            self._children_held > self._children_held_capacity and len(cache) > 1
        ):
            self._children_held -= len(cache.popitem(last=False)[1])
        return children

    def children_until(
        self, component: str, accept: Callable[[tuple[str, ...]], bool]
    ) -> tuple[Children | None, tuple[str, ...] | None]:
        """`children`, unless a child that accept takes is met first: (None, that child).
        A game that can stop making children there (`component_children_until`, the
        Sprouts engine's C core) is asked to, and its partial list is not memoised; with
        the children memoised or a game that cannot stop, (children, None) unoffered."""
        until = self._children_until
        if until is None or component in self._children:
            return self.children(component), None
        found_all, found = until(component, accept)
        if found_all is None:
            return None, found
        return self._remember(component, found_all), None

    @property
    def has_twins(self) -> bool:
        """Whether the game names smaller twins of its lands (`twins`)."""
        return self._smaller_twins is not None

    def twins(self, component: str) -> tuple[str, ...]:
        """The game's smaller twins of a component (none if it names none), memoised: each
        is a canonical form to compute, so the dict is larger than the lives'."""
        value = self._twins.get(component)
        if value is None:
            if self._smaller_twins is None:
                return ()
            if len(self._twins) >= self._twins_capacity:
                self._twins.clear()
            value = self._twins[component] = tuple(self._smaller_twins(component))
        return value

    def lives(self, component: str) -> int:
        """`game.size` of a component."""
        value = self._lives.get(component)
        if value is None:
            if len(self._lives) >= self._lives_capacity:
                self._lives.clear()
            value = self._lives[component] = self.game.size(component)
        return value

    def profile(self, component: str) -> MoveProfile:
        """The move profile of a component (computes its children once)."""
        value = self._profiles.get(component)
        if value is None:
            if len(self._profiles) >= self._capacity:
                self._profiles.clear()
            children = self.children(component)
            value = MoveProfile(
                len(children),
                sum(1 for child in children if len(child) <= 1),
                sum(len(child) for child in children),
            )
            self._profiles[component] = value
        return value
