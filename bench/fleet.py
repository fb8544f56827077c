"""Fleet benchmark: does `fleet solve --ray` pay against one process and `solve --jobs 2`?

Run on demand (not part of the test suite):
    .venv/bin/python bench/fleet.py                          # 0*14 and 0*16, modes one,jobs2,fleet
    .venv/bin/python bench/fleet.py --roots 0*18 0*20 --modes one,fleet
    .venv/bin/python bench/fleet.py --roots 0*14 --modes one,tasks,fleet --rounds 2
    .venv/bin/python bench/fleet.py --roots 0*18 --modes one,fleet8,fleet16   # visits
    .venv/bin/python bench/fleet.py --roots 0*18 0*20 --modes one,fleet --ray-head
Each mode runs `sproutsdb` in a fresh process on a fresh store (a fleet: against a fresh
local `serve --no-results` on 127.0.0.1, port 0), the modes of one root alternated in one run
(same load), their answers asserted equal. Modes: `one` (solve --outcome-only), `jobs2`
(solve --jobs 2), `fleetN` (fleet solve --ray --jobs N, N solvers: the driver's main search and
N - 1 Ray helpers; `fleet` is fleet2; `fleetN-split`: --split 4, as solve --jobs), `tasks` (fleet solve --ray --jobs 2 --tasks: a Ray task
per position, the earlier fleet). Wall and CPU seconds (every process of the run's tree,
sampled from /proc, the server's too), visits (the searches' df-pn visits: the main search's
for `one`/`jobs2`, every solver's for a fleet), and the ratios to `one`. --profile DIR also
records each fleet run with `py-spy record --subprocesses` (folded stacks a mode, summed
by bench/fleet.py --folded FILE: samples by process and by where the time goes).
--ray-head runs the fleet modes on one Ray head started for the whole run, as a cluster is
used (`ray start` once, then `fleet solve --ray auto` each time), rather than a local
instance each command starts and stops, whose start and stop are in every fleet's wall
time; the head's daemons and workers count in the run's CPU. Saves bench/results/fleet.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
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
RESULTS = ROOT / "bench" / "results" / "fleet.json"
TICK = os.sysconf("SC_CLK_TCK")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SPROUTSDB_")}


class TreeCpu:
    """CPU seconds of a process and all its descendants (Ray's daemons and workers are
    not waited for by their parents, so RUSAGE_CHILDREN misses them): /proc sampled every
    0.2 s, the last figure seen of each pid summed."""

    def __init__(self, *roots: int) -> None:
        self.roots = set(roots)
        self.seen: dict[int, float] = {}
        self.names: dict[int, str] = {}
        self.before: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def add(self, pid: int) -> None:
        self.roots.add(pid)

    def start(self) -> TreeCpu:
        self._sample()
        # what the roots had spent before the run (a server's RCT seeding, a Ray head's
        # start) is not the run's
        self.before = dict(self.seen)
        self._thread.start()
        return self

    def _sample(self) -> None:
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        names: dict[int, str] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            pid = int(entry)
            names[pid] = stat[stat.index("(") + 1 : stat.rindex(")")]
            parents[pid] = int(fields[1])
            cpu[pid] = (int(fields[11]) + int(fields[12])) / TICK
        for pid in cpu:
            walk, hops = pid, 0
            while walk and walk not in self.roots and hops < 64:
                walk, hops = parents.get(walk, 0), hops + 1
            if walk in self.roots:
                self.seen[pid] = max(self.seen.get(pid, 0.0), cpu[pid])
                self.names[pid] = names[pid]
                if pid not in self.roots:
                    self.roots.add(pid)  # a daemon reparented later is still ours

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.2)

    def by_name(self, server: int | None) -> dict[str, float]:
        """CPU seconds by process name (the server's as "server"), each less what the
        process had spent before the run."""
        out: dict[str, float] = {}
        for pid, seconds in self.seen.items():
            name = "server" if pid == server else self.names.get(pid, "?")
            seconds -= self.before.get(pid, 0.0)
            out[name] = round(out.get(name, 0.0) + seconds, 2)
        return dict(sorted(out.items(), key=lambda item: -item[1]))

    def stop(self) -> float:
        self._sample()
        self._stop.set()
        self._thread.join()
        return sum(self.seen.values()) - sum(self.before.values())


class Server:
    """`sproutsdb serve --no-results` on a fresh store, 127.0.0.1, a free port."""

    def __init__(self, store: Path, *extra: str) -> None:
        self.log = open(store.parent / "server.log", "a")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [*COMMAND, "serve", "--store", str(store), "--listen", "127.0.0.1:0",
             "--no-results", *extra],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=_env(),
            start_new_session=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            found = re.search(r"listening on (\S+)", line)
            if found:
                self.address = found.group(1)
                return
        raise RuntimeError(f"server did not start: see {self.log.name}")

    def stats(self) -> dict[str, Any]:
        from sproutsdb.client import Client

        with Client(self.address) as client:
            return dict(client.stats())

    def stop(self) -> None:
        _terminate(self.proc, 30)
        self.log.close()


def _terminate(proc: subprocess.Popen[Any], grace: float) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class RayHead:
    """A Ray head started once for the whole bench (`ray start --head --block`), as a
    cluster keeps one up (docs/cluster.md): the fleet modes join it (`--ray auto`) instead
    of each command starting and stopping a local instance of its own. Its workers run at
    the commands' priority, as a local instance's do (ray_session.LOCAL_SYSTEM_CONFIG).
    `--ray auto` joins the machine's running cluster, so no other may be up meanwhile."""

    def __init__(self, cpus: int) -> None:
        from sproutsdb.ops.ray_session import LOCAL_SYSTEM_CONFIG

        self.ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
        self.log = tempfile.NamedTemporaryFile(prefix="fleet-bench-ray-", suffix=".log")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [self.ray, "start", "--head", "--block", f"--num-cpus={cpus}",
             "--include-dashboard=false", "--disable-usage-stats",
             f"--system-config={json.dumps(LOCAL_SYSTEM_CONFIG)}"],
            stdout=self.log, stderr=subprocess.STDOUT, env=_env(), start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while b"Ray runtime started" not in Path(self.log.name).read_bytes():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the Ray head did not start: {self.log.name}")
            time.sleep(0.5)

    def stop(self) -> None:
        """`ray start --block` stops the daemons it started when it is terminated (never
        `ray stop`, which would stop every Ray instance of the machine)."""
        _terminate(self.proc, 60)
        self.log.close()


def _fleet_workers(mode: str) -> int:
    if mode == "tasks":
        return 2
    digits = mode.removeprefix("fleet").split("-")[0]
    return int(digits) if digits else 2


def run_mode(
    root: str, mode: str, work: Path, profile: Path | None, head: RayHead | None = None
) -> dict[str, Any]:
    """One mode on one root, in fresh processes on a fresh store (a fleet on `head` when
    one is up, its daemons' and workers' CPU counted as the run's)."""
    store = work / f"store-{mode}"
    server: Server | None = None
    base = ["--outcome-only", "--json", "--quiet"]
    if mode == "one":
        command = [*COMMAND, "solve", root, "--store", str(store), *base]
    elif mode == "jobs2":
        command = [*COMMAND, "solve", root, "--store", str(store), "--jobs", "2", *base]
    else:
        server = Server(store)
        command = [*COMMAND, "fleet", "solve", root, "--server", server.address, "--ray",
                   *(["auto"] if head else []), "--jobs", str(_fleet_workers(mode)), *base]  # fmt: skip
        if mode == "tasks":
            command.append("--tasks")
        if mode.endswith("-split"):  # helpers hand out their couples' options as --jobs
            command += ["--split", "4"]
    if profile is not None and server is not None:
        profile.mkdir(parents=True, exist_ok=True)
        out = profile / f"{root.replace('*', 'x')}-{mode}.folded"
        spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
        command = [spy, "record", "--subprocesses", "--format", "raw", "--rate", "50",
                   "--nonblocking", "-o", str(out), "--", *command]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(), start_new_session=True)  # fmt: skip
    spy_server = None
    if profile is not None and server is not None:
        spy_server = subprocess.Popen(
            [command[0], "record", "--pid", str(server.proc.pid), "--format", "raw", "--rate",
             "50", "--nonblocking", "-o", str(out.with_suffix(".server.folded"))],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    roots = [proc.pid, *([server.proc.pid] if server else [])]
    tree = TreeCpu(*roots, *([head.proc.pid] if head and server else [])).start()
    out_text, err_text = proc.communicate()
    wall = time.perf_counter() - started
    cpu = tree.stop()
    by_process = tree.by_name(server.proc.pid if server is not None else None)
    stats = server.stats() if server is not None else None
    if spy_server is not None:
        spy_server.send_signal(signal.SIGINT)
        spy_server.wait(60)
    if server is not None:
        server.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} {root} exited {proc.returncode}: {err_text[-2000:]}")
    report = json.loads([x for x in out_text.splitlines() if x.startswith("{")][-1])
    if "positions" in report:  # a fleet's report
        position = report["positions"][0]
        outcome, visits = position["outcome"], report.get("visits")
        extra = {k: report[k] for k in ("dispatch", "sharing", "sync") if k in report}
        extra["main_visits"] = position.get("main_visits")
    else:
        outcome, visits, extra = report["outcome"], report["nodes"], {}
    row: dict[str, Any] = {
        "root": root,
        "mode": mode,
        "outcome": outcome,
        "wall": round(wall, 2),
        "cpu": round(cpu, 2),
        "visits": visits,
        **extra,
        "cpu_by_process": by_process,
    }
    if stats is not None:
        row["server"] = {
            "commits": stats.get("commits"),
            "commit_ms": stats.get("commit_ms"),
            "facts_inserted": stats.get("facts_inserted"),
            "nimbers": stats["facts"].get("nimber"),
            "verified": stats["verified"].get("nimber"),
        }
    shutil.rmtree(store, ignore_errors=True)
    return row


