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
              with the measured costs (fleet_sim.scale_graph: a hub take per task handed out,
              batches to the server shards, news a sync later, every solver reading every
              fact) for each design of DESIGNS (as built: one server, one hub, 0.5 s batches
              and syncs; then sharded servers and hubs, then shorter intervals), each on the
              best of the recorded task sizes (64, 1 024, 4 096 visits), and the fleet as
              built (root children only: replay_fleet on the largest-P trace); misère: its
              work graph (bench/fleet_traces.py graph N --misere) the same way, but at the
              CPU per visit and facts per visit of its own one-process solve (a misère visit
              costs far more CPU than a normal one and stores fewer facts); without a graph,
              its options-mode fleet trace's tasks (the options) and the root after them
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
SERVER_LOAD = Path(__file__).resolve().parent / "results" / "fleet_server_load.json"
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


def load_graph(n: int, misere: bool = False) -> dict[str, Any] | None:
    """A recorded work graph (misère: of the misère solve), or None."""
    path = graph_path(n, misere)
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
    # the server's time a batch: from bench/fleet_server_load.py's fit when it ran (its CPU
    # a commit, times the commits an Insert makes, and a fact), else the fleet runs' server
    # CPU over the facts they inserted (all of it charged to the facts)
    load = json.loads(SERVER_LOAD.read_text()) if SERVER_LOAD.exists() else None
    fitted = (load or {}).get("fit")
    if fitted and load is not None:
        per_insert = _commits_per_insert(load)
        fixed = fitted["cpu_ms_per_commit"] / 1000 * per_insert
        per_fact = fitted["cpu_ms_per_fact"] / 1000
        source = "bench/results/fleet_server_load.json"
    else:
        fixed = 0.0
        per_fact = server_cpu / facts if facts else 0.0
        source = "the fleet traces' server CPU over their facts"
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
        "fleet_commit_ms": {"p50": round(statistics.median(commit_p50), 3) if commit_p50 else None,
                            "p99": round(max(commit_p99, default=0.0), 3)},
        "server_ms_per_fact": round(1000 * per_fact, 4),
        "server_ms_per_insert": round(1000 * fixed, 4),
        "server_costs_from": source,
        "server_under_writers": _under_writers(load),
        "fleet_server_cpu_ms_per_fact": round(1000 * server_cpu / facts, 4) if facts else None,
        "fleet_commits": commits,
        "server_facts_per_s": round(1 / per_fact) if per_fact else None,
        "learn_us_per_fact": round(1e6 * learn, 3),
        "flush_s": costs.flush,
        "sync_s": costs.sync,
    }  # fmt: skip
    return {"figures": figures, "costs": costs}


