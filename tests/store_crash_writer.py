"""Helper process for the kill -9 test: writes numbered batches, prints each one once acknowledged.

Usage: python store_crash_writer.py STORE THREADS BATCHES BATCH_SIZE. Batch b holds the nimber
facts `b{b:06d}-{i:04d}` -> (b + i) % 11; thread t writes the batches b with b % THREADS == t.
A batch number is printed only after `put` returned, i.e. after its transaction committed.
"""

from __future__ import annotations

import sys
import threading

from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore


def batch(b: int, size: int) -> dict[str, int]:
    return {f"b{b:06d}-{i:04d}": (b + i) % 11 for i in range(size)}


def main(path: str, threads: int, batches: int, size: int) -> None:
    store = LmdbProofStore.open(path, game="sprouts", canon_version=1)
    lock = threading.Lock()

    def work(t: int) -> None:
        for b in range(t, batches, threads):
            store.put(FactKind.NIMBER, batch(b, size))
            with lock:
                print(b, flush=True)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    store.close()
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