def folded_summary(path: Path, top: int = 12) -> None:
    """Where a profiled run's time went: samples by process, then each process's leaf
    functions (self time) and a few inclusive groups (server I/O, hub, search)."""
    groups = {
        "insert (gRPC put)": ("put (sproutsdb/client/remote.py", "insert (sproutsdb/client"),
        "hub sync": ("sync (sproutsdb/ops/jobs/ray_helpers.py",),
        "ray.get/wait": ("get (ray/", "wait (ray/"),
        "search visits": ("_visit (sproutsdb/solver",),
        "children/canon": ("children (sproutsdb/solver", "canonical ("),
        "commit (server)": ("commit", "_write_batch", "put_many"),
        "verifier (server)": ("verif",),
    }
    by_process: dict[str, int] = {}
    leaves: dict[str, dict[str, int]] = {}
    inclusive: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        process = frames[0][:60] if frames[0].startswith("process") else path.name
        by_process[process] = by_process.get(process, 0) + count
        leaf = re.sub(r":\d+\)$", ")", frames[-1])
        mine = leaves.setdefault(process, {})
        mine[leaf] = mine.get(leaf, 0) + count
        groups_of = inclusive.setdefault(process, {})
        for group, needles in groups.items():
            if any(needle in frame for frame in frames for needle in needles):
                groups_of[group] = groups_of.get(group, 0) + count
    for process, total in sorted(by_process.items(), key=lambda item: -item[1]):
        print(f"{total:8} samples  {process}")
        for group, count in sorted(inclusive[process].items(), key=lambda item: -item[1]):
            print(f"           {100 * count / total:5.1f}% incl. {group}")
        ranked = sorted(leaves[process].items(), key=lambda item: -item[1])[:top]
        for leaf, count in ranked:
            print(f"           {100 * count / total:5.1f}% self  {leaf[:110]}")


