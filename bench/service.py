"""Service benchmark (run on demand): the gRPC service against the same store in-process.

    .venv/bin/python bench/service.py [--seconds 3] [--facts 100000] [--threads 4]

The server is a real `sproutsdb serve` subprocess on 127.0.0.1 (its own process, its own
store in a temporary directory); this process is the client. The same operations then
run on an LmdbProofStore opened in this process, and each service figure is printed with
its ratio to the in-process one (service / in-process). Keys are real canonical Sprouts
lands: the 242 047 single lands among the positions of the shipped S6 table.

Targets on a 2-core machine (the issue): >= 100 000 keys/s for 1 000-key lookups,
>= 20 000 durable facts/s for batched inserts, p99 < 10 ms for single lookups at low load.
Reference points (docs/architecture.md §9): Python gRPC 1-3 k unary RPC/s per process,
40-160 k keys/s with 100-1 000-key batches; durable LMDB commits 4-8 ms, ~50 k records/s in batches of 1 000.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import zstandard

from sproutsdb.client import Client
from sproutsdb.formats.rcttable import read_header
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "data" / "s6.rcttable"
KIND = FactKind.NIMBER
# the facts are placeholders (nimber_of): the server's verifier would refute most of them
# while the lookups read them back, so it is off here (bench/trust_soak.py exercises it)
VERIFY = ["--no-verify"]


def shipped_lands() -> list[str]:
    """The canonical single lands among the S6 table's positions (no re-derivation)."""
    header, packed = read_header(TABLE)
    body = (
        zstandard.ZstdDecompressor()
        .decompress(packed, max_output_size=header["body"]["raw_bytes"])
        .decode()
    )
    lines = body.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("#positions"))
    positions = (line.split("\t", 1)[0] for line in lines[start + 1 :] if line)
    return [p for p in positions if "+" not in p and p != "!"]


def nimber_of(i: int) -> int:
    return i * 2654435761 % 7


