"""What the Brussels-sprout theory paper claims about circular sprouts, as plain functions.

Kept apart from the engine so tests and benches can set the engine's computed nimbers beside
the paper's statements (papers/brussels-sprout-theory.txt, §5–6); nothing here is trusted.
"""

from __future__ import annotations

from collections.abc import Callable

from sproutsdb.solver.cgt.nimarith import mex


def theorem_5_1(p: int, q: int) -> int:
    """The paper's closed formula for η[CS4(P4: p,1,q,1)], 0 ≤ p ≤ q.

    The threshold uses |p − 2| as in the theorem's statement (the proof's headings drop the
    bars, which would misplace p = 1, q = 2); i is p + q mod 5 taken in 1..5.
    """
    if not 0 <= p <= q:
        raise ValueError(f"Theorem 5.1 is stated for 0 ≤ p ≤ q, got p={p}, q={q}")
    if p == q:
        return 1
    if q >= 2 * p - abs(p - 2) // 2:
        return 2 * p
    i = (p + q) % 5 or 5
    return 4 * (p + q - i) // 5 + 2 * (i // 4)


def cs4_text(p: int, q: int) -> str:
    """The notation of CS4(P4: p,1,q,1)."""
    return f"CS({p},1,{q},1)"


def bs2_first_move_nimber(p: int, q: int, cs4: Callable[[int, int], int]) -> int:
    """η of BS2(P4: p,q) after its one first move, from η[CS4(P4: a,1,c,1)] = cs4(a, c).

    The first curve joins the two spots (a loop would close a 2-cycle) and leaves a path
    x–t–y with p−1, 2 and q−1 tips; every second move joins x to y (the rest are loops or
    neighbours), closing a 4-cycle x,t,y,s whose two discs are CS4(a,1,c,1) and
    CS4(p−2−a,1,q−2−c,1) for any 0 ≤ a ≤ p−2, 0 ≤ c ≤ q−2.
    """
    if p < 1 or q < 1:
        raise ValueError(f"BS2(P4: p,q) has a first move only for p, q ≥ 1, got {p}, {q}")
    return mex(cs4(a, c) ^ cs4(p - 2 - a, q - 2 - c) for a in range(p - 1) for c in range(q - 1))


def bs2_nimber(p: int, q: int, cs4: Callable[[int, int], int]) -> int:
    """η[BS2(P4: p,q)] through the paper's reduction (§6): the root's only child is the
    position after the first move, so the root is 0 exactly when that child is not."""
    if p == 0 or q == 0:
        return 0  # no move: joining a spot to itself closes a cycle of length 2
    return mex([bs2_first_move_nimber(p, q, cs4)])
