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

from typing import TYPE_CHECKING

from sproutsdb.solver.search.dfpn import Child
from sproutsdb.solver.search.driver import run_tasks
from sproutsdb.solver.search.ordering import Option

if TYPE_CHECKING:
    from sproutsdb.solver.normal import NormalSolver

Node = tuple[tuple[str, ...], int]  # (components of unknown nimber, nim part)

# A child that is a known loss for the player to move (the empty sum): its parent is a win.
_LOSS: Child[Node] = ("! *0", ((), 0), (1, 1))
_REDUCTIONS_KEPT = 1 << 18  # sum nodes remembered with the single couple they reduce to


def couple_key(components: tuple[str, ...], n: int) -> str:
    """The table key of a couple: its components joined by '+', then ' *n'."""
    return f"{'+'.join(components) or '!'} *{n}"


class CoupleSpace:
    """The df-pn ``Space`` of one NormalSolver: its table, store buffer and move order."""

    def __init__(self, solver: NormalSolver) -> None:
        self.solver = solver
        self._reduced: dict[str, Node] = {}

    # ---------------------------------------------------------------- Space protocol
    def decided(self, node: Node, key: str) -> bool | None:
        components, n = self._single(node, key)
        if not components:
            return n == 0
        if len(components) > 1:
            return None
        table = self.solver._table
        known = table.nimber(components[0])
        if known is not None:
            return known == n
        if table.is_excluded(components[0], n):
            return False
        return None

    def expand(self, node: Node, key: str) -> list[Child[Node]]:
        solver = self.solver
        components, n = self._single(node, key)
        if len(components) > 1:
            components, n = self._reduce(components, n, key)
        value = self.decided((components, n), key)
        if value is not None:  # settled by the reduction: say so through the children
            return [] if value else [_LOSS]
        (component,) = components
        table = solver._table
        children = solver._measure.children(component)
        solver._fetch([part for child in children for part in child])
        options: list[Option] = []
        seen: set[str] = set()
        for child in children:
            rest, m = solver._fold(child, n)
            if not rest:
                if m == 0:
                    return [_LOSS]
                continue
            if len(rest) == 1 and table.is_excluded(rest[0], m):
                continue
            child_key = couple_key(rest, m)
            if child_key not in seen:
                seen.add(child_key)
                options.append(Option(rest, m))
        out: list[Child[Node]] = []
        for option in options:  # df-pn chooses by proof numbers: no look-ahead order
            out.append((couple_key(option.components, option.nim),
                        (option.components, option.nim), self._initial(option.components)))
        for k in range(n):
            if not table.is_excluded(component, k):
                out.append((couple_key(components, k), (components, k), (1, 1)))
        return out

    def record(self, key: str, losing: bool) -> None:
        components, n = self._single(self._parse(key), key)
        if len(components) != 1:
            return  # the empty sum: nothing to store (a searched sum was reduced first)
        if losing:
            self.solver._prove(components[0], n)
        else:
            self.solver._table.exclude(components[0], n)

    def visit(self) -> None:
        self.solver._expand()

    # ---------------------------------------------------------------- helpers
    def _single(self, node: Node, key: str) -> Node:
        """The node with known nimbers folded in (a reduced sum: its couple)."""
        reduced = self._reduced.get(key)
        components, n = reduced if reduced is not None else node
        return self.solver._fold(components, n)

    def _reduce(self, components: tuple[str, ...], n: int, key: str) -> Node:
        """Algorithm 2: nimbers of all components but the largest, folded into n."""
        solver = self.solver
        while len(components) > 1:
            smallest = min(components, key=solver._measure.lives)
            run_tasks(solver._nimber(smallest), [], solver._stats)
            components, n = solver._fold(components, n)
        if len(self._reduced) >= _REDUCTIONS_KEPT:
            self._reduced.clear()
        self._reduced[key] = (components, n)
        return components, n

    def _initial(self, components: tuple[str, ...]) -> tuple[int, int]:
        """(φ, δ) of an unseen child: a loss is harder to show the more lives it has."""
        lives = sum(self.solver._measure.lives(part) for part in components)
        return 1, 1 + lives // 4

    @staticmethod
    def _parse(key: str) -> Node:
        text, _, nim = key.rpartition(" *")
        return (() if text == "!" else tuple(text.split("+"))), int(nim)
