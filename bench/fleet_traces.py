"""Records what bench/fleet_simulator.py replays: fleet traces and work graphs.

Run on demand (not part of the test suite):
    .venv/bin/python bench/fleet_traces.py fleet 0*20 --jobs 2 8 16   # traced fleet runs
    .venv/bin/python bench/fleet_traces.py fleet 0*17 --misere --jobs 2  # options mode: costly
    .venv/bin/python bench/fleet_traces.py graph 20 24                # work graphs, ideal model
    .venv/bin/python bench/fleet_traces.py graph 17 --misere          # misère 0*17's graph
`fleet`: `fleet solve ROOT --ray --jobs N --outcome-only --trace FILE` (misère: `--misere
--options-of ROOT`) against a fresh local `serve --no-results` (bench/fleet.py's Server),
in fresh processes; the trace gets one more record, `bench`: the run's wall and CPU seconds
(every process of its tree), the server's own CPU, the load. `graph`: the ideal model's
record of one process's solve (bench/speedup_model.record; with --misere, record_misere:
the misère solve on the shipped S6 RCT table, as `solve 0*n --misere` runs it), cut into
tasks of about B visits for each B of BUDGETS (workmodel.by_budget; 64 is the model's
"after"), saved as the task graphs the simulator scales out, with the ideal model's
speed-ups of each beside them (misère: misere-0xN-graph.json.gz, with "play": "misere").
Files: bench/results/fleet_traces/, gzip, small enough to keep in the repository.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sproutsdb.solver.search.workmodel import WorkRecord

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fleet import COMMAND, Server, TreeCpu, _env

TRACES = Path(__file__).resolve().parent / "results" / "fleet_traces"
# visits a task runs before it hands out its options: the ideal model's "after" (64), and
# coarser ones, fewer tasks to hand out and share
BUDGETS = (64, 1024, 4096)
IDEAL_WORKERS = (2, 8, 16, 32, 256, 1024)


def trace_path(root: str, jobs: int, misere: bool) -> Path:
    """Where a fleet run's trace is kept."""
    play = "misere-" if misere else ""
    return TRACES / f"{play}{root.replace('*', 'x')}-p{jobs}.jsonl.gz"


def graph_path(n: int, misere: bool = False) -> Path:
    """Where 0*n's work graph is kept (misère: its misère solve's)."""
    play = "misere-" if misere else ""
    return TRACES / f"{play}0x{n}-graph.json.gz"


def _cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def record_fleet(root: str, jobs: int, *, misere: bool) -> dict[str, Any]:
    """One traced fleet run on a fresh server; the `bench` record it appended."""
    out = trace_path(root, jobs, misere)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fleet-trace-") as tmp:
        server = Server(Path(tmp) / "store")
        try:
            flags = ["--misere", "--options-of", root] if misere else [root, "--outcome-only"]
            command = [*COMMAND, "fleet", "solve", *flags, "--server", server.address,
                       "--ray", "--jobs", str(jobs), "--json", "--quiet",
                       "--trace", str(out)]  # fmt: skip
            load = os.getloadavg()
            server_cpu = _cpu_of(server.proc.pid)
            started = time.perf_counter()
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, env=_env(), start_new_session=True)  # fmt: skip
            tree = TreeCpu(proc.pid).start()
            stdout, stderr = proc.communicate()
            wall = time.perf_counter() - started
            cpu = tree.stop()
            server_cpu = _cpu_of(server.proc.pid) - server_cpu
        finally:
            server.stop()
        shutil.rmtree(Path(tmp) / "store", ignore_errors=True)
    if proc.returncode != 0:
        raise RuntimeError(f"fleet {root} --jobs {jobs} exited {proc.returncode}: {stderr[-2000:]}")
    report = json.loads([x for x in stdout.splitlines() if x.startswith("{")][-1])
    bench = {
        "kind": "bench",
        "wall": round(wall, 2),
        "cpu": round(cpu, 2),
        "server_cpu": round(server_cpu, 2),
        "load_before": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "stored": report.get("stored"),
    }
    with gzip.open(out, "at", encoding="utf-8") as f:  # a second gzip member
        f.write(json.dumps(bench, separators=(",", ":")) + "\n")
    return bench


def record_graph(
    n: int, budgets: tuple[int, ...] = BUDGETS, *, misere: bool = False
) -> dict[str, Any]:
    """0*n's work graph at each budget and the ideal model's figures of it (saved)."""
    import speedup_model

    record = speedup_model.record_misere if misere else speedup_model.record
    saved = work_graph(n, *record(n), budgets, misere=misere)
    path = graph_path(n, misere)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(saved, f, separators=(",", ":"))
    return saved


def work_graph(
    n: int,
    work: WorkRecord,
    outcome: str,
    visits: int,
    cpu: float,
    budgets: tuple[int, ...] = BUDGETS,
    *,
    misere: bool = False,
) -> dict[str, Any]:
    """A recorded solve (a `workmodel.WorkRecord` ``work``) as the file `graph` saves: its
    task graph at each budget with the ideal model's figures. Misère adds "play" and
    "facts", the losing nodes it proved (the only ones a misère solve stores)."""
    from sproutsdb.solver.search import workmodel

    graphs: dict[str, Any] = {}
    for budget in budgets:
        division = workmodel.by_budget(budget)
        graph = workmodel.TaskGraph.of(work, division)
        ideal = workmodel.speedups(work, division, IDEAL_WORKERS)
        graphs[str(budget)] = {
            "work": graph.work,
            "deps": graph.deps,
            "ideal": {
                "tasks": ideal.tasks,
                "t1": ideal.total,
                "tinf": ideal.critical,
                "greedy": {str(p): round(s, 1) for p, s in ideal.greedy.items()},
                "brent": {str(p): round(s, 1) for p, s in ideal.bound.items()},
            },
        }
    saved: dict[str, Any] = {
        "n": n,
        "outcome": outcome,
        "visits": visits,
        "cpu": round(cpu, 2),
        "graphs": graphs,
        "load": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if misere:
        saved.update(play="misere", facts=sum(1 for losing in work.losing if losing))
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    fleet = sub.add_parser("fleet", help="traced fleet runs")
    fleet.add_argument("root")
    fleet.add_argument("--jobs", type=int, nargs="+", default=[2])
    fleet.add_argument("--misere", action="store_true")
    graph = sub.add_parser("graph", help="work graphs (one process's solve, recorded)")
    graph.add_argument("n", type=int, nargs="+")
    graph.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    graph.add_argument("--misere", action="store_true", help="the misère solve of 0*n")
    args = parser.parse_args()
    if args.what == "fleet":
        for jobs in args.jobs:
            bench = record_fleet(args.root, jobs, misere=args.misere)
            print(f"{args.root} --jobs {jobs}: {json.dumps(bench)}", flush=True)
    else:
        for n in args.n:
            saved = record_graph(n, tuple(args.budgets), misere=args.misere)
            play = "misère " if args.misere else ""
            print(f"{play}0*{n}: {saved['visits']:,} visits, {saved['cpu']} CPU s", flush=True)
            for budget, graph in saved["graphs"].items():
                print(f"  budget {budget}: {len(graph['work']):,} tasks, T∞ "
                      f"{graph['ideal']['tinf']:,}, ideal {graph['ideal']['greedy']}",
                      flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
