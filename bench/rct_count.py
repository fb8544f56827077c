"""Count the reduced canonical trees of height ≤ n (paper §2.8: 1, 2, 3, 5, 22, 4 171 780).

An RCT of height ≤ n is exactly an irreducible set of RCTs of height ≤ n-1, so level n is
counted by testing every subset of level n-1 with ``Algebra.is_reduced`` (interning
nothing); levels up to n-1 are built by reducing every subset. n = 5 tests 2**22 sets.

    .venv/bin/python bench/rct_count.py [--height 5] [--limit SETS]

``--limit`` stops the last level after that many sets and projects the full time.
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations

from sproutsdb.solver.cgt import Algebra

PUBLISHED = [1, 2, 3, 5, 22, 4_171_780]


def levels_below(alg: Algebra, top: int) -> list[int]:
    """Handles of every RCT of height ≤ top, by reducing every set of lower ones."""
    level = [alg.ZERO]
    for _ in range(top):
        level = sorted(
            {alg.reduce_children(s) for r in range(len(level) + 1) for s in combinations(level, r)}
        )
    return level


def count_level(alg: Algebra, below: list[int], limit: int | None) -> tuple[int, int]:
    """(irreducible sets, sets tested) among the subsets of ``below`` (as bit masks)."""
    total = 1 << len(below)
    todo = total if limit is None else min(limit, total)
    is_reduced = alg.is_reduced
    count = 0
    for mask in range(todo):
        kids = frozenset(h for bit, h in enumerate(below) if mask >> bit & 1)
        if is_reduced(kids):
            count += 1
    return count, todo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--height", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    alg = Algebra()
    for n in range(args.height + 1):
        start = time.perf_counter()
        if n == 0:
            count, tested = 1, 1
        else:
            below = levels_below(alg, n - 1)
            count, tested = count_level(alg, below, args.limit)
        seconds = time.perf_counter() - start
        total = 1 << (len(below) if n else 0)
        published = PUBLISHED[n] if n < len(PUBLISHED) else None
        line = f"height ≤ {n}: {count:>9} RCTs  ({tested} sets, {seconds:.2f} s)"
        if tested < total:
            line += f"  partial: projected {seconds * total / tested:.0f} s for {total} sets"
        elif published is not None:
            line += "  = paper" if count == published else f"  ≠ paper {published}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
