"""The reduction of the paper (§2.5–2.6, §2.9, §3.2): what a set of reduced children gives.

Given the distinct RCTs ``{A1..An}`` of the children of a position, the RCT of the
position is the tree itself unless it has a reducer, a tree G = {A1..Ai} (the children
lower than some height) that is a child of every removed Aj, i+1 ≤ j ≤ n. The smallest
reducer is taken; it is found among

* 0 (i = 0): only if the tree is a misère win and every child has 0 as a child (proviso);
* prefixes {A1..Ai} of the children sorted by height with h(i+1) ≥ h(i) + 2.

A reducer is a child of the removed Aj, which are RCTs, so it is an RCT itself and is
already in the table (the table is closed under children): a prefix set that names no
interned tree cannot be a child of Aj, whether it is reducible or simply never met. The
mex rule (Theorem 2) is the special case where all children are nim-heaps; it is tested
first only because it is cheap.
"""

from __future__ import annotations

from sproutsdb.solver.cgt.table import ZERO, TreeTable

IRREDUCIBLE = -1


def reduction_of(table: TreeTable, kids: frozenset[int]) -> int:
    """The handle of the RCT the tree with children ``kids`` reduces to, or IRREDUCIBLE.

    ``kids`` must be handles of ``table``. IRREDUCIBLE means the tree with exactly these
    children is reduced (it may or may not be interned yet). Never interns anything.
    """
    n = len(kids)
    if n == 0:
        return IRREDUCIBLE
    nim = table.nim
    values = set()
    for c in kids:
        v = nim[c]
        if v < 0:
            break
        values.add(v)
    else:
        if 0 in values or 1 in values:  # Theorem 2: the mex rule
            m = 0
            while m in values:
                m += 1
            # m == n means the children are exactly 0..n-1: the tree is the heap *n.
            return IRREDUCIBLE if m == n else table.heaps[m]
    children = table.children
    win = table.win
    # Reduction to 0, only for a misère win whose every child has 0 as a child (proviso).
    if not all(win[c] for c in kids) and all(ZERO in children[c] for c in kids):
        return ZERO
    if n == 1:
        return IRREDUCIBLE
    height = table.height
    order = sorted(kids, key=height.__getitem__)
    by_children = table.by_children
    previous = height[order[0]]
    for i in range(1, n):
        h = height[order[i]]
        if h >= previous + 2:
            g = by_children.get(frozenset(order[:i]))
            if g is not None:
                for j in range(i, n):
                    if g not in children[order[j]]:
                        break
                else:
                    return g
        previous = h
    return IRREDUCIBLE
