"""Disjunctive sums of reduced trees and their RCT, memoised per pair.

The children of G + H are G' + H and G + H'; the RCT of the sum is the reduction of the
RCTs of those children. Shortcuts, each a theorem of the paper: G + 0 = G; m + n = m ⊕ n
when m or n is 0 or 1 (Theorem 3); G + *1 is G's known partner by *1 when it has one.
"""

from __future__ import annotations

from typing import Callable, Iterable

from sproutsdb.solver.cgt.factor import NONE
from sproutsdb.solver.cgt.table import ZERO, TreeTable


class Sums:
    """Memoised G + H over one table; ``reduce_children`` interns what the sums reach."""

    def __init__(
        self,
        table: TreeTable,
        reduce_children: Callable[[Iterable[int]], int],
        nim: Callable[[int], int],
    ) -> None:
        self._table = table
        self._reduce = reduce_children
        self._nim = nim
        self._memo: dict[tuple[int, int], int] = {}

    def __len__(self) -> int:
        return len(self._memo)

    def add(self, a: int, b: int) -> int:
        """Handle of RCT(a + b)."""
        if a == ZERO:
            return b
        if b == ZERO:
            return a
        if a > b:
            a, b = b, a
        key = (a, b)
        done = self._memo.get(key)
        if done is not None:
            return done
        table = self._table
        m, n = table.nim[a], table.nim[b]
        if m != NONE and n != NONE and (m <= 1 or n <= 1):
            result = self._nim(m ^ n)
        elif (m == 1 and table.partner[b] != NONE) or (n == 1 and table.partner[a] != NONE):
            result = table.partner[b if m == 1 else a]
        else:
            children = table.children
            add = self.add
            kids = {add(x, b) for x in children[a]}
            kids.update(add(a, y) for y in children[b])
            result = self._reduce(frozenset(kids))
        self._memo[key] = result
        return result
