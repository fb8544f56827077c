"""Fleet faults: `fleet solve --ray`'s design (ops/jobs/ray_helpers.py) with a Ray node lost
and with the server restarted mid-run; the answer, the facts acknowledged and the server's.

Run on demand (tests/test_fleet_faults.py runs single faults at small roots):
    .venv/bin/python bench/fleet_faults.py                      # both faults at 0*18
    .venv/bin/python bench/fleet_faults.py --roots 0*14 --faults server
    .venv/bin/python bench/fleet_faults.py --fault node --root 0*13 --work DIR   # one run
Each run starts its own `serve --no-seed --no-results` on a fresh store and solves ROOT
(--outcome-only) in this process with Ray helpers, as `fleet solve ROOT --ray` does:
- `node`: a Ray cluster of two nodes on this machine (`ray.cluster_utils.Cluster`: the
  head, where the driver and the hub are, and one worker node, a CPU each, a helper each);
  once the helper on the worker node holds a couple and has acknowledged facts, the node
  is removed without grace (its raylet and workers killed). Helpers of a short run hold
  couples only in moments, which a poll can miss for the whole run; so after
  `PATIENCE_SECONDS` the node is removed once its helper has acknowledged facts, holding
  or not (the report's `holding` says which).
- `server`: a local Ray instance; once the helpers hold couples and facts were
  acknowledged, the server is killed (SIGKILL) and started again on the same port and
  store after `--down` seconds.
Then every fact the solvers told the hub (the server had acknowledged it) and every fact
the driver's search knew must be on the server with the same value, and `check --root`
of the server's store must prove the answer. The bench runs each root once in one process
(`solve ROOT --outcome-only`, a fresh store) first, for the answer and the time, and saves
bench/results/fleet_faults.json. Wall and CPU seconds are of the whole process tree
(sampled from /proc, the server's too).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "sproutsdb"]
RESULTS = ROOT / "bench" / "results" / "fleet_faults.json"
TICK = os.sysconf("SC_CLK_TCK")
HELPERS = 2  # Ray helpers beside the driver's main search
FAULT_AFTER_FACTS = 200  # facts acknowledged before the fault is made
DOWN_SECONDS = 3.0  # how long the server stays down
CLUSTER_STARTS = 3  # tries at starting the two-node cluster
POLL_SECONDS = 0.03  # the watcher's look at the hub: a helper may hold a couple briefly
PATIENCE_SECONDS = 3.0  # how long the watcher waits for a holding helper before any will do


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SPROUTSDB_")}


class TreeCpu:
    """CPU seconds of a process tree, sampled every 0.5 s (Ray's workers and a killed
    server are not reaped by this process: the last figure seen of each pid is summed)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if pid == self.root or self._descends(pid, int(fields[1])):
                self.seen[pid] = sum(int(f) for f in fields[11:13]) / TICK

    def _descends(self, pid: int, parent: int) -> bool:
        for _ in range(32):
            if parent == self.root:
                return True
            if parent <= 1:
                return False
            try:
                stat = Path(f"/proc/{parent}/stat").read_text()
            except OSError:
                return False
            parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        return False

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self._sample()

    def start(self) -> TreeCpu:
        self._sample()
        self._thread.start()
        return self

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self._sample()
        return round(sum(self.seen.values()), 2)


