"""Fleet simulator: real fleet traces and work graphs replayed on 2 … 1 024 virtual workers.

Run on demand (not part of the test suite), after bench/fleet_traces.py recorded its inputs:
    .venv/bin/python bench/fleet_simulator.py
    .venv/bin/python bench/fleet_simulator.py --shards 1 16 64 --workers 2 32 256 1024
What it prints and saves (bench/results/fleet_simulator.json):
  costs       measured from the traces (bench/results/fleet_traces/): CPU per visit, the hub's
              `take` round trip (dispatch) and its CPU per call, facts sent per visit, the
              server's commit latency (p50/p99) and CPU per fact (its own CPU over the facts it
              inserted, less its commits' fixed cost), what reading one shared fact costs a
              solver (pickled and merged here, measured at start)
  validation  each root's P = 2 trace replayed as the fleet runs (bench/fleet_sim.replay_fleet)
              at P = 2, 8, 16, beside the real traced runs at those P: the makespan in CPU
              terms (the main search's CPU, start to answer: it never waits) and total visits
  table       per root and P, the ideal model's speed-up (bench/speedup_model's record cut
              into tasks of ~64 visits, greedy schedule, nothing charged) beside the simulator's
              on the same task graph with the measured costs (fleet_sim.scale_graph: hub take
              per task handed out, batches every 0.5 s to 1 or more server shards, news a sync
              later, every solver reading every fact), and the fleet as built (root children
              only: replay_fleet); misère: the trace's tasks (the options) and the root after
  saturation  workers at which one server (and one hub, relaying every fact to every solver)
              is busy all the time, from the costs
A root whose trace or graph was not recorded is listed as such, with no figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fleet_sim
from fleet_traces import graph_path, trace_path

from sproutsdb.ops.jobs.fleet_trace import read_trace

RESULTS = Path(__file__).resolve().parent / "results" / "fleet_simulator.json"
ROOTS = ("0*20", "0*24", "0*27")
MISERE = ("0*17",)
WORKERS = (32, 256, 1024)
CHECK = (2, 8, 16)
CORES = 2  # this machine's: real runs at P > 2 get CORES / P of a core each


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def learn_cost(facts: int = 20_000) -> float:
    """Seconds a solver spends on one fact another shared: unpickled from a reply and
    merged into its store's dict (the hub pickles it once more for every solver)."""
    batch = {f"0*{i % 40}.{i:x}AB|0*{i % 9}.AB": i % 3 for i in range(facts)}
    known: dict[str, int] = {}
    started = time.process_time()
    for _ in range(5):
        known.update(pickle.loads(pickle.dumps(batch)))
    return (time.process_time() - started) / (5 * facts)


def load_trace(root: str, jobs: int, misere: bool = False) -> list[dict[str, Any]] | None:
    """A recorded trace's records, or None."""
    path = trace_path(root, jobs, misere)
    return list(read_trace(path)) if path.exists() else None


def load_graph(n: int) -> dict[str, Any] | None:
    """A recorded work graph, or None."""
    path = graph_path(n)
    if not path.exists():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as f:
        graph: dict[str, Any] = json.load(f)
    return graph


