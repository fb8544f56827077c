"""Crash soak (run on demand): N trials of kill -9 under write load, nothing acknowledged lost.

    .venv/bin/python bench/crash_soak.py [--trials 1000] [--seed S] [--writers 4] [--json]

Each trial does two things at once, on the two cores:
(a) `sproutsdb serve` on one store kept for the whole soak, under several writer clients
    (half Insert, half InsertStream) that record every batch the server acknowledged, is
    killed with SIGKILL after a random delay. The store is then reopened in this process
    (a plain open: LMDB needs no repair, and none is run) and checked: every acknowledged
    fact present with its value, every batch sent but not acknowledged all there or all
    absent (a batch is one transaction: its facts share a batch number), the chunks of an
    unacknowledged stream a prefix of it, and the store holding no fact nobody sent. The
    next trial's server start is the restart after the crash.
(b) an embedded `sproutsdb solve` on a fresh store is killed with SIGKILL after a random
    delay; the store is reopened and `check` (the same code as `sproutsdb check --all`)
    must re-derive every fact the solve stored.
Every CHECK_ALL_EVERY trials and at the end, every batch ever acknowledged is read again.
Prints trials, facts acknowledged, facts lost (0), torn batches (0), restarts failed (0);
exits 1 if any of the last three is not zero.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sproutsdb.client import Client, ServiceError
from sproutsdb.ops import check_store
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore

COMMAND = [sys.executable, "-m", "sproutsdb"]
BATCH = 20  # facts per Insert request and per InsertStream chunk
STREAM_CHUNKS = 5  # chunks per InsertStream call
CHECK_ALL_EVERY = 100
SOLVE_FLUSH_SECONDS = 0.1  # the solve commits this often, so a kill finds facts to check
SOLVES = {"0*8": 0, "0*9": 1, "0*10": 1}  # position -> nimber (published; cheap to solve)


def position(n: int) -> str:
    """The n-th key of the soak: a canonical sum of four runs of isolated spots (n < 40**4),
    distinct for distinct n."""
    runs = []
    for i in range(4):
        runs.append(2 + n % 40 + 40 * i)
        n //= 40
    return "+".join(sorted(f"0*{k}" for k in runs))


def outcome(n: int) -> str:
    return "LW"[(n * 2654435761 >> 7) & 1]


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SPROUTSDB_")}


# --- the ledger of what was sent and acknowledged ------------------------------------------


@dataclass
class Batch:
    """One transaction's worth of facts: keys position(first .. first+BATCH-1)."""

    first: int
    stream: int | None = None  # the InsertStream call it belongs to, if any
    acked: bool = False
    present: bool = False  # found whole in the store after its trial

    def expected(self) -> dict[str, str]:
        return {position(n): outcome(n) for n in range(self.first, self.first + BATCH)}


@dataclass
class Ledger:
    batches: list[Batch] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    numbers: itertools.count = field(default_factory=itertools.count)
    streams: itertools.count = field(default_factory=itertools.count)

    def new_batch(self, stream: int | None = None) -> Batch:
        with self.lock:
            batch = Batch(next(self.numbers) * BATCH, stream)
            self.batches.append(batch)
        return batch


class Writers:
    """Writer threads on their own clients until the server dies: half Insert, half stream."""

    def __init__(self, address: str, ledger: Ledger, count: int) -> None:
        self.address = address
        self.ledger = ledger
        self.stop = threading.Event()
        self.threads = [
            threading.Thread(target=self.insert if i % 2 == 0 else self.stream, daemon=True)
            for i in range(count)
        ]

    def insert(self) -> None:
        with Client(self.address, retries=1, timeout=10) as client:
            while not self.stop.is_set():
                batch = self.ledger.new_batch()
                try:
                    client.insert(FactKind.MISERE, batch.expected())
                except ServiceError:
                    return
                batch.acked = True

    def stream(self) -> None:
        with Client(self.address, retries=1, timeout=10) as client:
            while not self.stop.is_set():
                sid = next(self.ledger.streams)
                batches = [self.ledger.new_batch(sid) for _ in range(STREAM_CHUNKS)]
                facts = ((FactKind.MISERE, k, v) for b in batches for k, v in b.expected().items())
                try:
                    client.insert_stream(facts, chunk_size=BATCH)
                except ServiceError:
                    return
                for b in batches:
                    b.acked = True

    def __enter__(self) -> Writers:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(60)


# --- the server ------------------------------------------------------------------------------


def start_server(
    store: Path, log: Path, timeout: float = 60.0
) -> tuple[subprocess.Popen[str], str]:
    """`sproutsdb serve` on a free port; returns once it listens (RuntimeError if not)."""
    with open(log, "a") as err:
        proc = subprocess.Popen(
            [
                *COMMAND,
                "serve",
                "--store",
                str(store),
                "--listen",
                "127.0.0.1:0",
                "--no-seed",
                "--log-format",
                "text",
            ],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=child_env(),
        )
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not selector.select(deadline - time.monotonic()):
                continue
            line = proc.stdout.readline()
            if not line:
                break
            found = re.search(r"listening on (\S+)", line)
            if found:
                return proc, found.group(1)
        kill(proc)
        raise RuntimeError(f"server did not start (exit {proc.returncode})")
    finally:
        selector.close()