def start_server(store: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sproutsdb",
            "serve",
            "--store",
            str(store),
            "--listen",
            "127.0.0.1:0",
            "--no-seed",
            "--log-level",
            "warning",
            *VERIFY,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    if not found:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, found.group(1)


def rate(work: Callable[[], int], seconds: float) -> float:
    """Repeat `work` (returns items done) for about `seconds`; items per second."""
    done, start = 0, time.perf_counter()
    while True:
        done += work()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def latencies(call: Callable[[str], object], keys: list[str], n: int) -> list[float]:
    out = []
    for key in keys[:n]:
        t = time.perf_counter()
        call(key)
        out.append((time.perf_counter() - t) * 1000.0)
    return out


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Inserter:
    """Durable inserts of fresh facts in batches from `threads` threads, `facts` of them."""

    def __init__(
        self, put: Callable[[dict[str, int]], object], lands: list[str], batch: int
    ) -> None:
        self.put = put
        self.batches = [
            {lands[j]: nimber_of(j) for j in range(i, min(i + batch, len(lands)))}
            for i in range(0, len(lands), batch)
        ]
        self.next = 0
        self.lock = threading.Lock()

    def run(self, threads: int, facts: int) -> float:
        done = [0] * threads
        last = self.next + max(1, facts // len(self.batches[0]))
        if last > len(self.batches):
            raise SystemExit("not enough fresh keys: lower --facts")

        def work(t: int) -> None:
            while True:
                with self.lock:
                    if self.next >= last:
                        return
                    batch = self.batches[self.next]
                    self.next += 1
                self.put(batch)
                done[t] += len(batch)

        start = time.perf_counter()
        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return sum(done) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--facts", type=int, default=100_000, help="facts to look up among")
    parser.add_argument(
        "--insert-facts", type=int, default=30_000, help="fresh facts per insert measurement"
    )
    parser.add_argument(
        "--threads", type=int, default=4, help="client threads for the concurrent runs"
    )
    parser.add_argument("--dir", default=None, help="where the temporary stores go")
    args = parser.parse_args()

    lands = shipped_lands()
    random.Random(7).shuffle(lands)
    lookup_keys = lands[: args.facts]
    fresh = lands[args.facts :]
    half = len(fresh) // 2
    print(
        f"{len(lands):,} canonical lands from {TABLE.name} (mean {statistics.mean(map(len, lands)):.0f}"
        f" chars); {len(lookup_keys):,} stored for lookups, the rest inserted fresh"
    )

    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="sproutsdb-bench-", dir=args.dir) as tmp:
        proc, address = start_server(Path(tmp) / "served")
        local = LmdbProofStore.open(Path(tmp) / "local", game="sprouts", canon_version=1)
        client = Client(address, timeout=60)
        try:
            # Fill both stores with the lookup keys (not timed).
            facts = {k: nimber_of(i) for i, k in enumerate(lookup_keys)}
            for i in range(0, len(lookup_keys), 10_000):
                part = dict(list(facts.items())[i : i + 10_000])
                client.insert(KIND, part)
                local.put(KIND, part)

            # Durable batched inserts of fresh keys, one client thread, then several.
            remote_ins = Inserter(lambda b: client.insert(KIND, b), fresh[:half], 1000)
            local_ins = Inserter(lambda b: local.put(KIND, b), fresh[half:], 1000)
            n = args.insert_facts
            results["insert 1000-fact batches, 1 thread (facts/s)"] = (
                remote_ins.run(1, n),
                local_ins.run(1, n),
            )
            results[f"insert 1000-fact batches, {args.threads} threads (facts/s)"] = (
                remote_ins.run(args.threads, n),
                local_ins.run(args.threads, n),
            )

            # Batched lookups of stored keys.
            rng = random.Random(3)
            for size in (100, 1000):
                batches = [rng.sample(lookup_keys, size) for _ in range(50)]
                it = iter(range(10**9))

                def remote(batches: list[list[str]] = batches, it: Iterator[int] = it) -> int:
                    batch = batches[next(it) % len(batches)]
                    assert len(client.get(KIND, batch)) == len(batch)
                    return len(batch)

                def inproc(batches: list[list[str]] = batches, it: Iterator[int] = it) -> int:
                    batch = batches[next(it) % len(batches)]
                    assert len(local.get(KIND, batch)) == len(batch)
                    return len(batch)

                results[f"lookup {size}-key batches, 1 thread (keys/s)"] = (
                    rate(remote, args.seconds),
                    rate(inproc, args.seconds),
                )

            # Misses cost a canonicalisation each (keys the store does not hold).
            misses = [fresh[half:][i : i + 1000] for i in range(0, 50_000, 1000)]
            it2 = iter(range(10**9))

            def remote_miss() -> int:
                batch = misses[next(it2) % len(misses)]
                client.lookup(batch)
                return len(batch)

            # (the local store answers misses like hits: no canonicalisation in-process)

            # Two client threads on 1000-key batches.
            def threaded_lookups(threads: int) -> float:
                batches = [rng.sample(lookup_keys, 1000) for _ in range(20)]
                done = [0] * threads
                stop = time.perf_counter() + args.seconds

                def work(t: int) -> None:
                    with Client(address) as c:
                        while time.perf_counter() < stop:
                            c.get(KIND, batches[(t + done[t]) % len(batches)])
                            done[t] += 1000

                start = time.perf_counter()
                ws = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
                for w in ws:
                    w.start()
                for w in ws:
                    w.join()
                return sum(done) / (time.perf_counter() - start)

            # Single-key lookups: rate and latency at low load (one client, one at a time).
            singles = rng.sample(lookup_keys, 20_000)
            for key in singles[:200]:  # warm up the channel
                client.get(KIND, [key])
            remote_lat = latencies(lambda k: client.get(KIND, [k]), singles, 3000)
            local_lat = latencies(lambda k: local.get(KIND, [k]), singles, 3000)
            results["single-key lookups, 1 thread (lookups/s)"] = (
                1000.0 / statistics.mean(remote_lat),
                1000.0 / statistics.mean(local_lat),
            )

            miss_rate = rate(remote_miss, args.seconds)
            two = threaded_lookups(2)
            stats = client.stats()
        finally:
            client.close()
            local.close()
            proc.terminate()
            proc.wait(30)

    print(f"\n{'operation':52} {'service':>12} {'in-process':>12} {'ratio':>8}")
    for name, (service, inproc) in results.items():
        print(f"{name:52} {service:>12,.0f} {inproc:>12,.0f} {service / inproc:>8.3f}")
    print(
        f"\nsingle-key lookup latency (ms)      p50 {pct(remote_lat, 0.5):.3f}  "
        f"p99 {pct(remote_lat, 0.99):.3f}  max {max(remote_lat):.3f}   "
        f"(in-process p50 {pct(local_lat, 0.5) * 1000:.1f} µs, p99 "
        f"{pct(local_lat, 0.99) * 1000:.1f} µs)"
    )
    print(f"lookup 1000-key batches, 2 client threads     {two:>12,.0f} keys/s")
    print(f"lookup 1000-key batches of misses (canonicalised) {miss_rate:>9,.0f} keys/s")
    print(
        f"server: {stats['commits']:,} commits; insert commit latency p50 "
        f"{stats['commit_ms']['p50']} ms, p99 {stats['commit_ms']['p99']} ms"
    )
    ok = (
        results["lookup 1000-key batches, 1 thread (keys/s)"][0] >= 100_000,
        max(v[0] for k, v in results.items() if k.startswith("insert")) >= 20_000,
        pct(remote_lat, 0.99) < 10.0,
    )
    print(
        f"targets: 1000-key lookups >= 100k keys/s {'met' if ok[0] else 'MISSED'}; "
        f"durable inserts >= 20k facts/s {'met' if ok[1] else 'MISSED'}; "
        f"single-lookup p99 < 10 ms {'met' if ok[2] else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