def measured_costs(traces: list[list[dict[str, Any]]], learn: float) -> dict[str, Any]:
    """The costs the traces measured, pooled (see the module doc), as figures and `Costs`."""
    from sproutsdb.ops.jobs.ray_helpers import FLUSH_SECONDS, SHARE_SECONDS

    dispatch: list[float] = []
    sharing: list[float] = []
    sync: list[float] = []
    visits = facts = commits = server_visits = 0
    cpu = server_cpu = 0.0
    commit_p50: list[float] = []
    commit_p99: list[float] = []
    hubs: list[tuple[int, float]] = []
    for records in traces:
        tasks = fleet_sim.trace_tasks(records)
        cpu += tasks.cpu
        visits += tasks.visits
        dispatch += tasks.costs["dispatch"]
        sharing += tasks.costs["sharing"]
        sync += tasks.costs["sync"]
        server = tasks.costs.get("server", {})
        bench = tasks.costs.get("bench", {})
        if server.get("commits") and "server_cpu" in bench:
            server_visits += tasks.visits
            facts += int(server["facts_inserted"])
            commits += int(server["commits"])
            server_cpu += float(bench["server_cpu"])
            commit_p50.append(float(server["commit_ms"]["p50"]))
            commit_p99.append(float(server["commit_ms"]["p99"]))
        hub = tasks.costs.get("hub", {})
        if hub.get("calls"):
            hubs.append((sum(hub["calls"].values()), float(hub["cpu"])))
    fixed = statistics.median(commit_p50) / 1000 if commit_p50 else 0.0
    per_fact = max(0.0, server_cpu - commits * fixed) / facts if facts else 0.0
    hubs.sort()
    if len(hubs) >= 2 and hubs[-1][0] > hubs[0][0]:  # the actor's start cancels out
        hub_call = (hubs[-1][1] - hubs[0][1]) / (hubs[-1][0] - hubs[0][0])
    else:
        hub_call = hubs[0][1] / hubs[0][0] if hubs else 0.0
    costs = fleet_sim.Costs(
        cpu_per_visit=cpu / visits if visits else 0.0,
        dispatch=statistics.median(dispatch) / 1000 if dispatch else 0.0,
        hub_per_call=max(hub_call, 0.0),
        flush=FLUSH_SECONDS,
        sync=SHARE_SECONDS,
        facts_per_visit=facts / server_visits if server_visits else 0.0,
        commit_fixed=fixed,
        commit_per_fact=per_fact,
        learn_per_fact=learn,
    )
    figures = {
        "traces": len(traces),
        "cpu_per_visit_ms": round(1000 * costs.cpu_per_visit, 4),
        "dispatch_ms": {"p50": round(_p(dispatch, 0.5), 2), "p99": round(_p(dispatch, 0.99), 2),
                        "count": len(dispatch)},
        "sharing_ms": {"p50": round(_p(sharing, 0.5), 2), "p99": round(_p(sharing, 0.99), 2),
                       "count": len(sharing)},
        "sync_ms": {"p50": round(_p(sync, 0.5), 2), "p99": round(_p(sync, 0.99), 2),
                    "count": len(sync)},
        "hub_ms_per_call": round(1000 * costs.hub_per_call, 4),
        "facts_per_visit": round(costs.facts_per_visit, 5),
        "server_commit_ms": {"p50": round(1000 * fixed, 3),
                             "p99": round(max(commit_p99, default=0.0), 3)},
        "server_ms_per_fact": round(1000 * per_fact, 4),
        "server_facts_per_s": round(1 / per_fact) if per_fact else None,
        "learn_us_per_fact": round(1e6 * learn, 3),
        "flush_s": costs.flush,
        "sync_s": costs.sync,
    }  # fmt: skip
    return {"figures": figures, "costs": costs}


def validation(root: str) -> dict[str, Any] | None:
    """Each traced run replayed at P = 2, 8, 16, beside the real traced runs there."""
    traces = {p: t for p in CHECK if (t := load_trace(root, p)) is not None}
    if not traces:
        return None
    real = {p: fleet_sim.trace_tasks(t) for p, t in traces.items()}
    rows = []
    for base, tasks in real.items():
        sharing = _p(tasks.costs["sharing"], 0.5) / 1000
        for p in CHECK:
            rate = min(1.0, CORES / p)
            delay = rate * (0.25 + sharing + 0.25)  # half a flush, the Insert, half a sync
            got = fleet_sim.replay_fleet(tasks, p, delay=delay)
            row: dict[str, Any] = {
                "from": base,
                "workers": p,
                "sim_makespan_cpu": round(got.makespan, 2),
                "sim_visits": round(got.visits),
                "sim_cpu": round(got.cpu, 2),
            }
            if p in real:
                row.update(
                    real_makespan_cpu=round(real[p].main_cpu, 2),
                    real_visits=real[p].visits,
                    real_cpu=round(real[p].cpu, 2),
                    real_wall=real[p].costs.get("bench", {}).get("wall"),
                    real_load=real[p].costs.get("bench", {}).get("load_before"),
                )
            rows.append(row)
    return {"root": root, "rows": rows}


