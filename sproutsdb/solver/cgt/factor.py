"""Factoring by *1 (paper §2.11, §3.3): is a new reduced tree X equal to H + *1 for a smaller H?

Facts used (checked by the tests on all small trees):

* If G ~ H + *1 for RCTs G and H, their heights differ by exactly 1.
* If X = RCT(H + *1) with height(H) = height(X) - 1, then the canonical tree of H + *1,
  ``{RCT(c + *1) : c child of H} ∪ {H}``, is already reduced, so it *is* X: H is a child of
  X and X's other children are the partners (``+ *1``) of H's children.

Within a table closed under children, the partner of every tree whose partner is also in
the table is known (the later of the two was checked when it was interned), so the test
needs only the partners of H's children and never creates a tree.
"""

from __future__ import annotations

from collections.abc import Sequence

NONE = -1


def plus1_base(
    kids: frozenset[int],
    height: int,
    heights: Sequence[int],
    children: Sequence[frozenset[int]],
    partner: Sequence[int],
) -> int:
    """H such that the reduced tree with children ``kids`` is H + *1 and is taller than H.

    Returns NONE when there is no such H. ``partner[c]`` is the handle of RCT(c + *1)
    when known, else NONE.
    """
    n = len(kids)
    below = height - 1
    for base in kids:
        if heights[base] != below:
            continue
        base_kids = children[base]
        if len(base_kids) + 1 != n:
            continue
        for c in base_kids:
            p = partner[c]
            if p in (NONE, base) or p not in kids:
                break
        else:
            # The partners of base's children are distinct (c ↦ c + *1 is an involution),
            # all in kids and all different from base: with base they are exactly kids.
            return base
    return NONE
