"""Batches of distinct misère facts for the fault tests (no tests in here).

A child process of test_faults.py imports `insert_chunks` from here to stream them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from sproutsdb.wire import pb

BATCH = 50


def position(n: int) -> str:
    """The n-th of many distinct canonical positions (sums of three runs of spots)."""
    runs = sorted(f"0*{2 + n % 50 + 50 * i}" for i, n in enumerate((n, n // 50, n // 2500)))
    return "+".join(runs)


def outcome(n: int) -> str:
    return "LW"[n * 7919 % 13 % 2]


def batch(b: int) -> dict[str, str]:
    return {position(n): outcome(n) for n in range(b * BATCH, (b + 1) * BATCH)}


def insert_chunks(
    first: int, count: int, *, pause: float = 0.0, sent: list[int] | None = None
) -> Iterator[pb.InsertRequest]:
    """The InsertRequests of batches first to first+count-1 (each number added to `sent`
    as they go), `pause` seconds apart."""
    for b in range(first, first + count):
        facts = batch(b)
        if sent is not None:
            sent.append(b)
        yield pb.InsertRequest(
            kind=pb.FACT_KIND_MISERE, keys=list(facts), texts=list(facts.values())
        )
        time.sleep(pause)