def scale_rows(
    graph: dict[str, Any], costs: fleet_sim.Costs, workers: list[int], shards: list[int]
) -> list[dict[str, Any]]:
    """The graph on each P: the ideal model's, and the simulator's with each shard count."""
    rows = []
    for p in workers:
        row: dict[str, Any] = {"workers": p, "ideal": graph["ideal"]["greedy"].get(str(p))}
        for k in shards:
            c = fleet_sim.Costs(**{**vars(costs), "shards": k})
            got = fleet_sim.scale_graph(graph["work"], graph["deps"], p, c)
            row[f"sim_{k}"] = {
                "speedup": round(got.speedup, 1),
                "makespan_s": round(got.makespan, 3),
                "server_busy": round(got.server_busy, 3),
                "server_wait_s": round(got.server_wait, 4),
                "hub_take_busy": round(got.hub_busy, 3),
                "hub_sync_load": round(fleet_sim.hub_load(c, p), 3),
                "local": got.taken_local,
            }
        free = fleet_sim.scale_graph(graph["work"], graph["deps"], p, costs.free())
        row["sim_free"] = round(free.speedup, 1)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=list(WORKERS))
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 16, 128])
    parser.add_argument("--save", type=Path, default=RESULTS)
    args = parser.parse_args()
    learn = learn_cost()
    traces = [t for r in ROOTS for p in CHECK if (t := load_trace(r, p)) is not None]
    measured = measured_costs(traces, learn)
    costs: fleet_sim.Costs = measured["costs"]
    print("measured costs:", json.dumps(measured["figures"]))
    saturation = {
        "server_workers": round(fleet_sim.server_saturation(costs), 1),
        "hub_workers": next((p for p in range(1, 4097) if fleet_sim.hub_load(costs, p) >= 1), None),
    }
    print("saturation (workers at which it is busy all the time):", json.dumps(saturation))
    checks = [v for r in ROOTS if (v := validation(r)) is not None]
    for check in checks:
        print(f"\nvalidation {check['root']}: the trace at P = from replayed at P (CPU terms)")
        print("  from    P  sim makespan  real makespan  sim visits  real visits")
        for row in check["rows"]:
            print(f"  {row['from']:4} {row['workers']:4}  {row['sim_makespan_cpu']:12.1f}  "
                  f"{row.get('real_makespan_cpu', float('nan')):13.1f}  {row['sim_visits']:10,}  "
                  f"{row.get('real_visits', 0):11,}")  # fmt: skip
    table: list[dict[str, Any]] = []
    for root in ROOTS:
        n = int(root.split("*")[1])
        graph = load_graph(n)
        trace = load_trace(root, 2)
        entry: dict[str, Any] = {"root": root, "play": "normal"}
        if graph is None:
            entry["missing"] = "no work graph recorded (bench/fleet_traces.py graph N)"
        else:
            entry.update(visits=graph["visits"], tasks=len(graph["work"]),
                         t1=graph["ideal"]["t1"], tinf=graph["ideal"]["tinf"],
                         rows=scale_rows(graph, costs, args.workers, args.shards))  # fmt: skip
        if trace is None:
            entry["fleet_as_built"] = "no fleet trace recorded"
        else:
            tasks = fleet_sim.trace_tasks(trace)
            entry["fleet_as_built"] = {
                str(p): round(tasks.cpu / fleet_sim.replay_fleet(tasks, p).makespan, 2)
                for p in args.workers
            }
        table.append(entry)
    for root in MISERE:
        trace = load_trace(root, 2, misere=True)
        entry = {"root": root, "play": "misere"}
        if trace is None:
            entry["missing"] = "no misère fleet trace recorded"
        else:
            entry.update(misere_rows(trace, costs, args.workers, args.shards))
        table.append(entry)
    show(table, args.shards)
    args.save.parent.mkdir(parents=True, exist_ok=True)
    saved = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "load": os.getloadavg(),
        "costs": measured["figures"],
        "saturation": saturation,
        "validation": checks,
        "table": table,
    }
    args.save.write_text(json.dumps(saved, indent=1) + "\n")
    print(f"saved {args.save}")


def misere_rows(
    trace: list[dict[str, Any]], costs: fleet_sim.Costs, workers: list[int], shards: list[int]
) -> dict[str, Any]:
    """A misère fleet trace (options as tasks, then the root) as a graph on each P."""
    tasks = [r for r in trace if r.get("kind") == "task"]
    main = [r for r in trace if r.get("kind") == "main"]
    visits = [int(r.get("visits", 0)) for r in tasks]
    root_visits = sum(int(r.get("visits", 0)) for r in main)
    work = [*visits, root_visits]
    deps = [*([] for _ in visits), list(range(len(visits)))]
    cpu = sum(float(r["c1"]) - float(r["c0"]) for r in [*tasks, *main])
    per_visit = cpu / max(1, sum(work))
    c = fleet_sim.Costs(**{**vars(costs), "cpu_per_visit": per_visit})
    rows = []
    for p in workers:
        free = fleet_sim.scale_graph(work, deps, p, c.free())
        row: dict[str, Any] = {"workers": p, "ideal": round(free.speedup, 1)}
        for k in shards:
            got = fleet_sim.scale_graph(work, deps, p, fleet_sim.Costs(**{**vars(c), "shards": k}))
            row[f"sim_{k}"] = {
                "speedup": round(got.speedup, 1),
                "server_busy": round(got.server_busy, 3),
            }
        rows.append(row)
    return {"tasks": len(work), "visits": sum(work), "cpu": round(cpu, 1), "rows": rows,
            "note": "tasks are whole options (no work graph of misère df-pn)"}  # fmt: skip


def show(table: list[dict[str, Any]], shards: list[int]) -> None:
    """Print the table: per root and P, ideal beside simulated."""
    print("\nspeed-up on P workers: ideal model | simulator with measured costs, "
          f"{' / '.join(str(k) for k in shards)} server shard(s) | fleet as built")  # fmt: skip
    for entry in table:
        if "missing" in entry and "rows" not in entry:
            print(f"  {entry['play']:6} {entry['root']:5}  not simulated: {entry['missing']}")
            continue
        for row in entry["rows"]:
            sims = " / ".join(f"{row[f'sim_{k}']['speedup']:7.1f}" for k in shards)
            built = entry.get("fleet_as_built")
            fleet = built.get(str(row["workers"])) if isinstance(built, dict) else None
            print(f"  {entry['play']:6} {entry['root']:5} P={row['workers']:5}  ideal "
                  f"{row['ideal'] if row['ideal'] is not None else '-':>7} | sim {sims} | "
                  f"built {fleet if fleet is not None else '-'}")  # fmt: skip


if __name__ == "__main__":
    main()
