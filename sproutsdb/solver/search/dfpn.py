"""Depth-first proof-number search (df-pn) for win/loss questions on an acyclic game graph.

Nagai's df-pn with Pawlewicz & Lew's 1 + ε threshold. For a node, φ is the proof number of
"the player to move wins" and δ that of "the player to move loses": φ(n) = min δ(child)
and δ(n) = Σ φ(child); a child still unseen counts what the space estimates (df-pn+). The search always descends into
the child that looks cheapest to show losing, within thresholds that send it back up as
soon as a sibling looks cheaper. So one deep child cannot hide a shallow losing sibling,
which a fixed move order cannot promise (the misère paper's authors chose branches by hand).

Only *decided* values make results: proof numbers steer the search and nothing else, so
the bounded table of them may be cleared at any time without changing an answer. The
engine knows nothing of games; a ``Space`` expands nodes and records decisions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Mapping, Sequence
from itertools import islice
from typing import Any, Generic, Protocol, TypeVar, cast

__all__ = [
    "INFINITY",
    "BusyMarks",
    "DfpnSearch",
    "RestartSearch",
    "RootShare",
    "Scan",
    "Scanner",
    "Space",
    "Task",
    "WaitingSpace",
    "scan_children",
]

INFINITY = 1 << 62  # a proof number that can never be reached: the node is decided
# Distinct (φ, δ) pairs the table shares among its entries before it forgets them (a fresh
# tuple per entry was 56 bytes and more: ~60 bytes an entry of 173 at misère 0*14, where
# 18 545 entries held 2 687 distinct pairs).
SHARED_PAIRS = 1 << 16
Node = TypeVar("Node")
SharedNode = TypeVar("SharedNode", contravariant=True)
Child = tuple[str, Node, tuple[int, int]]  # key, node, initial (φ, δ) while unseen

# A search task: a coroutine yielding sub-tasks, sent their results (True = losing node).
Task = Generator["Task", "bool | None", "bool | None"]


# What a pass over a node's children finds (``scan_children``): φ, δ (at most INFINITY),
# the second-lowest child δ, the index and φ of the child of lowest δ (-1 if none), and the
# indices of the children proven winning. φ = 0 means a losing child was met (the pass
# stopped there and the rest is partial).
Scan = tuple[int, int, int, int, int, list[int]]
# A space's own pass (``Space.scan``): children, the table of numbers, the numbers the
# node's frame learnt, and whether the table is keyed by hashes.
Scanner = Callable[
    [list[Child[Any]], dict[Any, tuple[int, int]], dict[str, tuple[int, int]], bool], Scan
]


def scan_children(
    children: Sequence[Child[Node]],
    decided: Callable[[Node, str], bool | None],
    numbers: Mapping[Any, tuple[int, int]],
    learnt: Mapping[str, tuple[int, int]],
    hashed: bool,
) -> Scan:
    """One pass of df-pn over a node's children (the search's hottest loop): each child's
    numbers are its decided value, else the table's (keyed by ``hash(key)`` if ``hashed``),
    else what the node's frame ``learnt``, else its initial ones."""
    known, learnt_of = numbers.get, learnt.get
    delta = 0
    phi = second = INFINITY
    best_index, best_phi = -1, 0
    winning: list[int] = []
    for index, (child_key, child, initial) in enumerate(children):
        value = decided(child, child_key)
        if value is None:
            child_phi, child_delta = known(hash(child_key) if hashed else child_key) or learnt_of(
                child_key, initial
            )
        elif value:
            child_phi, child_delta = INFINITY, 0
        else:
            child_phi, child_delta = 0, INFINITY
        if child_delta == 0:  # a losing child: node is a win
            phi = 0
            break
        if child_phi == 0:  # a winning child adds nothing to either number
            winning.append(index)
            continue
        delta += child_phi
        if child_delta < phi:
            second, phi = phi, child_delta
            best_index, best_phi = index, child_phi
        elif child_delta < second:
            second = child_delta
    return phi, min(delta, INFINITY), second, best_index, best_phi, winning


class RestartSearch(Exception):
    """Raised between two node visits when facts another solver stored decide a node on
    df-pn's path (or a child of one): the search starts again from its root, keeping its
    proof numbers and table, so that every frame on the way sees them at once (`--jobs`)."""


