"""Exhaustive exploration of a game tree: distinct positions and distinct canonical trees.

A canonical tree is the game tree with duplicate children merged (misère paper §2.4,
Figure 9); two positions have the same one iff their hash-consed child sets agree.
Iterative post-order, so deep trees need no recursion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sproutsdb.solver.ports.game import Game


@dataclass
class TreeStats:
    """Counts over the whole game tree of a root position."""

    root: str
    positions: int
    canonical_trees: int
    lands: int
    max_lives: int
    seconds: float


def explore(
    game: Game, root: str, progress: Callable[[int], None] | None = None, every: int = 1000
) -> tuple[TreeStats, dict[str, int], dict[frozenset[int], int]]:
    """Walk every position below root; return stats, position → tree id, and tree table."""
    start = time.perf_counter()
    tree_of: dict[str, int] = {}
    trees: dict[frozenset[int], int] = {}
    children_of: dict[str, list[str]] = {}
    stack: list[str] = [root]
    while stack:
        key = stack[-1]
        if key in tree_of:
            stack.pop()
            continue
        kids = children_of.get(key)
        if kids is None:
            kids = children_of[key] = game.children(key)
            pending = [k for k in kids if k not in tree_of]
            if pending:
                stack.extend(pending)
                continue
        stack.pop()
        ids = frozenset(tree_of[k] for k in kids)
        tree = trees.get(ids)
        if tree is None:
            tree = trees[ids] = len(trees)
        tree_of[key] = tree
        del children_of[key]
        if progress is not None and len(tree_of) % every == 0:
            progress(len(tree_of))
    lands = {land for key in tree_of for land in game.components(key)}
    stats = TreeStats(
        root=root,
        positions=len(tree_of),
        canonical_trees=len(trees),
        lands=len(lands),
        max_lives=game.size(root),
        seconds=time.perf_counter() - start,
    )
    return stats, tree_of, trees
