"""Durability of acknowledged writes: kill -9 of the server under load, and SIGTERM drains.

Writer threads insert numbered batches of misère facts and record a batch only once its
Insert returned (the server acknowledges after commit). The server is killed with SIGKILL
in the middle of the load, restarted on the same store, and every acknowledged fact must
be there with its value; a batch that was sent but not acknowledged is all there or all
absent (one batch, one transaction).
"""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path
from typing import Self

from service_support import ServerProcess
from sproutsdb.client import Client, ServiceError
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.game import SproutsGame

BATCH = 100
THREADS = 4


def positions(n: int) -> list[str]:
    """n distinct canonical positions: sums of three runs of isolated spots."""
    out = []
    for combo in itertools.combinations_with_replacement(range(2, 60), 3):
        out.append("+".join(sorted(f"0*{k}" for k in combo)))
        if len(out) == n:
            return out
    raise AssertionError("not enough positions")


def outcome(i: int) -> str:
    return "LW"[i * 7919 % 11 % 2]


class Load:
    """Writer threads inserting batch after batch until stopped or refused."""

    def __init__(self, address: str, keys: list[str]) -> None:
        self.keys = keys
        self.batches = [list(range(b * BATCH, (b + 1) * BATCH)) for b in range(len(keys) // BATCH)]
        self.acked: set[int] = set()
        self.sent: set[int] = set()
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.next = itertools.count()
        self.stop = threading.Event()
        self.client = Client(address, retries=1, timeout=10)
        self.threads = [threading.Thread(target=self.work, daemon=True) for _ in range(THREADS)]

    def work(self) -> None:
        while not self.stop.is_set():
            b = next(self.next)
            if b >= len(self.batches):
                return
            with self.lock:
                self.sent.add(b)
            try:
                self.client.insert(
                    FactKind.MISERE, {self.keys[i]: outcome(i) for i in self.batches[b]}
                )
            except ServiceError as error:
                with self.lock:
                    self.errors.append(str(error))
                return
            with self.lock:
                self.acked.add(b)

    def __enter__(self) -> Self:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(30)
        self.client.close()


def check_store(address: str, load: Load) -> None:
    with Client(address, timeout=30) as reader:
        for b in sorted(load.sent):
            keys = [load.keys[i] for i in load.batches[b]]
            found = reader.get(FactKind.MISERE, keys)
            expected = {load.keys[i]: outcome(i) for i in load.batches[b]}
            if b in load.acked:
                assert found == expected, f"acknowledged batch {b} lost facts"
            else:
                assert found in ({}, expected), f"batch {b} half written"
        assert reader.stats()["conflicts"] == 0


def test_kill_9_under_write_load_loses_no_acknowledged_fact(tmp_path: Path) -> None:
    keys = positions(30_000)
    game = SproutsGame()
    assert all(game.canonical(k) == k for k in keys[::997])
    store = tmp_path / "store"
    with ServerProcess(store, "--no-seed") as server:
        with Load(server.address, keys) as load:
            deadline = time.monotonic() + 30
            while len(load.acked) < 40 and time.monotonic() < deadline and not load.errors:
                time.sleep(0.01)
            assert len(load.acked) >= 40, load.errors or server.tail()
            server.kill()  # SIGKILL while the writers are inserting
            for t in load.threads:
                t.join(30)
        assert load.errors, "the writers should have seen the server die"
        assert len(load.sent) > len(load.acked) or len(load.acked) < len(load.batches)
    with ServerProcess(store, "--no-seed") as again:
        check_store(again.address, load)


def test_sigterm_drains_in_flight_writes(tmp_path: Path) -> None:
    keys = positions(20_000)
    store = tmp_path / "store"
    with ServerProcess(store, "--no-seed") as server:
        with Load(server.address, keys) as load:
            deadline = time.monotonic() + 30
            while len(load.acked) < 20 and time.monotonic() < deadline and not load.errors:
                time.sleep(0.01)
            assert server.stop() == 0  # SIGTERM: graceful
            for t in load.threads:
                t.join(30)
        log = server.tail(5)
        assert "draining in-flight calls" in log and "every acknowledged write" in log
    with ServerProcess(store, "--no-seed") as again:
        check_store(again.address, load)