def kill(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    if proc.stdout is not None:
        proc.stdout.close()


# --- checks ----------------------------------------------------------------------------------


@dataclass
class Totals:
    trials: int = 0
    facts_acknowledged: int = 0
    facts_sent: int = 0
    facts_whole: int = 0  # facts of the batches found whole: what the store must count
    facts_lost: int = 0
    torn_batches: int = 0
    phantom_facts: int = 0
    restarts_failed: int = 0
    reopens_failed: int = 0
    solves_killed: int = 0
    solves_finished: int = 0
    solve_facts_stored: int = 0
    solve_facts_rederived: int = 0
    solve_checks_failed: int = 0
    solve_wrong_answers: int = 0
    problems: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)


def check_batches(
    store: LmdbProofStore, batches: list[Batch], totals: Totals, *, count_new: bool
) -> int:
    """Check acknowledged batches whole and the others all-or-nothing (streams: a prefix);
    returns the facts of the batches found."""
    present = 0
    prefix_ended: dict[int, bool] = {}
    for batch in batches:
        expected = batch.expected()
        found = store.get(FactKind.MISERE, list(expected))
        if count_new:
            totals.facts_sent += BATCH
            totals.facts_acknowledged += BATCH if batch.acked else 0
        if batch.acked:
            lost = sum(1 for k, v in expected.items() if found.get(k) != v)
            if lost:
                totals.facts_lost += lost
                totals.problem(f"acknowledged batch at {batch.first}: {lost} facts lost")
        elif found not in ({}, expected):
            totals.torn_batches += 1
            totals.problem(f"batch at {batch.first}: {len(found)} of {BATCH} facts stored")
        if found == expected:
            present += BATCH
            batch.present = True
        if batch.stream is not None and not batch.acked:
            if found and prefix_ended.get(batch.stream):
                totals.torn_batches += 1
                totals.problem(f"stream {batch.stream}: a chunk stored after a missing one")
            prefix_ended[batch.stream] = prefix_ended.get(batch.stream, False) or not found
    return present


def open_store(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, create=False)


def serve_trial(
    store: Path,
    log: Path,
    ledger: Ledger,
    totals: Totals,
    rng: random.Random,
    writers: int,
    max_delay: float,
) -> None:
    """(a): writers on a server killed after a random delay, then the store checked."""
    first_new = len(ledger.batches)
    try:
        proc, address = start_server(store, log)
    except RuntimeError as error:
        totals.restarts_failed += 1
        totals.problem(f"trial {totals.trials}: {error}")
        return
    try:
        with Writers(address, ledger, writers):
            time.sleep(rng.uniform(0.0, max_delay))
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
    finally:
        kill(proc)
    try:
        reopened = open_store(store)
    except Exception as error:  # noqa: BLE001 - counted and reported
        totals.reopens_failed += 1
        totals.problem(f"trial {totals.trials}: reopen failed: {error}")
        return
    with reopened:
        totals.facts_whole += check_batches(
            reopened, ledger.batches[first_new:], totals, count_new=True
        )
        stored = reopened.count(FactKind.MISERE)
        if stored != totals.facts_whole:  # a fact of no whole batch: torn or phantom
            totals.phantom_facts += abs(stored - totals.facts_whole)
            totals.problem(
                f"trial {totals.trials}: {stored} facts stored, the ledger has "
                f"{totals.facts_whole} in whole batches"
            )
            totals.facts_whole = stored


@dataclass
class SolveRun:
    proc: subprocess.Popen[str]
    where: Path
    position: str
    timer: threading.Timer


