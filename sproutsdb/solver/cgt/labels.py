"""Paper-style labels ``h-k-O`` (paper §3.1.2, §3.3.1), numbered in discovery order.

``h`` is the height, ``O`` the misère outcome, ``k`` is 0 for nim-heaps and otherwise
counts, per height, the trees met that are neither nim-heaps nor factored. A tree
X = H + *1 with H one shorter is written ``h-k+1-O`` where ``h-k`` is H's label and ``O``
is X's outcome. The numbers depend on discovery order, so labels are for reading and for
comparison with the literature; content ids are the keys.

Styles of nim-heaps (other trees print the same in every style):

* ``short``    (default): the integer, ``0`` ``1`` ``2``;
* ``paper``    (Figure 8 table): ``0-0-W`` ``1-0-L`` ``2-0-W`` ``3-0-W``;
* ``factored`` (§3.3, odd heaps factored): ``0-0-W`` ``0-0+1-L`` ``2-0-W`` ``2-0+1-W``.
"""

from __future__ import annotations

from sproutsdb.solver.cgt.factor import NONE
from sproutsdb.solver.cgt.table import TreeTable

STYLES = ("short", "paper", "factored")


def label(table: TreeTable, handle: int, style: str = "short") -> str:
    """The paper-style label of a tree in the given style."""
    if style not in STYLES:
        raise ValueError(f"label style {style!r} is not one of {', '.join(STYLES)}")
    outcome = "W" if table.win[handle] else "L"
    n = table.nim[handle]
    base = table.factor_of[handle]
    if n != NONE:
        if style == "short":
            return str(n)
        if style == "paper" or base == NONE:
            return f"{n}-0-{outcome}"
    if base != NONE:
        return f"{table.height[base]}-{table.serial[base]}+1-{outcome}"
    return f"{table.height[handle]}-{table.serial[handle]}-{outcome}"
