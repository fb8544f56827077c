"""The one loop of control of the searches: coroutine tasks run on an explicit stack.

A task is a generator that yields sub-tasks and is sent each one's result; what it returns
goes to the task below it. Depth is bounded by memory, not by Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from sproutsdb.solver.search.progress import SolverStats

__all__ = ["run_tasks"]


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
