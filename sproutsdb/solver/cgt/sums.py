"""Disjunctive sums of reduced trees and their RCT, memoised per pair.

The children of G + H are G' + H and G + H'; the RCT of the sum is the reduction of the
RCTs of those children. Shortcuts, each a theorem of the paper: G + 0 = G; m + n = m ⊕ n
when m or n is 0 or 1 (Theorem 3); G + *1 is G's known partner by *1 when it has one.
The walk uses an explicit stack: sums of tall trees must not hit Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable

from sproutsdb.solver.cgt.factor import NONE
from sproutsdb.solver.cgt.table import ZERO, TreeTable


class Sums:
    """Memoised G + H over one table; ``reduce_children`` interns what the sums reach."""

    def __init__(
        self,
        table: TreeTable,
        reduce_children: Callable[[frozenset[int]], int],
        nim: Callable[[int], int],
    ) -> None:
        self._table = table
        self._reduce = reduce_children
        self._nim = nim
        self._memo: dict[tuple[int, int], int] = {}

    def __len__(self) -> int:
        return len(self._memo)

    def clear(self) -> None:
        """Forget memoised sums (the trees stay in the table)."""
        self._memo.clear()

    def _known(self, a: int, b: int) -> int:
        """RCT(a + b) if a shortcut or the memo gives it at once, else NONE."""
        if a == ZERO:
            return b
        if b == ZERO:
            return a
        table = self._table
        m, n = table.nim[a], table.nim[b]
        if m != NONE and n != NONE and (m <= 1 or n <= 1):
            return self._nim(m ^ n)
        if m == 1 and table.partner[b] != NONE:
            return table.partner[b]
        if n == 1 and table.partner[a] != NONE:
            return table.partner[a]
        return self._memo.get((a, b) if a < b else (b, a), NONE)

    def add(self, a: int, b: int) -> int:
        """Handle of RCT(a + b)."""
        done = self._known(a, b)
        if done != NONE:
            return done
        known, memo, children = self._known, self._memo, self._table.children
        goal = (a, b) if a < b else (b, a)
        stack = [goal]
        while stack:
            a, b = stack[-1]
            if (a, b) in memo:
                stack.pop()
                continue
            kids: set[int] = set()
            missing = False
            for x, y in [(x, b) for x in children[a]] + [(a, y) for y in children[b]]:
                r = known(x, y)
                if r == NONE:
                    missing = True
                    stack.append((x, y) if x < y else (y, x))
                elif not missing:
                    kids.add(r)
            if not missing:
                memo[(a, b)] = self._reduce(frozenset(kids))
                stack.pop()
        return memo[goal]
