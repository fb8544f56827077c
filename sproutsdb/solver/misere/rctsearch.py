"""Reduced canonical trees (RCTs) of a game's positions, memoised per canonical position.

The RCT of a position is the reduction of the RCTs of its children (misère paper §3.2),
so it is computed bottom-up over the game tree below the position, on an explicit stack
(game trees are deep; no recursion). A sum of lands can go through its children like any
position, or through the sum of its lands' RCTs (``Algebra.add``); both give the same tree
(the tests check it on whole game trees). Measured on the tree of 0*5: children everywhere
takes 1.9 s, sums through lands 3.2 s, because nearly every sum in a Sprouts game tree is
a child of a land and must be visited anyway. A *queried* sum is different: its game tree
is the product of its lands' trees, so it always goes through its lands. Pure computation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import cast

from sproutsdb.solver.cgt import ZERO, Algebra
from sproutsdb.solver.ports.game import ChildValues, Game

Progress = Callable[[int], None]


class RctSearch:
    """RCT handles of positions of one game, in one Algebra, memoised per canonical key.

    ``via_lands`` (default False) makes every sum met below a queried position go through
    its lands' RCTs instead of its children.
    """

    def __init__(
        self, game: Game, algebra: Algebra | None = None, *, via_lands: bool = False
    ) -> None:
        self.game = game
        self.algebra = Algebra() if algebra is None else algebra
        self.via_lands = via_lands
        self._rct: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._rct)

    def preload(self, positions: Mapping[str, int]) -> None:
        """Take RCTs already known (handles in this search's algebra, e.g. a loaded table's)."""
        self._rct.update(positions)

    def known(self, key: str) -> int | None:
        """The RCT handle of a canonical position if it is already computed, else None."""
        return self._rct.get(key)

    def positions(self) -> Mapping[str, int]:
        """Every memoised canonical position → its RCT handle (read-only view)."""
        return self._rct

    def rct(self, key: str, progress: Progress | None = None, every: int = 1000) -> int:
        """The RCT handle of the canonical position ``key``.

        A sum of several lands is the sum of its lands' RCTs; a land is the reduction of
        its children's RCTs, computed children first for every position below it that is
        not memoised yet. ``progress`` gets the number of memoised positions now and then.
        """
        done = self._rct.get(key)
        if done is not None:
            return done
        lands = self.game.components(key)
        if len(lands) <= 1:
            return self.walk(key, self.via_lands, progress, every)
        for land in dict.fromkeys(lands):
            self.walk(land, self.via_lands, progress, every)
        result = self.algebra.sum(self._rct[land] for land in lands)
        self._rct[key] = result
        return result

    def walk(
        self,
        key: str,
        via_lands: bool = False,
        progress: Progress | None = None,
        every: int = 1000,
    ) -> int:
        """The RCT handle of ``key`` through its children, memoising everything below it.

        With ``via_lands`` False every position of the game tree of ``key`` ends up in the
        memo; with True, sums below ``key`` are summed from their lands instead.
        """
        memo = self._rct
        game, algebra = self.game, self.algebra
        reduce_children = algebra.reduce_children
        waiting: dict[str, list[str]] = {}  # children of positions whose children are pending
        stack = [key]
        count = 0
        while stack:
            top = stack[-1]
            if top in memo:
                stack.pop()
                continue
            lands = game.components(top) if via_lands else ()
            if len(lands) > 1:
                missing = [land for land in lands if land not in memo]
                if missing:
                    stack.extend(missing)
                    continue
                memo[top] = algebra.sum(memo[land] for land in lands)
            else:
                kids = waiting.pop(top, None)
                if kids is None:
                    kids = game.children(top)
                    missing = [k for k in kids if k not in memo]
                    if missing:
                        waiting[top] = kids
                        stack.extend(missing)
                        continue
                memo[top] = reduce_children(frozenset([memo[k] for k in kids]))
            stack.pop()
            count += 1
            if progress is not None and count % every == 0:
                progress(len(memo))
        return memo[key]

    def closure(self, handles: Iterable[int]) -> list[int]:
        """``handles`` and every tree below them, in handle (children-first) order."""
        children = self.algebra.table.children
        seen: set[int] = set()
        stack = list(handles)
        while stack:
            h = stack.pop()
            if h not in seen:
                seen.add(h)
                stack.extend(children[h])
        return sorted(seen)


def game_tree_rcts(
    game: Game, root: str, progress: Progress | None = None, every: int = 1000
) -> RctSearch:
    """A fresh search whose memo holds exactly the positions of the game tree of ``root``.

    Goes through children everywhere (never through sums of lands), so its algebra holds
    only RCTs of those positions (plus 0 and *1, which every Algebra has).
    """
    search = RctSearch(game)
    search.walk(root, False, progress, every)
    return search


def rcts_of_trees(
    trees: Mapping[frozenset[int], int],
    algebra: Algebra,
    progress: Progress | None = None,
    every: int = 1000,
) -> list[int]:
    """RCT handle of each canonical tree of ``treestats.explore`` (index = tree id).

    Trees are keyed by the set of their children's ids and numbered children first, so
    one pass in id order suffices. ``progress`` gets the number of trees reduced so far.
    """
    rct = [ZERO] * len(trees)
    reduce_children = algebra.reduce_children
    for done, (kids, tree) in enumerate(sorted(trees.items(), key=lambda item: item[1]), 1):
        rct[tree] = reduce_children(frozenset([rct[k] for k in kids]))
        if progress is not None and done % every == 0:
            progress(done)
    return rct


def count_rcts(
    tree_of: Mapping[str, int],
    trees: Mapping[frozenset[int], int],
    progress: Progress | None = None,
) -> int:
    """Number of distinct RCTs among the positions of an explored game tree.

    Positions with the same canonical tree have the same RCT, so this reduces the
    canonical trees of ``treestats.explore`` rather than the positions again.
    """
    rct = rcts_of_trees(trees, Algebra(), progress)
    return len({rct[t] for t in set(tree_of.values())})


def check_positions(
    game: Game,
    algebra: Algebra,
    positions: Mapping[str, int],
    progress: Progress | None = None,
    every: int = 1000,
    *,
    keys: Iterable[str] | None = None,
) -> list[str]:
    """Positions whose RCT in ``positions`` is not re-derived from their children's.

    A table of a whole game tree is closed under moves, so each position's RCT must be the
    reduction of the RCTs the table gives its children (docs/architecture.md §3). A sum of
    lands the table holds alone needs no children: its RCT must be the reduced sum of theirs
    (indistinguishability is a congruence for sums), and each land is checked by its own.
    Returns the faulty positions with the reason, in the order met (empty: every position
    checks out). With ``keys``, only those positions of the table are checked (a helper's
    share).
    """
    problems: list[str] = []
    chosen = positions.keys() if keys is None else keys
    looks_up = isinstance(game, ChildValues)  # asked once: a protocol check is slow
    for count, position in enumerate(chosen, 1):
        handle = positions[position]
        lands = game.components(position)
        if len(lands) > 1 and all(land in positions for land in lands):
            derived = algebra.sum(positions[land] for land in lands)
            if derived != handle:
                problems.append(
                    f"{position}: stored {algebra.content_id(handle)}, the sum of its lands' "
                    f"RCTs is {algebra.content_id(derived)}"
                )
        else:
            land = len(lands) == 1
            trees = children_trees(game, position, land, looks_up, positions)
            _derived_or_problem(position, handle, trees, algebra, problems)
        if progress is not None and count % every == 0:
            progress(count)
    return problems


def children_trees(
    game: Game, position: str, land: bool, looks_up: bool, positions: Mapping[str, int]
) -> frozenset[int] | str:
    """The RCTs `positions` gives the children of `position`, or the first child it lacks
    (the check of a table's positions, here and in ops.check's entry-by-entry report).
    A land's children are each made once, as their sorted lands; a game that can look them
    up as it makes them (`looks_up`: ports.game.ChildValues) does, the table check's inner
    loop."""
    if land and looks_up:
        try:
            return cast(ChildValues, game).child_values(position, positions)
        except KeyError as missing:
            return str(missing.args[0])
    kids = (
        [game.join(child) for child in game.component_children(position)]
        if land
        else game.children(position)
    )
    try:
        return frozenset([positions[k] for k in kids])
    except KeyError:  # rare: looked for only then
        return next(k for k in kids if k not in positions)


def _derived_or_problem(
    position: str,
    handle: int,
    trees: frozenset[int] | str,
    algebra: Algebra,
    problems: list[str],
) -> None:
    """Check one position's RCT (`handle`) against the reduction of its children's `trees`
    (check_positions), adding what is wrong to `problems` (`trees` a str: a child missing)."""
    if isinstance(trees, str):
        problems.append(f"{position}: child {trees} is not in the table")
        return
    derived = algebra.reduce_children(trees)
    if derived != handle:
        problems.append(
            f"{position}: stored {algebra.content_id(handle)}, its children give "
            f"{algebra.content_id(derived)}"
        )
