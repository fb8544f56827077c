"""df-pn over the couples of normal play (Nimbers are inevitable, algorithms 1–2).

A node is a couple (components, n), i.e. the sum + *n, with every known nimber folded into
n. The couple (C, n) of one component C is losing iff nimber(C) = n; its options are
(C', n) for each child C' of C and (C, k) for k < n. A node of several components of
unknown nimber is reduced by algorithm 2 when df-pn first expands it: the nimbers of all
components but the one with most lives are computed (algorithm 3, each couple by df-pn
again), folded in, and the node then stands for the couple of the component left. So every
searched node is the couple of one component, and, as in the depth-first search, only
losing couples of single components become stored facts (nimber(C) = n); winning couples
are remembered in memory as "nimber(C) ≠ n".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sproutsdb.solver.search.couples import Couples
from sproutsdb.solver.search.dfpn import Child

Node = tuple[tuple[str, ...], int]  # (components of unknown nimber, nim part)

# A child that is a known loss for the player to move (the empty sum): its parent is a win.
_LOSS: Child[Node] = ("! *0", ((), 0), (1, 1))
_REDUCTIONS_KEPT = 1 << 18
# Recorded keys of a children list kept for one couple (`CoupleSpace._renamed`).
_KEYS_PER_COUPLE = 8
# Children held in the kept children lists at most. A child costs ~230 bytes (its key, node
# and tuples), so this bound is most of a normal solve's memory beyond the interpreter's; but
# df-pn's path moves with what it forgets: 2¹⁴ cut 0*12..0*17's peak RSS by ~11 MB and their
# visits by -20..+14 %, and doubled 0*14's (bench/results/spots-side-by-side.json, "levers").
EXPANDED_CAPACITY = 1 << 16
# The initial numbers (1, δ) of unseen children, made once: a kept children list holds
# ~6·10⁴ children, and a tuple of its own each was 56 bytes of them.
_INITIAL = tuple((1, delta) for delta in range(256))


def _initial(delta: int) -> tuple[int, int]:
    return _INITIAL[delta] if delta < 256 else (1, delta)


@dataclass(frozen=True)
class Levers:
    """The df-pn refinements of the normal search, each switchable so that `bench/levers.py`
    can measure what it saves; the defaults are the ones kept. None changes an answer."""

    epsilon: float = 0.25  # 1 + ε thresholds (Pawlewicz & Lew): fewer returns to a parent
    sized_delta: bool = True  # df-pn+: an unseen child's δ grows with its lives (else 1)
    tie_order: bool = True  # among equal numbers, smaller children first (else move order)
    twins: bool = False  # a child whose smaller twin is a known loss starts at δ = 1


def _tie_order(child: Child[Node]) -> tuple[int, int]:
    """Among children of equal proof numbers df-pn takes the first: put first the smaller
    ones (lives, through δ, and 4 per unit of nim part), then those split in more lands.
    Measured on 0*13: 8-10 % fewer visits than the engine's move order."""
    (components, m), delta = child[1], child[2][1]
    return delta + m, -len(components)  # sum nodes remembered with the single couple they reduce to


def _no_lives(land: str) -> int:
    """Lives as `Levers(sized_delta=False)` sees them: none, so every unseen child's δ is 1."""
    return 0


def couple_key(components: tuple[str, ...], n: int) -> str:
    """The table key of a couple: its components joined by '+', then ' *n'."""
    return f"{'+'.join(components) or '!'} *{n}"


