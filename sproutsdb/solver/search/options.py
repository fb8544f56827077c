"""What both solvers (normal play and misère) take besides the game and the store.

One object, so `solve`, its helper processes, the checks and the benchmarks set progress
reports, how often facts are flushed, whether stored roots are trusted and the memory
bounds in one way for either play.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sproutsdb.solver.search.progress import ProgressFn, ProgressMeter


class FactNews(Protocol):
    """What solvers of one store tell each other (`solve --jobs`): the keys each one put.
    A key is news only: its value is read from the store, as any fact."""

    def published(self, keys: Sequence[str]) -> None:
        """This solver has just made these keys durable in the store."""
        ...

    def news(self) -> list[str]:
        """Keys the other solvers have put since the last call."""
        ...


@dataclass(frozen=True)
class SolveOptions:
    """Settings common to NormalSolver and MisereSolver (None: the solver's own default)."""

    progress: ProgressFn | None = None  # called with a Progress at most every interval
    progress_interval: float = 0.25  # seconds between progress reports
    batch_size: int = 1000  # proven facts written per store batch
    flush_seconds: float = 5.0  # proven facts are committed at least this often
    reprove_roots: bool = True  # prove a root again even when the store holds its fact
    children_cache: int | None = None  # lands whose children are memoised
    table_capacity: int | None = None  # in-memory table entries before it is cleared

    def meter(self) -> ProgressMeter:
        """The throttled progress reporter these options ask for."""
        return ProgressMeter(self.progress, self.progress_interval)
