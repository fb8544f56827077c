"""The one loop of control of the searches: coroutine tasks run on an explicit stack.

A task is a generator that yields sub-tasks and is sent each one's result; what it returns
goes to the task below it. Depth is bounded by memory, not by Python's recursion limit.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

from sproutsdb.solver.search.progress import SolverStats

__all__ = ["QuietCollector", "run_tasks"]


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


# How often a search whose collector is paused still runs a full collection (at a visit).
FULL_COLLECTION_SECONDS = 600.0


class QuietCollector:
    """The cyclic garbage collector paused while a search runs, with a full collection at
    most every ``every`` seconds (``tick``, called at each of the search's visits), so that any
    reference cycles made meanwhile are freed all the same.

    A search makes next to no cycles (a full collection after misère 0*13, or normal-play
    0*14, with the collector off all along freed 0 objects), but the collector walked every
    long-lived container it keeps (tables, caches, children lists) once young and once
    middle-aged, whatever the thresholds: at misère 0*15 that was 7 % of the CPU (227 ->
    212 s with it off), and 12 % of the samples of a live 0*20 (issue 28).
    """

    def __init__(self, every: float | None = None) -> None:
        self.every = FULL_COLLECTION_SECONDS if every is None else every
        self._due = math.inf
        self.collections = 0  # full collections run by ``tick``

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Within the block the collector runs only when ``tick`` finds a collection due;
        it is on again after (unless it was off before)."""
        was_on = gc.isenabled()
        gc.disable()
        self._due = time.monotonic() + self.every
        try:
            yield
        finally:
            self._due = math.inf
            if was_on:
                gc.enable()

    def tick(self) -> None:
        """A full collection if one is due (never outside ``paused``)."""
        if time.monotonic() >= self._due:
            gc.collect()
            self.collections += 1
            self._due = time.monotonic() + self.every
