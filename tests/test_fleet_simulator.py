"""The fleet simulator (bench/fleet_sim.py): exact makespans of hand-made traces, one worker
reproduces the serial time, more workers never add work, and a real fleet trace
(`fleet solve --trace`, a local server and Ray) parses and replays."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.ops.jobs.fleet_trace import read_trace, write_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import fleet_sim  # bench/fleet_sim.py

# three tasks: 2 and 3 visits, then 4 that waits on both (one CPU second a visit)
WORK, DEPS = [2, 3, 4], [[], [], [0, 1]]


def test_a_hand_made_graph_gives_the_makespan_computed_by_hand() -> None:
    """Free costs: t1 (the longer chain) and t0 start at 0; t2 follows t1 on its worker at
    3 (t0's fact known since 2): 7. With costs: each take 0.1 s at the hub, so t0 ends at
    2.1 on worker 1, whose batch leaves at its phase 0.618 + 2 = 2.618, is committed 0.05
    later and seen a half sync (0.1) and a round trip (0.1) after: 2.868 < 3.1, when t1 ends
    on worker 0, which goes on with t2 itself (no take): 3.1 + 4 = 7.1."""
    free = fleet_sim.Costs(cpu_per_visit=1.0).free()
    assert fleet_sim.scale_graph(WORK, DEPS, 2, free).makespan == pytest.approx(7.0)
    costs = fleet_sim.Costs(cpu_per_visit=1.0, dispatch=0.1, flush=1.0, sync=0.2, commit_fixed=0.05)
    got = fleet_sim.scale_graph(WORK, DEPS, 2, costs)
    assert got.makespan == pytest.approx(7.1)
    assert got.taken_local == 1 and got.batches == 3
    # t0's news later than t1's end (a slow server): worker 0, idle, goes on with t2 when
    # t0's news reach it, 2.618034 + 0.5 + 0.1 + 0.1 (t1 is its own), then 4
    slow = fleet_sim.Costs(**{**vars(costs), "commit_fixed": 0.5})
    got = fleet_sim.scale_graph(WORK, DEPS, 2, slow)
    assert got.makespan == pytest.approx(3.318034 + 4) and got.taken_local == 1


def test_one_worker_takes_the_serial_time() -> None:
    free = fleet_sim.Costs(cpu_per_visit=0.5).free()
    got = fleet_sim.scale_graph(WORK, DEPS, 1, free)
    assert got.makespan == pytest.approx(4.5) and got.speedup == pytest.approx(1.0)


def _chain_and_fan(size: int) -> tuple[list[int], list[list[int]]]:
    """A root waiting on `size` tasks, each waiting on a leaf of its own (work 1..5)."""
    work = [1 + i % 5 for i in range(2 * size)] + [3]
    deps = [[size + i] for i in range(size)] + [[] for _ in range(size)] + [list(range(size))]
    return work, deps


def test_more_workers_never_add_work_or_beat_the_bounds() -> None:
    work, deps = _chain_and_fan(40)
    costs = fleet_sim.Costs(
        cpu_per_visit=0.01, dispatch=0.002, flush=0.05, sync=0.05, commit_fixed=0.001,
        commit_per_fact=0.0001, facts_per_visit=0.2,
    )  # fmt: skip
    serial = sum(work) * 0.01
    longest = max(work[i] + work[40 + i] for i in range(40)) * 0.01 + 3 * 0.01
    for p in (1, 2, 3, 8, 64, 1024):
        got = fleet_sim.scale_graph(work, deps, p, costs)
        assert got.busy == pytest.approx(serial)  # every task once, nothing more
        assert got.speedup <= p + 1e-9
        assert got.makespan >= longest - 1e-9


def test_the_fleet_replay_of_one_solver_is_its_serial_time() -> None:
    records = [
        {"kind": "run", "workers": 2, "visits": 1000, "main_visits": 600},
        {"kind": "main", "index": -1, "w0": 0, "w1": 0.1, "c0": 0, "c1": 0.1},
        {"kind": "main", "index": 2, "w0": 0.1, "w1": 5, "c0": 0.1, "c1": 5.0},
        {
            "kind": "task",
            "index": 1,
            "w0": 0.5,
            "w1": 2,
            "c0": 1,
            "c1": 2.5,
            "end": "done",
            "visits": 250,
        },
        {
            "kind": "task",
            "index": 0,
            "w0": 2,
            "w1": 3,
            "c0": 2.5,
            "c1": 3.5,
            "end": "done",
            "visits": 150,
        },
    ]
    tasks = fleet_sim.trace_tasks(records)
    assert tasks.children == 3 and tasks.work == {2: 4.9, 1: 1.5, 0: 1.0}
    one = fleet_sim.replay_fleet(tasks, 1)
    assert one.makespan == pytest.approx(0.1 + 4.9 + 1.5 + 1.0)
    assert one.visits == pytest.approx(1000)  # the trace's work, nothing duplicated
    two = fleet_sim.replay_fleet(tasks, 2, start=0.0)
    assert two.makespan == pytest.approx(5.0)  # the main's kept child; the helper did 1, 0
    for p in (2, 4, 16):
        assert fleet_sim.replay_fleet(tasks, p).visits >= one.visits - 1e-6


@pytest.mark.timeout(120)
def test_a_real_fleet_trace_parses_and_replays(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    trace = tmp_path / "run.jsonl.gz"
    with ServerProcess(tmp_path / "store", "--no-seed", "--no-results") as server:
        done = run_cli(
            "fleet", "solve", "0*9", "--outcome-only", "--server", server.address, "--ray",
            "--jobs", "2", "--json", "--quiet", "--trace", str(trace), timeout=110,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    records = list(read_trace(trace))
    assert records[0]["kind"] == "run" and records[0]["position"] == "0*9"
    assert records[0]["visits"] == report["visits"]
    kinds = {r["kind"] for r in records}
    assert {"run", "main", "costs", "server", "hub"} <= kinds
    tasks = fleet_sim.trace_tasks(records)
    assert tasks.visits == report["visits"] and tasks.cpu > 0
    assert fleet_sim.replay_fleet(tasks, 1).makespan == pytest.approx(
        tasks.root_cpu + sum(tasks.work.values())
    )
    assert fleet_sim.replay_fleet(tasks, 4).makespan <= fleet_sim.replay_fleet(tasks, 1).makespan


def test_a_trace_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    assert write_trace(path, [{"kind": "run"}, {"kind": "task", "index": 0}]) == 2
    with gzip.open(path, "at", encoding="utf-8") as f:  # a record appended later
        f.write('{"kind":"bench"}\n')
    assert [r["kind"] for r in read_trace(path)] == ["run", "task", "bench"]