class CoupleSpace:
    """The df-pn ``Space`` over the couples of one solve: its table, store buffer and lands.

    `couples` is the state the solver shares; `nimber` runs algorithm 3 to its end (a sum is
    reduced to one couple by the nimbers of its other lands) and `visit` counts a node visit
    (the solver's statistics, table bound and progress reports).
    """

    def __init__(
        self,
        couples: Couples,
        *,
        nimber: Callable[[str], int],
        visit: Callable[[], None],
        expanded_capacity: int = EXPANDED_CAPACITY,
        levers: Levers = Levers(),
    ) -> None:
        self.couples = couples
        self._sized_delta = levers.sized_delta
        self._tie_order = levers.tie_order
        self._twins = levers.twins and couples.measure.has_twins
        self._table = couples.table
        self._nimber = nimber
        self._visit = visit
        self._reduced: dict[str, Node] = {}
        # Expanded children lists, bounded by the number of children they hold in all.
        self._expanded: dict[str, list[Child[Node]]] = {}
        self._expanded_size = 0
        self._expanded_capacity = expanded_capacity
        self._resumed: dict[str, list[tuple[str, int]]] = {}  # lists a resume record kept

    # ---------------------------------------------------------------- Space protocol
    def decided(self, node: Node, key: str) -> bool | None:
        components, n = node
        if len(components) != 1 or key in self._reduced:
            components, n = self._single(node, key)
            if not components:
                return n == 0
            if len(components) > 1:
                return None
        # The hot path (once per child per df-pn step): a single couple, two dict lookups.
        return self._table.couple_value(components[0], n)

    def waiting(self, node: Node, key: str) -> tuple[Child[Node], int] | None:
        """A sum of several lands of unknown nimber waits on the nimber of its smallest
        land: the couple (land, k) for the least k not excluded yet (algorithms 2 and 3,
        one couple at a time, so that df-pn can leave a costly sum for a sibling)."""
        couples = self.couples
        components, n = self._single(node, key)
        if len(components) >= 2:
            couples.fetch(components)
            components, n = self._single(node, key)
        if len(components) < 2:
            if len(node[0]) >= 2:  # a reduced sum: what it stands for survives a cleared table
                self._remember_reduced(key, (components, n))
            return None
        lives = couples.measure.lives
        smallest = min(components, key=lives)
        k = 0
        while self._table.is_excluded(smallest, k):
            k += 1
        numbers = (1, 1 + lives(smallest) // 4) if self._sized_delta else _INITIAL[1]
        return (f"{smallest} *{k}", ((smallest,), k), numbers), len(components) - 2

    def expand(self, node: Node, key: str) -> list[Child[Node]]:
        cached = self._expanded.get(key)
        if cached is not None:  # df-pn re-enters a node many times: its list, pruned so far
            return cached
        children = self._expand(node, key)
        recorded = self._resumed.pop(key, None) if self._resumed else None
        if recorded is not None:  # counted in the size already, as in the interrupted run
            if len(children) > 1 or (children and children[0] is not _LOSS):
                self._renamed(children, recorded)
        else:
            self._expanded_size += len(children) + 1
        if self._expanded_size > self._expanded_capacity:
            self._expanded.clear()
            self._resumed.clear()
            self._expanded_size = len(children) + 1
        self._expanded[key] = children
        return children

    @property
    def expanded_lists(self) -> dict[str, list[Child[Node]]]:
        """The kept children lists (key -> children so far), for a resume record."""
        return self._expanded

    @property
    def expanded_size(self) -> int:
        """What the kept lists count against their capacity."""
        return self._expanded_size

    def resume_lists(self, lists: Mapping[str, list[tuple[str, int]]], size: int) -> None:
        """Children lists a resume record kept (key -> child keys with their initial δ):
        each is used once, when its node is first expanded, to give the real children the
        keys and order they had (`_renamed`), so that the rerun finds their numbers."""
        self._resumed = dict(lists)
        self._expanded_size = min(max(size, 0), self._expanded_capacity)

    def _renamed(self, children: list[Child[Node]], recorded: list[tuple[str, int]]) -> None:
        """Give the real ``children`` the recorded keys that stand for the same couple, in
        the recorded order; a recorded key that stands for none of them is ignored, a child
        no recorded key stands for keeps its key and goes last. Never adds a couple that is
        not a child nor drops one.

        Several recorded keys may stand for one couple: the interrupted run expanded the
        node before some nimbers were known (``A+B *0`` and ``A+C *0`` are both ``A *1``
        once nimber(B) = nimber(C) = 1 is known) and kept one child per key, each with its
        own numbers. Each such key stays a child here too, so that the numbers df-pn sums
        are those of the interrupted run (with one child per couple, a rerun of 0*12
        stopped at 5 % of its visits took 1.28 times the visits of one whole run), up to
        `_KEYS_PER_COUPLE` of them: a forged record could name any number (``C+X+X *n``
        is ``C *n`` for every X).
        """
        fold = self.couples.fold
        by_couple: dict[Node, int] = {}
        for index, (_, child, _) in enumerate(children):
            by_couple.setdefault(fold(*child), index)
        order: list[Child[Node]] = []
        keys_of: dict[int, int] = {}  # child index -> recorded keys standing for it
        keys: set[str] = set()
        for key, delta in recorded:
            if key in keys:
                continue
            try:
                node = self._parse(key)
            except ValueError:
                continue
            index = by_couple.get(fold(*node), -1)
            if index < 0 or keys_of.get(index, 0) >= _KEYS_PER_COUPLE:
                continue
            keys.add(key)
            keys_of[index] = keys_of.get(index, 0) + 1
            order.append((key, node, (1, max(delta, 1))))
        order.extend(child for index, child in enumerate(children) if index not in keys_of)
        children[:] = order

    def _expand(self, node: Node, key: str) -> list[Child[Node]]:
        """The children of a couple not expanded before: (C', n) for each child C' of C
        not known to be winning, then (C, k) for k < n; [_LOSS] if one is a known loss."""
        couples = self.couples
        components, n = self._single(node, key)
        if len(components) > 1:
            components, n = self._reduce(components, n, key)
        value = self.decided((components, n), key)
        if value is not None:  # settled by the reduction: say so through the children
            return [] if value else [_LOSS]
        (component,) = components
        table = self._table
        nimbers = table.nimbers
        fold = couples.fold

        def losing(child: tuple[str, ...]) -> bool:
            """A child known to lose for its mover, (C', n) with nimber(C') = n: the
            couple wins, and the children after it need not be made."""
            if len(child) == 1:
                return nimbers.get(child[0]) == n
            rest, m = fold(child, n)
            return not rest and m == 0

        children, _ = couples.measure.children_until(component, losing)
        if children is None:
            return [_LOSS]
        # The couple itself may be stored (a run resumed, or the table was cleared).
        couples.fetch([component, *(part for child in children for part in child)])
        value = table.couple_value(component, n)
        if value is not None:
            return [] if value else [_LOSS]
        lives = couples.measure.lives if self._sized_delta else _no_lives
        out: list[Child[Node]] = []
        seen: set[str] = set()
        rest: tuple[str, ...]
        for child in children:
            if len(child) == 1:  # most moves keep one land: no fold, no sort
                part = child[0]
                known = nimbers.get(part)
                if known is not None:
                    if known == n:
                        return [_LOSS]
                    continue
                rest, m = child, n
            else:
                rest, m = couples.fold(child, n)
                if not rest:
                    if m == 0:
                        return [_LOSS]
                    continue
                if len(rest) > 1:
                    child_key = couple_key(rest, m)
                    if child_key not in seen:
                        seen.add(child_key)
                        out.append(
                            (
                                child_key,
                                (rest, m),
                                _initial(1 + sum(lives(part) for part in rest) // 4),
                            )
                        )
                    continue
                part = rest[0]
            if table.is_excluded(part, m):
                continue
            child_key = f"{part} *{m}"
            if child_key not in seen:
                seen.add(child_key)
                out.append((child_key, (rest, m), _initial(1 + lives(part) // 4)))
        for k in range(n):  # df-pn chooses by proof numbers: no look-ahead order
            if not table.is_excluded(component, k):
                out.append((f"{component} *{k}", (components, k), _INITIAL[1]))
        if self._twins:
            self._first_where_twins_lose(out)
        if self._tie_order:
            out.sort(key=_tie_order)
        return out

    def _first_where_twins_lose(self, out: list[Child[Node]]) -> None:
        """Give δ = 1 to each child (C', m) of one land whose smaller twin (the game's, e.g.
        six empty spots fewer in one run) is known to have nimber m: its proof is often the
        twin's, grown (bench/analogy.py). Only numbers change, never a value."""
        twins = self.couples.measure.twins
        named = []
        for index, child in enumerate(out):
            (parts, m), numbers = child[1], child[2]
            if len(parts) == 1 and numbers[1] > 1:
                found = twins(parts[0])
                if found:
                    named.append((index, m, found))
        if not named:
            return
        self.couples.fetch({twin for _, _, found in named for twin in found})
        nimbers = self._table.nimbers
        for index, m, found in named:
            if any(nimbers.get(twin) == m for twin in found):
                key, node, _ = out[index]
                out[index] = (key, node, _INITIAL[1])

    def record(self, key: str, losing: bool) -> None:
        components, n = self._single(self._parse(key), key)
        if len(components) != 1:
            return  # the empty sum: nothing to store (a searched sum was reduced first)
        if losing:
            self.couples.prove(components[0], n)
        else:
            self._table.exclude(components[0], n)

    def visit(self) -> None:
        self._visit()

    # ---------------------------------------------------------------- helpers
    def _single(self, node: Node, key: str) -> Node:
        """The node with known nimbers folded in (a reduced sum: its couple)."""
        reduced = self._reduced.get(key)
        components, n = reduced if reduced is not None else node
        return self.couples.fold(components, n)

    def _reduce(self, components: tuple[str, ...], n: int, key: str) -> Node:
        """Algorithm 2: nimbers of all components but the largest, folded into n."""
        couples = self.couples
        while len(components) > 1:
            smallest = min(components, key=couples.measure.lives)
            n ^= self._nimber(smallest)
            rest = list(components)
            rest.remove(smallest)  # by the value returned: the table may have been cleared
            components, n = couples.fold(rest, n)
        self._remember_reduced(key, (components, n))
        return components, n

    def _remember_reduced(self, key: str, reduced: Node) -> None:
        if len(self._reduced) >= _REDUCTIONS_KEPT:
            self._reduced.clear()
        self._reduced[key] = reduced

    @staticmethod
    def _parse(key: str) -> Node:
        text, _, nim = key.rpartition(" *")
        return (() if text == "!" else tuple(text.split("+"))), int(nim)
