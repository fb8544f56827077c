"""Test helper: the root's options settled, as a losing root's progress reports count them."""

from __future__ import annotations

from collections.abc import Sequence

from sproutsdb.solver.search.progress import Progress


def assert_headway_of_a_losing_root(reports: Sequence[Progress], total: int) -> None:
    """From none of the `total` options proven winning to all but maybe the last, never
    back, never one losing; the final report has none (the outcome says it all)."""
    counts = [p.root_options for p in reports if p.root_options is not None]
    assert counts and {c[2] for c in counts} == {total} and {c[1] for c in counts} == {0}
    won = [c[0] for c in counts]
    assert won == sorted(won) and won[0] == 0 and won[-1] >= total - 1
    assert reports[-1].root_options is None