def _run_roots(
    args: argparse.Namespace, modes: list[str], head: RayHead | None
) -> list[dict[str, Any]]:
    """Every root's modes, alternated over the rounds, with their ratios to `one`."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        for root in args.roots:
            mine: list[dict[str, Any]] = []
            for round_ in range(args.rounds):
                order = modes if round_ % 2 == 0 else list(reversed(modes))
                for mode in order:
                    row = run_mode(root, mode, Path(tmp), args.profile, head)
                    row["round"] = round_
                    mine.append(row)
                    print(json.dumps(row), flush=True)
            outcomes = {row["outcome"] for row in mine}
            assert len(outcomes) == 1, f"{root}: the modes disagree: {mine}"
            ones = [row for row in mine if row["mode"] == "one"]
            wall1 = sum(r["wall"] for r in ones) / len(ones) if ones else None
            cpu1 = sum(r["cpu"] for r in ones) / len(ones) if ones else None
            visits1 = ones[0]["visits"] if ones else None
            for row in mine:
                if wall1:
                    row["speed_vs_one"] = round(wall1 / row["wall"], 3)
                    row["cpu_vs_one"] = round(row["cpu"] / cpu1, 3) if cpu1 else None
                if visits1 and row.get("visits"):
                    row["visits_vs_one"] = round(row["visits"] / visits1, 3)
            rows.extend(mine)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", nargs="+", default=["0*14", "0*16"])
    parser.add_argument("--modes", default="one,jobs2,fleet")
    parser.add_argument("--rounds", type=int, default=1, help="alternations of the modes")
    parser.add_argument("--profile", type=Path, default=None, help="py-spy the fleet modes")
    parser.add_argument("--save", type=Path, default=RESULTS)
    parser.add_argument("--note", default="", help="what this run measures (kept with it)")
    parser.add_argument("--folded", type=Path, nargs="*", help="summarise profiles; no run")
    parser.add_argument(
        "--ray-head",
        action="store_true",
        help="start one Ray head for the whole run and join it from every fleet mode "
        "(--ray auto), as a cluster is run, instead of a local instance per command",
    )
    args = parser.parse_args()
    if args.folded:
        for path in args.folded:
            print(f"== {path}")
            folded_summary(path)
        return
    modes = args.modes.split(",")
    fleets = [_fleet_workers(mode) for mode in modes if mode not in ("one", "jobs2")]
    head = RayHead(max(fleets)) if args.ray_head and fleets else None
    try:
        rows = _run_roots(args, modes, head)
    finally:
        if head is not None:
            head.stop()
    print(f"\n{'root':6} {'mode':8} {'out':3} {'wall s':>8} {'cpu s':>8} {'visits':>9} "
          f"{'speed':>6} {'cpu x':>6} {'visits x':>8}")  # fmt: skip
    for r in rows:
        print(f"{r['root']:6} {r['mode']:8} {r['outcome']:3} {r['wall']:8.1f} {r['cpu']:8.1f} "
              f"{r.get('visits') or 0:9,} {r.get('speed_vs_one', 0):6.2f} "
              f"{r.get('cpu_vs_one') or 0:6.2f} {r.get('visits_vs_one') or 0:8.2f}")  # fmt: skip
    run = {
        "note": args.note,
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "load": os.getloadavg(),
        "ray": "a head started once for the run" if head else "a local instance per command",
        "rows": rows,
    }
    _keep_run(args.save, run)


def _keep_run(path: Path, run: dict[str, Any]) -> None:
    """Add a run to the results file, newest first: earlier runs are the history the
    figures are compared with, so they are kept."""
    from fleet_faults import save_runs

    earlier = json.loads(path.read_text()).get("runs", []) if path.exists() else []
    save_runs(path, "fleet", "bench/fleet.py, one invocation a run (newest first)", [run, *earlier])


if __name__ == "__main__":
    main()