class Space(Protocol[Node]):
    """What df-pn needs from a game: children, decided values, and a place to record them.

    A space may also have a ``scan`` (a ``Scanner``): its own pass over a node's children,
    which must return what ``scan_children`` returns with its ``decided`` (misère: a
    compiled one that reads the table of proven nodes directly)."""

    def expand(self, node: Node, key: str) -> list[Child[Node]]:
        """The children of ``node`` in move order with their keys and initial proof
        numbers (≥ 1: e.g. δ grows with the child's size); the space may cache the list,
        which the search prunes in place."""
        ...

    def decided(self, node: Node, key: str) -> bool | None:
        """True if the node is a known loss for the player to move, False a known win."""
        ...

    def record(self, key: str, losing: bool) -> None:
        """The node ``key`` is now decided."""
        ...

    def visit(self) -> None:
        """Called once per node visit (statistics, progress; may raise to stop)."""
        ...


class WaitingSpace(Space[Node], Protocol[Node]):
    """A space with nodes whose children depend on a sub-question first (normal play: a
    sum of lands waits on the nimbers of all its lands but one)."""

    def waiting(self, node: Node, key: str) -> tuple[Child[Node], int] | None:
        """The undecided sub-question ``node`` waits on and how many more it will wait on
        after this one, or None when the node can be expanded. Deciding the sub-question
        (recorded like any node) must bring the node closer to expandable."""
        ...


class RootShare(Protocol[SharedNode]):
    """How one search shares its root's children with helper processes (`solve --jobs`).

    The root's children are offered once; the search then says which child it enters
    and which are decided, so that the helpers take the others first.
    """

    def offer(self, children: Sequence[tuple[str, SharedNode]]) -> None:
        """The root's children (key, node) in the search's own order, once."""
        ...

    def entering(self, key: str) -> None:
        """The search enters the root's child ``key``."""
        ...

    def decided(self, key: str) -> None:
        """The root's child ``key`` is decided."""
        ...


class BusyMarks(Protocol):
    """The nodes other searches of the same question are in now (`solve --jobs`): each
    search marks the nodes on its path, and at a node that looks losing (δ ≤ φ: all its
    children will be needed) leaves a child another search is in to that search while it
    has another child to search, as ABDADA does in parallel alpha-beta; at a node that
    looks winning, where one child will do, the searches go down the likeliest together
    (a helper's `LeaderMarks`: the child its leader is in).
    Only the order of the search changes: every value still comes from the space."""

    def enter(self, key: str) -> None:
        """This search enters the node ``key``."""
        ...

    def leave(self, key: str) -> None:
        """This search leaves the node ``key``."""
        ...

    def elsewhere(self, key: str) -> bool:
        """Another search is in the node ``key`` now."""
        ...


class LeaderMarks(BusyMarks, Protocol):
    """A helper's `BusyMarks` that also know where the search it helps is: at a node that
    looks winning it goes down the child that search is in, when there is one, instead of
    its own likeliest. Two searches there then meet in that child, which looks losing, and
    divide its children; following its own numbers the helper proved other candidates,
    which a search needing one losing child does not use (misère 0*16, one helper from the
    root: 352 s wall without, 289 s with, 409 s alone)."""

    def leading(self, key: str) -> bool:
        """The search this one helps is in the node ``key`` now."""
        ...