def start_solve(where: Path, rng: random.Random, max_delay: float) -> SolveRun:
    """(b): an embedded solve on a fresh store, SIGKILLed after a random delay."""
    root = rng.choice(sorted(SOLVES))
    proc = subprocess.Popen(
        [
            *COMMAND,
            "solve",
            root,
            "--json",
            "--quiet",
            "--flush-seconds",
            str(SOLVE_FLUSH_SECONDS),
            "--store",
            str(where),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=child_env(),
    )
    timer = threading.Timer(
        rng.uniform(0.5, max_delay),
        lambda: proc.poll() is None and proc.send_signal(signal.SIGKILL),
    )
    timer.start()
    return SolveRun(proc, where, root, timer)


def finish_solve(run: SolveRun, totals: Totals) -> None:
    out, _ = run.proc.communicate(timeout=600)
    run.timer.cancel()
    if run.proc.returncode == -signal.SIGKILL:
        totals.solves_killed += 1
    elif run.proc.returncode == 0:
        totals.solves_finished += 1
        report = json.loads(out)
        if report["nimber"] != SOLVES[run.position]:
            totals.solve_wrong_answers += 1
            totals.problem(f"solve {run.position}: nimber {report['nimber']}")
    else:
        totals.solve_checks_failed += 1
        totals.problem(f"solve {run.position} exited with {run.proc.returncode}")
    if (run.where / "data.mdb").exists():
        try:
            store = open_store(run.where)
        except Exception as error:  # noqa: BLE001 - counted and reported
            totals.reopens_failed += 1
            totals.problem(f"solve store reopen failed: {error}")
            return
        with store:
            report = check_store(store, jobs=1)
        totals.solve_facts_stored += report["facts"]
        totals.solve_facts_rederived += report["verified_now"]
        if report["verified_now"] != report["facts"] or report.get("bad"):
            totals.solve_checks_failed += 1
            totals.problem(
                f"check after a killed solve of {run.position}: "
                f"{report['verified_now']} of {report['facts']} re-derived"
            )
    shutil.rmtree(run.where, ignore_errors=True)


def check_everything(store_dir: Path, ledger: Ledger, totals: Totals) -> None:
    """Every batch ever acknowledged, read again (a later crash must not lose it)."""
    with open_store(store_dir) as store:
        lost_before = totals.facts_lost
        for batch in ledger.batches:
            if batch.acked:
                expected = batch.expected()
                found = store.get(FactKind.MISERE, list(expected))
                lost = sum(1 for k, v in expected.items() if found.get(k) != v)
                totals.facts_lost += lost
            if store.count(FactKind.MISERE) != totals.facts_whole:
                totals.phantom_facts += 1
                totals.problem("the store's count differs from the ledger's whole batches")
        if totals.facts_lost != lost_before:
            totals.problem("a full re-read found acknowledged facts missing")


def _interrupted(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


# --- main ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--writers", type=int, default=4, help="writer clients (default 4)")
    parser.add_argument(
        "--max-kill-delay",
        type=float,
        default=0.6,
        help="the server is killed within this many seconds of the writers' start (default 0.6)",
    )
    parser.add_argument(
        "--max-solve-delay",
        type=float,
        default=4.0,
        help="the solve is killed within this many seconds of its start",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="stop after the trial running at this time (the report says how many trials ran)",
    )
    parser.add_argument("--no-solve", action="store_true", help="skip part (b)")
    parser.add_argument("--work", type=Path, default=None, help="directory (default: a temp)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="crash-soak-", dir=args.work))
    store_dir = work / "served"
    log = work / "server.log"
    ledger = Ledger()
    totals = Totals()
    started = time.perf_counter()
    signal.signal(signal.SIGTERM, _interrupted)  # so that `finally` kills our processes
    try:
        for trial in range(args.trials):
            if args.max_seconds is not None and time.perf_counter() - started > args.max_seconds:
                break
            solve = (
                None
                if args.no_solve
                else start_solve(work / f"solve-{trial}", rng, args.max_solve_delay)
            )
            try:
                serve_trial(store_dir, log, ledger, totals, rng, args.writers, args.max_kill_delay)
            finally:
                if solve is not None:
                    finish_solve(solve, totals)
            totals.trials += 1
            if (trial + 1) % CHECK_ALL_EVERY == 0 and not args.json:
                check_everything(store_dir, ledger, totals)
                print(
                    f"[{trial + 1} trials, {time.perf_counter() - started:.0f} s] "
                    f"acknowledged {totals.facts_acknowledged:,} lost {totals.facts_lost} "
                    f"torn {totals.torn_batches} restarts failed {totals.restarts_failed}",
                    flush=True,
                )
        check_everything(store_dir, ledger, totals)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = dict(vars(totals))
    report.update(
        seed=seed,
        seconds=round(seconds, 1),
        cpu_seconds=round(own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime, 1),
    )
    bad = (
        totals.facts_lost
        or totals.torn_batches
        or totals.restarts_failed
        or totals.reopens_failed
        or totals.phantom_facts
        or totals.solve_checks_failed
        or totals.solve_wrong_answers
    )
    if args.json:
        print(json.dumps(report))
    else:
        print(f"trials              {totals.trials:,} (seed {seed})")
        print(f"facts acknowledged  {totals.facts_acknowledged:,} of {totals.facts_sent:,} sent")
        print(f"facts lost          {totals.facts_lost}")
        print(f"torn batches        {totals.torn_batches}")
        print(f"phantom facts       {totals.phantom_facts}")
        print(
            f"restarts failed     {totals.restarts_failed} (reopens failed {totals.reopens_failed})"
        )
        print(
            f"solves killed       {totals.solves_killed} (finished before the kill: "
            f"{totals.solves_finished}); {totals.solve_facts_stored:,} facts stored, "
            f"{totals.solve_facts_rederived:,} re-derived by check, "
            f"{totals.solve_checks_failed} checks failed"
        )
        print(f"time                {seconds:.0f} s wall, {report['cpu_seconds']} s CPU")
        for text in totals.problems:
            print(f"  problem: {text}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
