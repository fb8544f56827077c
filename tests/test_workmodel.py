"""The work model of a solve (solver.search.workmodel) and `--jobs` with its deeper split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.games import get_game
from sproutsdb.ops.jobs.helper_processes import HelperSpec
from sproutsdb.ops.jobs.parallel_normal import helpers_running
from sproutsdb.ops.solve import SolveSettings, normal_solver, solve
from sproutsdb.ops.stores import StoreLocation, open_proof_store
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.search import workmodel
from sproutsdb.solver.search.workmodel import TaskGraph, WorkRecord

WORKERS = (1, 2, 32, 1024)


def _solve(n: int, record: WorkRecord | None) -> tuple[str, int]:
    game = get_game().engine()
    solver = normal_solver(game, MemoryProofStore(), SolveSettings())
    if record is not None:
        workmodel.install(solver, record)
    outcome = solver.outcome(game.canonical(f"0*{n}"))
    return outcome, solver.stats.nodes


@pytest.mark.parametrize("n", [8, 9, 10])
def test_the_record_sums_to_the_solves_visits_and_its_figures_are_sane(n: int) -> None:
    record = WorkRecord()
    recorded = _solve(n, record)
    assert recorded == _solve(n, None)  # recording changes neither answer nor search
    assert record.total == recorded[1]
    assert len(record.roots) == 1 and record.inclusive()[record.roots[0]] == record.total
    assert all(
        record.depth[p] + 1 == record.depth[c] for c, p in enumerate(record.parent) if p >= 0
    )
    divisions = [
        workmodel.root_options,
        workmodel.by_depth(2),
        workmodel.by_budget(16),
        workmodel.jobs_split(50, 3),
        workmodel.by_work(10),
        workmodel.every_couple,
    ]
    for division in divisions:
        graph = TaskGraph.of(record, division)
        figures = workmodel.speedups(record, division, WORKERS)
        assert graph.dropped == 0  # the game is acyclic, and so is the task graph
        assert figures.total == record.total >= figures.critical >= figures.largest >= 1
        assert graph.schedule(1) == record.total
        for p in WORKERS:
            makespan = graph.schedule(p)
            assert makespan >= max(record.total / p, figures.critical)
            assert makespan <= record.total / p + figures.critical  # Graham's bound
            assert figures.greedy[p] <= figures.bound[p] + 1e-9 <= p + 1e-9


def test_finer_divisions_shorten_the_critical_path() -> None:
    record = WorkRecord()
    _solve(10, record)
    root = workmodel.speedups(record, workmodel.root_options, [1024])
    finest = workmodel.speedups(record, workmodel.every_couple, [1024])
    assert finest.critical < root.critical
    assert finest.tasks == len(record) > root.tasks


def test_a_losing_couple_waits_on_every_option_a_winning_one_on_its_cheapest_proof() -> None:
    record = WorkRecord()
    record.enter("a *0")  # winning: c is its proof, b a refuted try
    record.expanded()
    record.enter("b *0")
    record.expanded()
    for _ in range(5):
        record.enter("d *0")
        record.leave(None)
    record.enter("d *0")
    record.leave(True)
    record.leave(False)
    record.enter("c *0")
    record.expanded()
    record.leave(True)
    record.leave(False)
    needed = record.needed(record.inclusive())
    a, b, c, d = (record.index[k] for k in ("a *0", "b *0", "c *0", "d *0"))
    assert needed[a] == [c] and needed[b] == [d]
    assert record.visits[d] == 6 and record.total == 9
    graph = TaskGraph.of(record, workmodel.every_couple)
    assert graph.critical_path() == 6 + 1  # d then b; a waits on c only
    assert graph.schedule(2) == 7 and graph.schedule(1) == 9


def test_jobs_3_with_every_couple_split_of_0x10_gives_the_answer_of_jobs_1(
    tmp_path: Path,
) -> None:
    """The smaller twin of the test below: 0*10, also a first-player win of nimber 1."""
    _jobs_3_with_every_couple_split_gives_the_answer_of_jobs_1("0*10", tmp_path)


@pytest.mark.slow
def test_jobs_3_with_every_couple_split_gives_the_answer_of_jobs_1(tmp_path: Path) -> None:
    _jobs_3_with_every_couple_split_gives_the_answer_of_jobs_1("0*11", tmp_path)


def _jobs_3_with_every_couple_split_gives_the_answer_of_jobs_1(
    position: str, tmp_path: Path
) -> None:
    alone = solve(position, MemoryProofStore())
    store_path = tmp_path / "two"
    spec = HelperSpec(StoreLocation(path=str(store_path)), search="dfpn")
    store = open_proof_store(str(store_path))
    try:  # a zero budget: once one helper is idle, the other splits what it has
        with helpers_running(spec, position, 3, split_seconds=0.0) as links:
            settings = SolveSettings(
                share_seconds=0.5, root_share=links.root_share, news=links.news
            )
            report = solve(position, store, settings=settings)
    finally:
        store.close()
    assert (report.outcome, report.nimber) == (alone.outcome, alone.nimber) == ("W", 1)
    checked = run_cli(
        "check", "--store", str(store_path), "--root", position, "--json", timeout=300
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_fleet_split_of_0x5_hands_out_the_options_of_long_positions_with_the_same_answer(
    tmp_path: Path,
) -> None:
    """The smaller twin of the test below: 0*5, whose options still run past the budget
    and are split."""
    _fleet_split_hands_out_the_options_of_long_positions_with_the_same_answer("0*5", tmp_path)


@pytest.mark.slow
def test_fleet_split_hands_out_the_options_of_long_positions_with_the_same_answer(
    tmp_path: Path,
) -> None:
    _fleet_split_hands_out_the_options_of_long_positions_with_the_same_answer("0*7", tmp_path)


def _fleet_split_hands_out_the_options_of_long_positions_with_the_same_answer(
    position: str, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    from service_support import ServerProcess

    game = get_game().engine()
    root = game.canonical(position)
    expected = solve(root, MemoryProofStore())
    with ServerProcess(tmp_path / "store", "--no-seed") as server:
        done = run_cli(
            "fleet", "solve", "--options-of", root, "--split", "0.01", "--split-depth", "1",
            "--server", server.address, "--ray", "--jobs", "2", "--json", "--quiet",
            timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["root"]["outcome"], report["root"]["nimber"]) == (
        expected.outcome,
        expected.nimber,
    )
    assert len(report["positions"]) == len(game.children(root))
    assert report["handed_out"] > 0
    assert not [r for r in report["positions"] if "error" in r]
