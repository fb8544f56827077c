"""`solve --jobs N`: helper processes share facts through the store; the answer never changes."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from sproutsdb.ops.jobs.busy_marks import BUSY_SLOTS, MainBusy, SharedBusy
from sproutsdb.ops.jobs.parallel_normal import (
    DONE,
    HELPER,
    MAIN,
    SPLIT_DEPTH,
    RootClaims,
    _claim,
    _left_by_main,
    root_options,
    split,
)
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame


@pytest.mark.parametrize("position", ["0*8", "0*9", "0*4+0.AB|AB"])
def test_jobs_give_the_same_answer_and_a_store_that_checks(tmp_path: Path, position: str) -> None:
    answers = []
    for jobs in (1, 2):
        store = tmp_path / f"jobs{jobs}"
        done = run_cli(
            "solve",
            position,
            "--jobs",
            str(jobs),
            "--store",
            str(store),
            "--json",
            "--quiet",
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["jobs"] == jobs
        answers.append((report["outcome"], report["nimber"]))
        checked = run_cli("check", "--store", str(store), "--root", position, "--json", timeout=300)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert answers[0] == answers[1]


def test_the_root_is_offered_from_the_other_end_its_last_child_last() -> None:
    context = multiprocessing.get_context("spawn")
    tasks: Any = context.Queue()
    claims: Any = context.Array("b", 8)
    current: Any = context.Value("i", -1, lock=False)
    share = RootClaims(tasks, claims, current)
    children = [("a *0", (("a",), 0)), ("b+c *1", (("b", "c"), 1)), ("d *0", (("d",), 0))]
    share.offer(children)
    share.offer(children)  # once only
    queued = [tasks.get(timeout=5) for _ in range(3)]
    # the main search starts from the front; its last child, proven best beside the others'
    # facts, goes last: a helper takes the others from the far end first
    assert queued == [(1, "b+c", 1, 1), (0, "a", 0, 1), (2, "d", 0, 1)]
    assert tasks.empty()
    share.entering("a *0")
    assert claims[0] == MAIN and current.value == 0
    # a helper leaves what the main search entered while it has other work, then takes it
    assert _claim(claims, queued[1], deferred=False) == "defer"
    assert _claim(claims, queued[2], deferred=False) == "take" and claims[2] == HELPER
    assert _claim(claims, queued[2], deferred=False) == "skip"  # another helper's
    share.entering("d *0")
    assert claims[2] == HELPER  # the helper keeps its claim
    share.decided("b+c *1")
    assert claims[1] == DONE and _claim(claims, queued[0], deferred=False) == "skip"
    # with nothing queued, a helper takes what the main search entered, not where it is now
    deferred = [queued[1]]
    current.value = 0
    assert _left_by_main(deferred, claims, current) == queued[1]  # the only one left
    tasks.close()


def test_the_main_search_leaves_the_other_root_children_to_the_helpers_until_its_own_is_done() -> (
    None
):
    context = multiprocessing.get_context("spawn")
    tasks: Any = context.Queue()
    claims: Any = context.Array("b", 8)
    share = RootClaims(tasks, claims, context.Value("i", -1, lock=False))
    tables = [context.Array("i", BUSY_SLOTS, lock=False) for _ in range(2)]
    main = MainBusy(tables, share)
    assert not main.elsewhere("a *0")  # nothing offered yet: marks only
    share.offer([("a *0", (("a",), 0)), ("b *0", (("b",), 0)), ("c *0", (("c",), 0))])
    assert main.elsewhere("a *0") and main.elsewhere("b *0")
    assert not main.elsewhere("c *0") and not main.elsewhere("d *0")  # its own; not a child
    share.decided("a *0")
    assert not main.elsewhere("a *0") and main.elsewhere("b *0")
    share.decided("c *0")  # its own child done: the others are free to it again
    assert not main.elsewhere("b *0")
    SharedBusy(tables, 1).enter("b *0")  # but not where a helper is
    assert main.elsewhere("b *0")
    tasks.close()


def test_busy_marks_are_seen_by_the_other_processes_only() -> None:
    context = multiprocessing.get_context("spawn")
    tables = [context.Array("i", BUSY_SLOTS, lock=False) for _ in range(2)]
    main, helper = SharedBusy(tables, 0), SharedBusy(tables, 1)
    main.enter("a *0")
    main.enter("a *0")  # the same node twice on one path (a nested search)
    assert helper.elsewhere("a *0") and not main.elsewhere("a *0")
    main.leave("a *0")
    assert helper.elsewhere("a *0")
    main.leave("a *0")
    assert not helper.elsewhere("a *0") and not helper.elsewhere("b *0")


def test_a_long_couple_splits_into_its_options_under_the_same_claim() -> None:
    game = SproutsGame()
    options = root_options(game, "0*5", 0)
    couple = (4, options[0][0], 2, 1)
    parts = split(game, couple)
    assert parts[-1] == (4, couple[1], 2, SPLIT_DEPTH)  # proven whole once its options are
    assert [(key, n) for _, key, n, _ in parts[:-1]] == root_options(game, couple[1], 2)
    assert {(couple[1], 0), (couple[1], 1)} <= {(key, n) for _, key, n, _ in parts}
    assert all(index == -1 and depth == 2 for index, _, _, depth in parts[:-1])


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    done = run_cli("solve", "0*3", "--jobs", "0", "--store", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "--jobs must be at least 1" in done.stderr


class FactsArriving:
    """`FactNews` of another process that proves everything at once: at the `after`-th
    look, every fact of `proven` lands in `store`, and their keys are the news."""

    def __init__(self, proven: Any, store: Any, after: int) -> None:
        self.proven, self.store, self.after, self.looks = proven, store, after, 0

    def published(self, keys: Any) -> None:
        pass

    def news(self) -> list[str]:
        self.looks += 1
        if self.looks != self.after:
            return []
        facts = self.proven._facts[FactKind.NIMBER]
        self.store.put(FactKind.NIMBER, dict(facts))
        return list(facts)


def test_another_process_deciding_a_node_on_the_path_restarts_the_search_from_its_root() -> None:
    """Another process's facts that decide a child of a node on df-pn's path make the
    search start again from its root, keeping its answer and the stored facts those of a
    lone search. (Here every fact arrives at once, so the frames would see them anyway;
    on 0*14 --jobs 2 a frame deep in a root option went on for 45 s after a helper had
    proved that option.)"""
    game = SproutsGame()
    proven = MemoryProofStore()
    alone = NormalSolver(game, proven)
    answer = alone.outcome("0*11")
    store = MemoryProofStore()
    news = FactsArriving(proven, store, after=200)
    solver = NormalSolver(game, store, share_seconds=0.0, news=news)
    assert solver.outcome("0*11") == answer
    stats = solver.stats
    assert news.looks >= 200 and stats.restarts >= 1
    assert stats.nodes < alone.stats.nodes
    assert store._facts[FactKind.NIMBER] == proven._facts[FactKind.NIMBER]