class DfpnSearch(Generic[Node]):
    """df-pn over a ``Space``; ``solve`` is a coroutine for an explicit-stack driver.

    With a ``share``, the children of the first root ``solve`` is asked about are shared
    with helpers (`RootShare`); with ``busy`` marks, at every node the search prefers the
    children no other search is in (`BusyMarks`).

    With ``hashed``, the table of proof numbers is keyed by each key's ``hash`` (a 36-byte
    int) instead of the key (a string of ~100 bytes at misère 0*14, which once its parent's
    children list is gone only the table holds): two keys of one hash (about n²/2⁶⁵ at n
    entries) share numbers, which only steers the search. ``numbers`` is then keyed by
    hashes: read and seed it through ``numbers_of`` and ``seed``.
    """

    def __init__(
        self,
        space: Space[Node],
        *,
        epsilon: float = 0.25,
        capacity: int = 1 << 22,
        share: RootShare[Node] | None = None,
        busy: BusyMarks | None = None,
        hashed: bool = False,
    ) -> None:
        if epsilon < 0:
            raise ValueError("epsilon must be ≥ 0")
        self.space = space
        self.epsilon = epsilon
        self.capacity = capacity
        # undecided key (its hash if ``hashed``) -> (φ, δ)
        self.numbers: dict[Any, tuple[int, int]] = {}
        self.hashed = hashed
        self._pairs: dict[tuple[int, int], tuple[int, int]] = {}  # see SHARED_PAIRS
        # The children lists of the nodes being searched, root first: where an interrupted
        # search stood (an exception leaves it as it was; the caller clears it).
        self.in_flight: list[tuple[str, list[Child[Node]]]] = []
        self._waiting = getattr(space, "waiting", None)
        self.share = share
        self._shared_root: str | None = None  # the root whose children are shared
        self.busy = busy
        self._descend = self._mid if busy is None else self._marked_mid
        self._leading: Callable[[str], bool] | None = getattr(busy, "leading", None)  # LeaderMarks
        # a space's own pass over children (a compiled one: misère), else scan_children
        self._scan: Scanner | None = getattr(space, "scan", None)

    def solve(self, root: Node, key: str) -> Task:
        """True iff ``root`` is a loss for the player to move (it must not be decided)."""
        space = self.space
        if self.share is not None and self._shared_root is None:
            self._shared_root = key
        while (value := space.decided(root, key)) is None:
            yield self._descend(root, key, INFINITY, INFINITY)
        return value

    def numbers_of(self, key: str) -> tuple[int, int] | None:
        """The table's (φ, δ) of the node ``key``, if it holds them."""
        return self.numbers.get(hash(key) if self.hashed else key)

    def seed(self, key: str, pair: tuple[int, int]) -> None:
        """Give the node ``key`` the numbers ``pair`` unless the table has some (a resumed
        search's hints)."""
        self.numbers.setdefault(hash(key) if self.hashed else key, self._one_pair(pair))

    def _one_pair(self, pair: tuple[int, int]) -> tuple[int, int]:
        """``pair`` as the one tuple of its value the table's entries share."""
        pairs = self._pairs
        found = pairs.get(pair)
        if found is None:
            if len(pairs) >= SHARED_PAIRS:
                pairs.clear()  # the entries keep their tuples: only sharing is lost
            found = pairs[pair] = pair
        return found

    def _make_room(self) -> None:
        """Drop the older half of a full table (at least one entry), in place: the frames
        on the stack hold the table.

        Older by insertion: the entries of nodes met long ago. Clearing the whole table
        instead sent misère 0*15 with a table of 2¹⁶ entries (3 times full) to 614,553
        visits; dropping the older half (4 times) to 484,819, against 479,475 with a table
        that never fills (bench/misere.py). In normal play, where any change of the path
        moves visits either way, the two were even: 0*18 and 0*20 at 2¹⁵ entries 207,845 /
        213,608 and 226,113 / 214,768 (whole / half)."""
        numbers = self.numbers
        for entry in list(islice(numbers, (len(numbers) + 1) // 2)):
            del numbers[entry]

    def _numbers(self, node: Node, key: str, initial: tuple[int, int]) -> tuple[int, int]:
        """(φ, δ) of a child: decided, else the table's, else ``initial`` (which the caller
        sets to the child's last known numbers)."""
        value = self.space.decided(node, key)
        if value is None:
            return self.numbers.get(hash(key) if self.hashed else key, initial)
        return (INFINITY, 0) if value else (0, INFINITY)

    def _mid(self, node: Node, key: str, phi_limit: int, delta_limit: int) -> Task:
        """Search ``node`` until it is decided or its (φ, δ) reaches a limit.

        The numbers each searched child came back with are also kept in this frame: when
        the full table drops entries, the frames on the stack keep what they learnt, so no
        parent can send the same child down again and again with unchanged limits (the
        livelock of df-pn under table replacement).
        """
        space, numbers = self.space, self.numbers
        space.visit()
        plain = not self.hashed
        entry = key if plain else hash(key)  # the node's key in the table
        learnt: dict[str, tuple[int, int]] = {}
        if self._waiting is not None:
            # A node that waits on sub-questions costs what the current one costs to
            # decide either way, plus one for each still to come; it gives up, like any
            # node, when that reaches a limit, so a costly reduction never hides a cheap
            # sibling.
            while (waiting := self._waiting(node, key)) is not None:
                (sub_key, sub, initial), later = waiting
                sub_phi, sub_delta = self._numbers(sub, sub_key, learnt.get(sub_key, initial))
                cost = min(min(sub_phi, sub_delta) + later, INFINITY - 1)
                if cost >= phi_limit or cost >= delta_limit:
                    if len(numbers) >= self.capacity:
                        self._make_room()
                    numbers[entry] = self._one_pair((cost, cost))
                    return None
                # Search the sub-question until it is decided or both its numbers reach
                # the limit: a number already past it is not a reason to stop.
                limit = min(phi_limit, delta_limit) - later
                yield self._descend(
                    sub,
                    sub_key,
                    limit if sub_phi < limit else INFINITY,
                    limit if sub_delta < limit else INFINITY,
                )
                after = self._numbers(sub, sub_key, learnt.get(sub_key, initial))
                if after == (sub_phi, sub_delta):  # no progress: give the parent its turn
                    numbers[entry] = self._one_pair((phi_limit, delta_limit))
                    return None
                learnt[sub_key] = after
            if (value := space.decided(node, key)) is not None:
                numbers.pop(entry, None)
                space.record(key, value)
                return value
        children = space.expand(node, key)
        share = self.share if key == self._shared_root else None
        if share is not None:
            share.offer([(child_key, child) for child_key, child, _ in children])
        in_flight = self.in_flight
        in_flight.append((key, children))
        scan = self._scan
        decided, hashed = space.decided, self.hashed
        while True:
            if scan is None:
                phi, delta, second, best_index, best_phi, winning = scan_children(
                    children, decided, numbers, learnt, hashed
                )
            else:
                phi, delta, second, best_index, best_phi, winning = scan(
                    children, numbers, learnt, hashed
                )
            if phi == 0 or delta == 0:  # a losing child, or every child winning
                losing = phi != 0
                numbers.pop(entry, None)
                space.record(key, losing)
                in_flight.pop()
                return losing
            for index in reversed(winning):  # decided for good: never look at them again
                if share is not None:
                    share.decided(children[index][0])
                del children[index]
                if index < best_index:
                    best_index -= 1
            delta = min(delta, INFINITY - 1)
            if phi >= phi_limit or delta >= delta_limit:
                if len(numbers) >= self.capacity:
                    self._make_room()
                numbers[entry] = self._one_pair((phi, delta))
                in_flight.pop()
                return None
            # a node that looks losing needs every child: leave a busy one to its searcher;
            # one that looks winning needs one child: search the likeliest with the others
            # (a helper in a node its leader is in: the child the leader is in)
            if self.busy is not None:
                best = (best_index, best_phi, second)
                if delta <= phi:
                    if self.busy.elsewhere(children[best_index][0]):
                        best_index, best_phi, second = self._free_child(
                            children, learnt, phi_limit, best
                        )
                elif (
                    (leading := self._leading) is not None
                    and leading(key)
                    and not leading(children[best_index][0])
                ):
                    best_index, best_phi, second = self._led_child(
                        children, learnt, phi_limit, best
                    )
            if share is not None:
                share.entering(children[best_index][0])
            child_key, child, initial = children[best_index]
            widened = (
                second
                if second >= INFINITY
                else max(second + 1, math.ceil(second * (1 + self.epsilon)))
            )
            yield self._descend(
                child, child_key, delta_limit - delta + best_phi, min(phi_limit, widened)
            )
            learnt[child_key] = self._numbers(child, child_key, learnt.get(child_key, initial))

    def _marked_mid(self, node: Node, key: str, phi_limit: int, delta_limit: int) -> Task:
        """`_mid` with the node marked busy while this search is in it."""
        busy = cast(BusyMarks, self.busy)
        busy.enter(key)
        try:
            return (yield from self._mid(node, key, phi_limit, delta_limit))
        finally:
            busy.leave(key)

    def _led_child(
        self,
        children: list[Child[Node]],
        learnt: dict[str, tuple[int, int]],
        phi_limit: int,
        best: tuple[int, int, int],
    ) -> tuple[int, int, int]:
        """At a node that looks winning, the child the search this one helps is in, if it
        can make progress within this node's limit: its index, its φ, and no second δ
        (the helper stays in it while that search does, up to this node's limit); or
        ``best`` if that search is in none of them."""
        leading = cast("Callable[[str], bool]", self._leading)
        for index, (child_key, child, initial) in enumerate(children):
            if not leading(child_key):
                continue
            child_phi, child_delta = self._numbers(child, child_key, learnt.get(child_key, initial))
            if child_phi != 0 and child_delta < phi_limit:
                return index, child_phi, INFINITY
        return best

    def _free_child(
        self,
        children: list[Child[Node]],
        learnt: dict[str, tuple[int, int]],
        phi_limit: int,
        best: tuple[int, int, int],
    ) -> tuple[int, int, int]:
        """The child to search next among those no other search is in and that can make
        progress within this node's limit (δ under ``phi_limit``: one past it would come
        straight back, again and again): the cheapest to show losing, its φ, and the
        second-lowest δ among them; or ``best`` (its index, φ and second δ) if none."""
        elsewhere = cast(BusyMarks, self.busy).elsewhere
        pick, pick_phi = -1, 0
        low = second = INFINITY
        for index, (child_key, child, initial) in enumerate(children):
            if elsewhere(child_key):
                continue
            child_phi, child_delta = self._numbers(child, child_key, learnt.get(child_key, initial))
            if child_phi == 0 or child_delta >= phi_limit:
                continue
            if child_delta < low:
                second, low = low, child_delta
                pick, pick_phi = index, child_phi
            elif child_delta < second:
                second = child_delta
        return best if pick < 0 else (pick, pick_phi, second)
