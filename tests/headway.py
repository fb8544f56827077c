"""Test helpers: the root's options settled, as a losing root's progress reports count them,
and one solve that made those reports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, NamedTuple, Protocol, TypeVar

import pytest

from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.progress import Progress


def assert_headway_of_a_losing_root(reports: Sequence[Progress], total: int) -> None:
    """From none of the `total` options proven winning to all but maybe the last, never
    back, never one losing; the final report has none (the outcome says it all)."""
    counts = [p.root_options for p in reports if p.root_options is not None]
    assert counts and {c[2] for c in counts} == {total} and {c[1] for c in counts} == {0}
    won = [c[0] for c in counts]
    assert won == sorted(won) and won[0] == 0 and won[-1] >= total - 1
    assert reports[-1].root_options is None


class Outcomes(Protocol):
    """A solver that answers the outcome of a position."""

    def outcome(self, position: str) -> str | None: ...


S = TypeVar("S", bound=Outcomes)


class ReportedRun(NamedTuple, Generic[S]):
    """An uninterrupted solve and every progress report it made."""

    solver: S
    reports: list[Progress]


def solve_reporting_each_step(
    make: Callable[[SolveOptions], S], root: str, outcome: str
) -> ReportedRun[S]:
    """Solve `root` to its published `outcome` with the solver `make` builds, a progress
    report made as often as one can be (reporting changes none of the search's visits), so
    that one solve serves both the tests that read its visits and those that read its
    reports."""
    from sproutsdb.solver.search import progress

    reports: list[Progress] = []
    options = SolveOptions(progress=reports.append, progress_interval=0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(progress, "ROOT_HEADWAY_SECONDS", 0.01)
        solver = make(options)
        assert solver.outcome(root) == outcome
    return ReportedRun(solver, reports)
