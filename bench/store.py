"""Store benchmark (run on demand): raw gets/s and durable batched puts/s of LmdbProofStore.

    .venv/bin/python bench/store.py [--facts 200000] [--seconds 2] [--rounds 3] [--dir /some/disk]

Reference points (docs/architecture.md §9): 0.25-0.7 M raw gets/s per thread from Python;
a durable commit costs 4-8 ms on real disks, so about 50 k durable records/s in batches of 1 000. Put rates are
printed with their ratio to the batch-1 rate of the same run, since absolute fsync costs depend
on the disk the store sits on.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore


def land_key(n: int) -> str:
    """A Sprouts-looking key of typical length, unique per n."""
    return f"0.1a{n:x}a.2|AB{n % 97}C.0.0|ABC+{n}"


def timed(work: Callable[[], int], seconds: float) -> float:
    """Repeat `work` (returns items done) for about `seconds`; items per second."""
    done, start = 0, time.perf_counter()
    while True:
        done += work()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def bench_gets(store: LmdbProofStore, n: int, seconds: float) -> None:
    keys = [land_key(i) for i in random.Random(1).sample(range(n), min(n, 100_000))]
    assert store._env is not None
    env, db = store._env, store._dbs["nimber"]
    encoded = [k.encode() for k in keys]

    def raw() -> int:
        with env.begin(db=db) as txn:
            get = txn.get
            for k in encoded:
                get(k)
        return len(encoded)

    def batched(size: int) -> Callable[[], int]:
        chunks = [keys[i : i + size] for i in range(0, len(keys), size)]

        def run() -> int:
            for chunk in chunks[: max(1, 20_000 // size)]:
                store.get(FactKind.NIMBER, chunk)
            return min(len(keys), max(1, 20_000 // size) * size)

        return run

    print(f"gets ({len(keys)} random keys of a {n}-fact store, one thread):")
    print(f"  raw LMDB txn.get, one read txn         {timed(raw, seconds):>12,.0f} gets/s")
    for size in (1, 1000):
        rate = timed(batched(size), seconds)
        print(f"  store.get, {size:>5}-key batches          {rate:>12,.0f} keys/s")


def threaded_puts(
    store: LmdbProofStore, batch_of: Callable[[int], dict[str, int]], threads: int, seconds: float
) -> tuple[float, float]:
    """Batch-1 puts from many threads for `seconds`: (facts/s, puts per commit)."""
    stop = threading.Event()
    done = [0] * threads

    def writer(t: int) -> None:
        while not stop.is_set():
            done[t] += store.put(FactKind.NIMBER, batch_of(1)).inserted

    commits = store.stats()["writer"]["commits"]
    workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    time.sleep(seconds)
    stop.set()
    for w in workers:
        w.join()
    commits = store.stats()["writer"]["commits"] - commits
    return sum(done) / (time.perf_counter() - start), sum(done) / max(commits, 1)


def bench_puts(store: LmdbProofStore, seconds: float, rounds: int) -> None:
    """Durable put rates; the configurations are interleaved over `rounds` and the median kept,
    because fsync latency on a shared disk drifts during a run."""
    counter = iter(range(10**12))

    def batch_of(size: int) -> dict[str, int]:
        return {f"put-{next(counter)}": 1 for _ in range(size)}

    sizes, threads = (1, 100, 1000, 10_000), 8
    rates: dict[object, list[float]] = {size: [] for size in (*sizes, "threads")}
    per_commit: list[float] = []
    for _ in range(rounds):
        for size in sizes:

            def one_put(size: int = size) -> int:
                return store.put(FactKind.NIMBER, batch_of(size)).inserted

            rates[size].append(timed(one_put, seconds / rounds))
        rate, grouped = threaded_puts(store, batch_of, threads, seconds / rounds)
        rates["threads"].append(rate)
        per_commit.append(grouped)

    print(
        f"durable puts (sync on, one transaction per put; median of {rounds} interleaved rounds):"
    )
    base = statistics.median(rates[1])
    for size in sizes:
        rate, low, high = statistics.median(rates[size]), min(rates[size]), max(rates[size])
        print(
            f"  batch {size:>6}: {rate:>12,.0f} facts/s  x{rate / base:>7.1f}  "
            f"({1000 * size / rate:6.2f} ms per put; rounds {low:,.0f}..{high:,.0f})"
        )
    rate = statistics.median(rates["threads"])
    print(
        f"  batch      1 from {threads} threads: {rate:>8,.0f} facts/s  x{rate / base:>7.1f}  "
        f"(group commit: {statistics.median(per_commit):.1f} puts per commit)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--facts", type=int, default=200_000, help="facts preloaded for the get benchmark"
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="duration of each measurement")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds of the put benchmark"
    )
    parser.add_argument(
        "--dir", default=None, help="directory for the scratch store (default: system temp)"
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(dir=args.dir, prefix="sproutsdb-bench-") as tmp,
        LmdbProofStore.open(Path(tmp) / "store", game="bench", canon_version=0) as store,
    ):
        run(store, args.facts, args.seconds, args.rounds)


def run(store: LmdbProofStore, n: int, seconds: float, rounds: int) -> None:
    """Preload `n` facts, then time gets and puts on the same store."""
    start = time.perf_counter()
    for lo in range(0, n, 10_000):
        store.put(FactKind.NIMBER, {land_key(i): i % 8 for i in range(lo, min(lo + 10_000, n))})
    print(f"preloaded {n:,} facts in {time.perf_counter() - start:.2f} s")
    bench_gets(store, n, seconds)
    bench_puts(store, seconds, rounds)
    stats = store.stats()
    used = stats["used_bytes"] / 2**20
    facts, commits = stats["counts"]["nimber"], stats["writer"]["commits"]
    print(f"store: {facts:,} facts, {used:.1f} MiB used, {commits:,} commits")


if __name__ == "__main__":
    main()
