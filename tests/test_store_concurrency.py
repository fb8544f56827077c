"""Writers in parallel: group commit, every acknowledged batch durable, even across kill -9."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore

HELPER = Path(__file__).with_name("store_crash_writer.py")


def open_store(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=1)


def wait_until(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.001)


def test_concurrent_puts_are_all_committed_and_counted(tmp_path: Path) -> None:
    threads, puts, size = 8, 25, 40
    errors: list[BaseException] = []
    with open_store(tmp_path / "s") as store:

        def work(t: int) -> None:
            try:
                for p in range(puts):
                    batch = {f"t{t}-p{p}-{i}": (t + p + i) % 5 for i in range(size)}
                    result = store.put(FactKind.NIMBER, batch)
                    assert result.inserted == size
                    # acknowledged means committed: visible to a fresh read at once
                    assert store.get(FactKind.NIMBER, list(batch)) == batch
            except BaseException as error:  # noqa: BLE001  # pragma: no cover - reported below
                errors.append(error)

        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=60)
        assert not errors and not any(w.is_alive() for w in workers)
        total = threads * puts * size
        assert store.count(FactKind.NIMBER) == total
        assert sum(1 for _ in store.iter_facts(FactKind.NIMBER)) == total
        writer = store.stats()["writer"]
        assert writer["operations"] == threads * puts and writer["commits"] <= writer["operations"]


def test_queued_batches_share_one_commit(tmp_path: Path) -> None:
    """While the writer waits for LMDB's write lock, later batches queue and commit together."""
    with open_store(tmp_path / "s") as store:
        assert store._env is not None
        commits_before = store.stats()["writer"]["commits"]
        blocker = store._env.begin(write=True)  # holds LMDB's write lock
        workers = []
        try:

            def put(n: int) -> None:
                store.put(FactKind.NIMBER, {f"k{n}": n})

            workers.append(threading.Thread(target=put, args=(0,)))
            workers[0].start()
            wait_until(lambda: store.stats()["writer"]["pending"] == 0)  # the writer holds batch 0
            for n in range(1, 5):
                workers.append(threading.Thread(target=put, args=(n,)))
                workers[-1].start()
            wait_until(lambda: store.stats()["writer"]["pending"] == 4)
            assert store.count(FactKind.NIMBER) == 0  # nothing acknowledged yet
        finally:
            blocker.abort()
        for w in workers:
            w.join(timeout=10)
        assert store.get(FactKind.NIMBER, [f"k{n}" for n in range(5)]) == {
            f"k{n}": n for n in range(5)
        }
        assert store.stats()["writer"]["commits"] - commits_before == 2


def read_lines(stream, lines: queue.Queue[str]) -> None:  # type: ignore[no-untyped-def]
    for line in stream:
        lines.put(line.strip())


def test_acknowledged_batches_survive_kill_9(tmp_path: Path) -> None:
    path, threads, batches, size = tmp_path / "s", 2, 100_000, 200
    proc = subprocess.Popen(
        [sys.executable, str(HELPER), str(path), str(threads), str(batches), str(size)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: set[int] = set()
    try:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=read_lines, args=(proc.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + 30
        while len(acked) < 40:
            assert time.monotonic() < deadline, "the writer acknowledged too few batches in time"
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                continue
            acked.add(int(line))
        proc.send_signal(signal.SIGKILL)  # mid-run: it still has ~100 000 batches to go
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    while True:  # acknowledgements printed before the kill but not yet read
        try:
            acked.add(int(lines.get(timeout=0.5)))
        except (queue.Empty, ValueError):
            break

    with open_store(path) as store:
        facts = dict(store.iter_facts(FactKind.NIMBER))
        stored_batches: dict[int, int] = {}
        for key, value in facts.items():
            b, i = int(key[1:7]), int(key[8:])
            assert value == (b + i) % 11
            stored_batches[b] = stored_batches.get(b, 0) + 1
        assert acked <= set(stored_batches), "an acknowledged batch was lost"
        assert all(n == size for n in stored_batches.values()), "a batch was half-written"
        assert store.count(FactKind.NIMBER) == len(facts)
        # and the reopened store takes writes again
        assert store.put(FactKind.NIMBER, {"after": 1}).inserted == 1