class Server:
    """`sproutsdb serve` on a store, on 127.0.0.1 (port 0 the first time, the same port
    after a restart); killed on exit."""

    def __init__(self, store: Path, *args: str) -> None:
        self.store = store
        self.args = args or ("--no-seed", "--no-results")
        self.proc: subprocess.Popen[str] | None = None
        self.address = "127.0.0.1:0"
        self.starts = 0

    def start(self, timeout: float = 60.0) -> Server:
        log = open(self.store.parent / "server.log", "a")  # noqa: SIM115 (the child's)
        command = [*COMMAND, "serve", "--store", str(self.store), "--listen", self.address]
        self.proc = subprocess.Popen(
            [*command, *self.args],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=_env(),
            cwd=self.store.parent,
        )
        log.close()
        assert self.proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if not selector.select(deadline - time.monotonic()):
                    continue
                line = self.proc.stdout.readline()
                if not line:
                    break
                found = re.search(r"listening on (\S+)", line)
                if found:
                    self.address = found.group(1)
                    self.starts += 1
                    return self
        finally:
            selector.close()
        self.kill()
        raise RuntimeError(f"the server did not start: {self.tail()}")

    def tail(self) -> str:
        try:
            return (self.store.parent / "server.log").read_text()[-2000:]
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL and reap."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def stop(self) -> None:
        """SIGTERM (a clean close of the store), SIGKILL if it does not end."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(30)
        self.kill()


class Watcher:
    """A thread beside the run: gathers what the solvers told the hub (`acknowledged`),
    and makes the fault once a helper holds a couple (or `PATIENCE_SECONDS` have passed) and
    enough facts are acknowledged."""

    def __init__(self, ray: Any, hub: Any, fault: Any, after_facts: int) -> None:
        self.ray, self.hub, self.fault, self.after_facts = ray, hub, fault, after_facts
        self.facts: dict[int, dict[str, Any]] = {}  # solver: facts told to the hub
        self.cursor = 0
        self.made: dict[str, Any] | None = None
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = time.perf_counter()

    def start(self) -> Watcher:
        self._thread.start()
        return self

    def poll(self) -> None:
        self.cursor, batches = self.ray.get(self.hub.acknowledged.remote(self.cursor))
        for solver, batch in batches:
            self.facts.setdefault(solver, {}).update(batch)

    def _run(self) -> None:
        try:
            while not self._stop.wait(POLL_SECONDS):
                self.poll()
                if self.made is None:
                    helpers = self.ray.get(self.hub.helpers.remote())
                    told = sum(len(f) for f in self.facts.values())
                    late = time.perf_counter() - self._started >= PATIENCE_SECONDS
                    held = {me: (pid, h) for me, (pid, h) in helpers.items() if pid and (h or late)}
                    if held and told >= self.after_facts:
                        made = self.fault(held, self.facts)
                        if made is not None:
                            self.made = {
                                "at_s": round(time.perf_counter() - self._started, 2),
                                "acknowledged_before": told,
                                **made,
                            }
        except Exception as error:  # noqa: BLE001 (the hub is gone at the run's end)
            if self.made is None:
                self.error = f"{type(error).__name__}: {error}"

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)


def _ppid(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _server_facts(address: str) -> dict[str, Any]:
    """Every nimber fact on the server (any status)."""
    from sproutsdb.client import Client
    from sproutsdb.solver.ports.proofstore import FactKind

    found: dict[str, Any] = {}
    with Client(address) as client:
        for page in client.export(FactKind.NIMBER):
            found.update(dict(page.facts))
    return found


def _missing(facts: dict[str, Any], stored: dict[str, Any]) -> int:
    """Facts absent from the server or stored with another value."""
    return sum(1 for key, value in facts.items() if stored.get(key) != value)


def fault_run(
    fault: str,
    root: str,
    work: Path,
    *,
    helpers: int = HELPERS,
    after_facts: int = FAULT_AFTER_FACTS,
) -> dict[str, Any]:
    """One run of `root` with the fault `fault` ("node", "server" or "none"), made once
    `after_facts` facts are acknowledged; its report."""
    import logging

    work.mkdir(parents=True, exist_ok=True)
    server = Server(work / "store").start()
    cluster: Any = None
    cpu = TreeCpu(os.getpid()).start()
    load = os.getloadavg()[0]
    started = time.perf_counter()
    try:
        import ray

        options: dict[str, Any] = {
            "log_to_driver": False,
            "logging_level": logging.ERROR,
            "configure_logging": True,
        }
        node_args = {"num_cpus": 1, "include_dashboard": False}
        config = {"worker_niceness": 0}
        if fault == "node":
            from ray.cluster_utils import Cluster

            for attempt in range(1, CLUSTER_STARTS + 1):  # a loaded machine's GCS may time out
                try:
                    cluster = Cluster(
                        initialize_head=True,
                        head_node_args={**node_args, "_system_config": config},
                    )
                    victim_node = cluster.add_node(num_cpus=max(1, helpers - 1))
                    ray.init(address=cluster.address, **options)
                    break
                except Exception:
                    ray.shutdown()
                    if cluster is not None:
                        cluster.shutdown()
                        cluster = None
                    if attempt == CLUSTER_STARTS:
                        raise
        else:
            ray.init(
                address="local",
                num_cpus=helpers,
                include_dashboard=False,
                _system_config=config,
                **options,
            )
        from sproutsdb.ops.jobs.ray_fleet import ServerSpec
        from sproutsdb.ops.jobs.ray_helpers import solve_with_helpers

        def kill_node(
            helpers: dict[int, tuple[int, bool]], facts: dict[int, dict[str, Any]]
        ) -> Any:
            raylet = victim_node.all_processes["raylet"][0].process.pid
            for me, (pid, holding) in helpers.items():
                if _ppid(pid) == raylet and facts.get(me):
                    cluster.remove_node(victim_node, allow_graceful=False)
                    return {
                        "killed": "worker node",
                        "helper": me,
                        "holding": holding,
                        "acknowledged_by_victim": len(facts[me]),
                        "victim_keys": sorted(facts[me]),
                    }
            return None

        def restart_server(
            helpers: dict[int, tuple[int, bool]], facts: dict[int, dict[str, Any]]
        ) -> Any:
            server.kill()
            down = time.perf_counter()
            time.sleep(DOWN_SECONDS)
            server.start()
            return {"killed": "server", "down_s": round(time.perf_counter() - down, 2)}

        faults = {"node": kill_node, "server": restart_server, "none": lambda *_: {}}
        holder: dict[str, Any] = {}

        def on_run(run: Any) -> None:
            holder["run"] = run
            after = after_facts if fault != "none" else 0
            holder["watcher"] = Watcher(ray, run.hub, faults[fault], after).start()

        result = solve_with_helpers(
            ServerSpec(server.address), root, helpers, search="dfpn", outcome_only=True,
            on_run=on_run,
        )  # fmt: skip
        seconds = time.perf_counter() - started
        watcher: Watcher = holder["watcher"]
        watcher.stop()
        driver_known = dict(holder["run"].store.known)
        stored = _server_facts(server.address)
    finally:
        import ray

        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
        server.stop()
    cpu_seconds = cpu.stop()
    told = {k: v for facts in watcher.facts.values() for k, v in facts.items()}
    made = dict(watcher.made or {})
    victim_keys = made.pop("victim_keys", [])
    victim = {k: told[k] for k in victim_keys if k in told}
    checked = subprocess.run(
        [*COMMAND, "check", "--store", str(work / "store"), "--root", root, "--outcome-only"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=3600,
    )
    helpers_report = [
        {k: h.get(k) for k in ("helper", "starts", "couples", "stored", "outages", "waited_s")}
        for h in result.get("helpers", [])
    ]
    return {
        "fault": fault,
        "root": root,
        "after_facts": after_facts,
        "outcome": result.get("outcome"),
        "error": result.get("error"),
        "seconds": round(seconds, 2),
        "cpu_seconds": cpu_seconds,
        "load_before": round(load, 2),
        "made": made or None,
        "watch_error": watcher.error,
        "lost_helpers": result.get("lost_helpers"),
        "helper_failures": result.get("helper_failures"),
        "helpers": helpers_report,
        "outages": result.get("outages"),
        "server_starts": server.starts,
        "visits": result.get("visits"),
        "acknowledged": len(told),
        "acknowledged_missing": _missing(told, stored),
        "acknowledged_by_victim": len(victim),
        "victim_missing": _missing(victim, stored),
        "driver_known": len(driver_known),
        "driver_known_missing": _missing(driver_known, stored),
        "server_facts": len(stored),
        "check_rc": checked.returncode,
        "check": (checked.stdout.strip().splitlines() or [""])[-1],
    }


def one_process(root: str, work: Path) -> dict[str, Any]:
    """`solve ROOT --outcome-only` in one process on a fresh store: answer and times."""
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*COMMAND, "solve", root, "--outcome-only", "--store", str(work / "one"), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    cpu = TreeCpu(proc.pid).start()
    out, err = proc.communicate(timeout=7200)
    cpu_seconds = cpu.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"solve {root} failed: {err[-2000:]}")
    report = json.loads(out)
    return {
        "root": root,
        "outcome": report.get("outcome"),
        "seconds": round(time.perf_counter() - started, 2),
        "cpu_seconds": cpu_seconds,
    }


def _run_child(fault: str, root: str, work: Path, after_facts: int) -> dict[str, Any]:
    """One fault run in a fresh process (Ray must start before any gRPC channel)."""
    done = subprocess.run(
        [
            *(sys.executable, __file__, "--fault", fault, "--root", root),
            *("--work", str(work), "--after-facts", str(after_facts)),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=7200,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{fault} at {root} failed: {done.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=("node", "server", "none"), default=None)
    parser.add_argument("--root", default="0*18")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--roots", nargs="+", default=["0*18"])
    parser.add_argument("--faults", default="node,server")
    parser.add_argument(
        "--after-facts",
        type=int,
        default=FAULT_AFTER_FACTS,
        help=f"make the fault once this many facts are acknowledged (default {FAULT_AFTER_FACTS})",
    )
    parser.add_argument(
        "--reuse-baseline", action="store_true", help="the one-process run saved already"
    )
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    if args.fault is not None:  # one run, its report as JSON on stdout
        work = args.work or Path(tempfile.mkdtemp(prefix="fleet-fault-"))
        print(json.dumps(fault_run(args.fault, args.root, work, after_facts=args.after_facts)))
        return
    saved = json.loads(RESULTS.read_text())["runs"] if RESULTS.exists() else []
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fleet-faults-") as tmp:
        for root in args.roots:
            bases = [r["one_process"] for r in saved if r["root"] == root]
            if args.reuse_baseline and bases:
                base = bases[-1]
            else:
                base = one_process(root, Path(tmp) / f"one-{root}")
            print(json.dumps(base), flush=True)
            for fault in args.faults.split(","):
                work = Path(tmp) / f"{fault}-{root}"
                run = _run_child(fault, root, work, args.after_facts)
                run["one_process"] = base
                run["same_answer"] = run["outcome"] == base["outcome"]
                print(json.dumps(run), flush=True)
                runs.append(run)
    if not args.no_save:  # the runs saved of other roots, faults and points stay
        done = {(r["root"], r["fault"], r["after_facts"]) for r in runs}
        runs = [
            r for r in saved if (r["root"], r["fault"], r.get("after_facts")) not in done
        ] + runs
        commands = "bench/fleet_faults.py [--after-facts N], one invocation a point"
        save_runs(RESULTS, "fleet_faults", commands, runs)


def save_runs(path: Path, bench: str, commands: str, runs: list[dict[str, Any]]) -> None:
    """Write a fleet bench's results file: its name, how its runs were made, the runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"bench": bench, "commands": commands, "cpus": os.cpu_count(), "runs": runs}
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
