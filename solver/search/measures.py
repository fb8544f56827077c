"""Memoised facts about single components that the search and its move order ask often.

Children are kept in a small LRU (algorithm 3 re-expands the same component for n = 0, 1, …
and the move order looks one level ahead); lives and move counts in bounded dicts.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from sproutsdb.solver.game import Game

Children = tuple[tuple[str, ...], ...]


class ComponentMeasures:
    """Children, lives (`game.size`) and number of moves of components, memoised."""

    def __init__(self, game: Game, *, children_capacity: int = 4096, capacity: int = 1 << 18):
        self.game = game
        self._children: OrderedDict[str, Children] = OrderedDict()
        self._children_capacity = children_capacity
        self._capacity = capacity
        self._lives: dict[str, int] = {}
        self._moves: dict[str, int] = {}
        estimate: Callable[[str], int] | None = getattr(game, "move_estimate", None)
        self._estimate = estimate

    def children(self, component: str) -> Children:
        """Distinct children of a component, each as its sorted components."""
        cache = self._children
        children = cache.get(component)
        if children is not None:
            cache.move_to_end(component)
            return children
        children = tuple(tuple(child) for child in self.game.component_children(component))
        cache[component] = children
        if len(cache) > self._children_capacity:
            cache.popitem(last=False)
        return children

    def lives(self, component: str) -> int:
        """`game.size` of a component."""
        value = self._lives.get(component)
        if value is None:
            if len(self._lives) >= self._capacity:
                self._lives.clear()
            value = self._lives[component] = self.game.size(component)
        return value

    def moves(self, component: str) -> int:
        """The game's `move_estimate` if it has one, else the number of distinct children."""
        value = self._moves.get(component)
        if value is None:
            if len(self._moves) >= self._capacity:
                self._moves.clear()
            estimate = self._estimate
            value = estimate(component) if estimate else len(self.children(component))
            self._moves[component] = value
        return value
