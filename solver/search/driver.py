"""The one loop of control of the searches: coroutine tasks run on an explicit stack.

A task is a generator that yields sub-tasks and is sent each one's result; what it returns
goes to the task below it. Depth is bounded by memory, not by Python's recursion limit.
"""

from __future__ import annotations

import gc
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

from sproutsdb.solver.search.progress import SolverStats

__all__ = ["rare_full_collections", "run_tasks"]


def run_tasks(
    task: Generator[Any, Any, Any], stack: list[Any], stats: SolverStats | None = None
) -> Any:
    """Run ``task`` and every sub-task it yields on ``stack`` (the caller's list, so that
    progress reports can read the depth); the task's return value. ``stats.max_depth``
    follows the deepest stack."""
    stack[:] = [task]
    value: Any = None
    deepest = 1
    try:
        while True:
            try:
                sub = stack[-1].send(value)
            except StopIteration as stop:
                stack.pop()
                if not stack:
                    return stop.value
                value = stop.value
                continue
            stack.append(sub)
            value = None
            if len(stack) > deepest:
                deepest = len(stack)
    finally:
        if stats is not None:
            stats.max_depth = max(stats.max_depth, deepest)


@contextmanager
def rare_full_collections(factor: int = 100) -> Iterator[None]:
    """Within the block, the garbage collector walks its oldest generation ``factor`` times
    less often (the young ones as usual); the thresholds are restored after.

    A search keeps few objects the collector tracks but large containers it walks in full
    every time (asked keys, proof numbers, the caches): once the search's nodes became
    plain tuples, a full collection came after every ~70 k allocations and those walks
    were 10-15 % of a misère solve's CPU, to free almost nothing (the search makes
    next to no reference cycles: 0*13's peak RSS is the same with the collector off).
    """
    young, middle, old = gc.get_threshold()
    if young:  # 0: the collector is off, leave it so
        gc.set_threshold(young, middle, old * factor)
    try:
        yield
    finally:
        if young:
            gc.set_threshold(young, middle, old)
