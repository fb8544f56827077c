"""The work model of a misère solve (solver.search.workmodel.install on a MisereSolver), and
its work graph as bench/fleet_traces.py saves it and bench/fleet_simulator.py scales it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sproutsdb.formats.rcttable import RctTable, table_from_positions
from sproutsdb.games import get_game
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.search import workmodel
from sproutsdb.solver.search.workmodel import TaskGraph, WorkRecord

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import fleet_sim  # bench/fleet_sim.py
import fleet_simulator  # bench/fleet_simulator.py
import fleet_traces  # bench/fleet_traces.py
import speedup_model  # bench/speedup_model.py


@pytest.fixture(scope="module")
def s4() -> RctTable:
    """The RCTs of 0*4's lands, built here (a fraction of a second)."""
    game = get_game().engine()
    search = game_tree_rcts(game, game.canonical("0*4"))
    return table_from_positions(search.algebra, search.positions())


@pytest.fixture
def shipped_s4(s4: RctTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """`record_misere` on the S4 table in place of the shipped S6 one, which a test
    session re-derives first (seconds of helper processes): the same path, a small table."""
    monkeypatch.setattr(speedup_model, "shipped_rct_table", lambda: (s4, Path("s4")))


def _rules_alone(n: int, record: WorkRecord | None) -> tuple[str, int]:
    """Misère 0*n without RCTs (the rules alone), recorded if ``record``."""
    game = get_game().engine()
    solver = MisereSolver(game, MemoryProofStore())
    if record is not None:
        workmodel.install(solver, record)
    return solver.outcome(game.canonical(f"0*{n}")), solver.stats.nodes


def _checked(record: WorkRecord, outcome: str, visits: int) -> None:
    """What any recorded misère solve must satisfy."""
    assert visits > 0 and record.total == visits
    assert len(record.roots) == 1
    root = record.roots[0]
    assert record.losing[root] is (outcome == "L")
    assert record.inclusive()[root] == record.total
    assert TaskGraph.of(record, workmodel.every_couple).dropped == 0
    figures = workmodel.speedups(record, workmodel.by_budget(64), [1, 2])
    assert figures.total == record.total
    assert figures.greedy[1] == pytest.approx(1.0)
    assert 1.0 <= figures.greedy[2] <= 2.0


def test_a_misere_solve_by_the_rules_alone_is_recorded_whole_and_unchanged() -> None:
    record = WorkRecord()
    recorded = _rules_alone(5, record)
    assert recorded == _rules_alone(5, None)  # recording changes neither answer nor search
    _checked(record, *recorded)


@pytest.mark.usefixtures("shipped_s4")
def test_record_misere_solves_as_the_cli_does_and_records_every_visit() -> None:
    """0*8: a few hundred visits, a fraction of a second."""
    record, outcome, visits, cpu = speedup_model.record_misere(8)
    again = speedup_model.record_misere(8)
    assert (outcome, visits) == (again[1], again[2]) == ("L", record.total)
    assert cpu >= 0
    _checked(record, outcome, visits)


@pytest.mark.usefixtures("shipped_s4")
def test_a_misere_work_graph_is_scaled_at_its_own_cost_per_visit() -> None:
    record, outcome, visits, _ = speedup_model.record_misere(8)
    graph = fleet_traces.work_graph(8, record, outcome, visits, 1.0, misere=True)
    assert graph["play"] == "misere" and graph["outcome"] == "L"
    assert graph["facts"] == sum(1 for losing in record.losing if losing) > 0
    assert set(graph["graphs"]) == {str(b) for b in fleet_traces.BUDGETS}
    assert sum(graph["graphs"]["64"]["work"]) == visits
    assert fleet_traces.graph_path(17, misere=True).name == "misere-0x17-graph.json.gz"
    normal = fleet_sim.Costs(cpu_per_visit=1e-5, dispatch=1e-3, facts_per_visit=0.5)
    got = fleet_simulator.misere_graph_rows(graph, normal, [2, 32])
    assert got["cpu_per_visit_ms"] == pytest.approx(1e3 / visits, rel=1e-2)
    assert got["facts_per_visit"] == pytest.approx(graph["facts"] / visits, rel=1e-3)
    assert [row["workers"] for row in got["rows"]] == [2, 32]
    for row in got["rows"]:
        for name, _, _ in fleet_simulator.DESIGNS:
            assert 0 < row[name]["speedup"] <= row["workers"] + 1e-9