def _commits_per_insert(load: dict[str, Any]) -> float:
    """Server commits an Insert makes (its own and the verifier's), at the largest batch."""
    rows = [r for r in load["rows"] if r["writers"] == 1]
    row = max(rows, key=lambda r: r["batch"])
    inserts = -(-int(row["facts"]) // int(row["batch"]))
    return float(row["commits"]) / max(1, inserts)


def _under_writers(load: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The server's throughput and Insert latency under W writers, as measured."""
    if not load:
        return []
    keep = ("writers", "batch", "facts_per_s", "insert_ms", "server_cpu", "commit_ms", "load")
    return [
        {
            **{k: r[k] for k in keep if k in r},
            "facts_per_server_cpu_s": round(r["facts"] / r["server_cpu"])
            if r["server_cpu"]
            else None,
        }
        for r in load["rows"]
    ]


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


def _run_record(records: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """A trace's `run` record."""
    return next((r for r in records or () if r.get("kind") == "run"), None)


# designs the simulator prices, each with the measured costs: (name, server shards = hubs,
# seconds between a solver's batches and between its syncs); "as built" is the fleet as the library builds it
DESIGNS = (("as built", 1, 0.5), ("16 shards", 16, 0.5), ("128 shards", 128, 0.5),
           ("128 shards, 0.05 s", 128, 0.05))  # fmt: skip


def scale_rows(
    graph: dict[str, Any], costs: fleet_sim.Costs, workers: list[int]
) -> list[dict[str, Any]]:
    """Each P: the ideal model's speed-up (tasks of 64 visits, nothing charged) and, per
    design, the simulator's on the best of the recorded task sizes, with that size."""
    graphs = graph["graphs"]
    serial = graph["visits"] * costs.cpu_per_visit
    rows = []
    for p in workers:
        row: dict[str, Any] = {"workers": p, "ideal": graphs["64"]["ideal"]["greedy"].get(str(p))}
        for name, shards, every in DESIGNS:
            c = fleet_sim.Costs(
                **{**vars(costs), "shards": shards, "hubs": shards, "flush": every, "sync": every}
            )
            best: dict[str, Any] | None = None
            for budget, g in graphs.items():
                if int(budget) < 1024 and p < 256:
                    continue  # tiny tasks pay only where there are workers for them
                got = fleet_sim.scale_graph(g["work"], g["deps"], p, c)
                figures = {
                    "budget": int(budget),
                    "speedup": round(serial / got.makespan, 1),
                    "makespan_s": round(got.makespan, 3),
                    "server_busy": round(got.server_busy, 3),
                    "server_wait_s": round(got.server_wait, 4),
                    "hub_take_busy": round(got.hub_busy, 3),
                }
                if shards == 1:  # the hub as built relays every fact to every solver at syncs
                    figures["hub_sync_load"] = round(fleet_sim.hub_load(c, p), 3)
                if best is None or figures["speedup"] > best["speedup"]:
                    best = figures
            row[name] = best
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=list(WORKERS))
    parser.add_argument("--save", type=Path, default=RESULTS)
    args = parser.parse_args()
    learn = learn_cost()
    traces = [t for r in ROOTS for p in CHECK if (t := load_trace(r, p)) is not None]
    measured = measured_costs(traces, learn)
    costs: fleet_sim.Costs = measured["costs"]
    print("measured costs:", json.dumps(measured["figures"]))
    saturation: dict[str, Any] = {
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
        largest = max((p for p in CHECK if load_trace(root, p) is not None), default=2)
        trace = load_trace(root, largest)
        entry: dict[str, Any] = {"root": root, "play": "normal"}
        if graph is None:
            entry["missing"] = "no work graph recorded (bench/fleet_traces.py graph N)"
        else:
            ideal = {b: g["ideal"] for b, g in graph["graphs"].items()}
            entry.update(visits=graph["visits"], one_process_cpu=graph["cpu"], ideal=ideal,
                         rows=scale_rows(graph, costs, args.workers))  # fmt: skip
        if trace is None:
            entry["fleet_as_built"] = "no fleet trace recorded"
        else:
            tasks = fleet_sim.trace_tasks(trace)
            visits = graph["visits"] if graph is not None else tasks.visits_done
            serial = visits * costs.cpu_per_visit
            entry["fleet_as_built_from"] = f"the P = {largest} trace"
            entry["fleet_as_built"] = {
                str(p): round(serial / fleet_sim.replay_fleet(tasks, p).makespan, 2)
                for p in args.workers
            }
            if graph is not None:  # what proving in parallel cost in visits, measured
                entry["visits_inflation"] = {
                    str(p): round(run["visits"] / graph["visits"], 3)
                    for p in CHECK
                    if (run := _run_record(load_trace(root, p))) is not None
                }
        table.append(entry)
    for root in MISERE:
        table.append(misere_entry(root, costs, args.workers))
    scan = saturation_scan(costs)
    if scan:
        saturation["scan"] = scan
        print(f"\none server, one hub, P workers on {scan[0]['root']}'s tasks of "
              f"{scan[0]['budget']} visits:")  # fmt: skip
        for row in scan:
            print(f"  P={row['workers']:5}  speed-up {row['speedup']:7.1f}  server busy "
                  f"{row['server_busy']:5.2f}  batch queued {row['server_wait_s']:8.3f} s  "
                  f"hub busy (takes) {row['hub_take_busy']:5.2f}")  # fmt: skip
    show(table)
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


def misere_entry(root: str, costs: fleet_sim.Costs, workers: list[int]) -> dict[str, Any]:
    """A misère root's table entry: from its work graph if recorded (`misere_graph_rows`),
    else from its options-mode fleet trace (`misere_rows`), else listed as missing."""
    entry: dict[str, Any] = {"root": root, "play": "misere"}
    graph = load_graph(int(root.split("*")[1]), misere=True)
    if graph is not None:
        entry.update(misere_graph_rows(graph, costs, workers))
        return entry
    trace = load_trace(root, 2, misere=True)
    if trace is None:
        entry["missing"] = (
            "no misère work graph (bench/fleet_traces.py graph N --misere) nor fleet trace"
        )
    else:
        entry.update(misere_rows(trace, costs, workers))
    return entry


def misere_graph_rows(
    graph: dict[str, Any], costs: fleet_sim.Costs, workers: list[int]
) -> dict[str, Any]:
    """A misère work graph scaled as a normal one (`scale_rows`), at its own solve's CPU per
    visit and, if it says, facts per visit (the losing nodes it proved over its visits)."""
    visits = max(1, int(graph["visits"]))
    own: dict[str, Any] = {"cpu_per_visit": float(graph["cpu"]) / visits}
    if "facts" in graph:
        own["facts_per_visit"] = int(graph["facts"]) / visits
    c = fleet_sim.Costs(**{**vars(costs), **own})
    return {
        "visits": graph["visits"],
        "one_process_cpu": graph["cpu"],
        "cpu_per_visit_ms": round(1000 * c.cpu_per_visit, 4),
        "facts_per_visit": round(c.facts_per_visit, 5),
        "ideal": {b: g["ideal"] for b, g in graph["graphs"].items()},
        "rows": scale_rows(graph, c, workers),
        "note": (
            f"misère work graph at its own solve's {1000 * c.cpu_per_visit:.3f} ms CPU a visit "
            f"(normal: {1000 * costs.cpu_per_visit:.3f} ms) and "
            f"{c.facts_per_visit:.4f} facts a visit (normal: {costs.facts_per_visit:.4f})"
        ),
    }


def misere_rows(
    trace: list[dict[str, Any]], costs: fleet_sim.Costs, workers: list[int]
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
        for name, shards, every in DESIGNS:
            design = fleet_sim.Costs(
                **{**vars(c), "shards": shards, "hubs": shards, "flush": every, "sync": every}
            )
            got = fleet_sim.scale_graph(work, deps, p, design)
            row[name] = {
                "budget": None,
                "speedup": round(got.speedup, 1),
                "server_busy": round(got.server_busy, 3),
            }
        rows.append(row)
    return {"tasks": len(work), "visits": sum(work), "cpu": round(cpu, 1), "rows": rows,
            "note": "tasks are the options, each a whole misère solve, then the root: no misère "
            "work graph recorded (bench/fleet_traces.py graph N --misere), so the ideal column "
            "is these tasks with nothing charged"}  # fmt: skip


def saturation_scan(costs: fleet_sim.Costs, budget: str = "1024") -> list[dict[str, Any]]:
    """One server and one hub under ever more workers (the first root with a graph, its
    tasks of `budget` visits)."""
    for root in ROOTS:
        graph = load_graph(int(root.split("*")[1]))
        if graph is None:
            continue
        g = graph["graphs"][budget]
        rows = []
        for p in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
            got = fleet_sim.scale_graph(g["work"], g["deps"], p, costs)
            rows.append({
                "root": root,
                "budget": int(budget),
                "workers": p,
                "speedup": round(got.speedup, 1),
                "server_busy": round(got.server_busy, 3),
                "server_wait_s": round(got.server_wait, 4),
                "hub_take_busy": round(got.hub_busy, 3),
            })  # fmt: skip
        return rows
    return []


def show(table: list[dict[str, Any]]) -> None:
    """Print the table: per root and P, the ideal model beside each design simulated (its
    best task size in visits after the speed-up), and the fleet as built replayed."""
    names = [name for name, _, _ in DESIGNS]
    print(
        "\nspeed-up over one process on P workers: ideal model (tasks of 64 visits, free) | "
        "simulated with the measured costs: " + " | ".join(names) + " | root children only"
    )
    print(
        "  (B): the task size in visits that did best; *: the hub's syncs alone would keep it "
        "busy more than all the time (it relays every fact to every solver), so the figure "
        "is an upper bound; the sharded designs read the news from the shards"
    )
    for entry in table:
        if "rows" not in entry:
            print(f"  {entry['play']:6} {entry['root']:5}  not simulated: {entry['missing']}")
            continue
        built = entry.get("fleet_as_built")
        for row in entry["rows"]:
            cells = []
            for name in names:
                got = row[name]
                size = f" ({got['budget']})" if got.get("budget") else ""
                over = "*" if got.get("hub_sync_load", 0) >= 1 else " "
                cells.append(f"{got['speedup']:7.1f}{over}{size:7}")
            fleet = built.get(str(row["workers"])) if isinstance(built, dict) else None
            ideal = row["ideal"] if row["ideal"] is not None else "-"
            print(f"  {entry['play']:6} {entry['root']:5} P={row['workers']:5}  ideal {ideal:>7} | "
                  + " | ".join(cells) + f" | {fleet if fleet is not None else '-'}")  # fmt: skip
        if "note" in entry:
            print(f"  {entry['play']:6} {entry['root']:5}  ({entry['note']})")


if __name__ == "__main__":
    main()
