"""Fault injection beyond kill -9: map full, reader table full, a disk that refuses writes,
SIGTERM in the middle of an InsertStream, and a client that disappears mid-stream.

Each fault must answer a precise status (RESOURCE_EXHAUSTED saying what ran out), keep the
server serving what it still can, and leave every acknowledged fact in place and no batch
half written.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import lmdb
import pytest

from fault_batches import BATCH, batch, insert_chunks
from service_support import ROOT, ServerProcess, child_env
from sproutsdb.client import Client, ServiceError
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.wire import pb_grpc


def fill_until_refused(
    client: Client, limit: int = 2000, first: int = 0
) -> tuple[list[int], ServiceError]:
    """Insert batch after batch (from `first`) until the server refuses one; the batches
    acknowledged."""
    acked: list[int] = []
    for b in range(first, first + limit):
        try:
            client.insert(FactKind.MISERE, batch(b))
        except ServiceError as error:
            return acked, error
        acked.append(b)
    raise AssertionError(f"{limit} batches were all accepted")


def assert_whole(client: Client, acked: list[int], refused: int) -> None:
    """Every acknowledged batch is there; the refused one is all there or all absent."""
    for b in acked:
        assert client.get(FactKind.MISERE, list(batch(b))) == batch(b), f"batch {b} lost"
    found = client.get(FactKind.MISERE, list(batch(refused)))
    assert found in ({}, batch(refused)), f"refused batch {refused} half written"


def test_map_full_is_resource_exhausted_and_reads_go_on(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "store", "--no-seed", "--map-size", "256K") as server:
        with Client(server.address, retries=1, timeout=30) as client:
            acked, error = fill_until_refused(client)
            assert acked, "the store took nothing before it was full"
            assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED, error
            assert "store is full" in str(error) and "map_size" in str(error)
            assert "reads are still served" in str(error)
            assert_whole(client, acked, len(acked))
            # still full, still answering; reads and stats unaffected (pages that readers
            # held may be free by now, on a loaded machine: the store then takes a little
            # more before it refuses again, never much)
            more, again = fill_until_refused(client, limit=len(acked), first=len(acked) + 1)
            assert again.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert_whole(client, more, len(acked) + 1 + len(more))
            acked += more
            stats = client.stats()
            assert stats["facts"]["misere"] == len(acked) * BATCH
            assert stats["errors"].get("INTERNAL", 0) == 0
            assert client.health() == "SERVING"
        assert server.stop() == 0
    # a larger map takes the rest: nothing was damaged
    with (
        ServerProcess(tmp_path / "store", "--no-seed", "--map-size", "64M") as server,
        Client(server.address, retries=1, timeout=30) as client,
    ):
        assert_whole(client, acked, acked[-1] + 1)
        client.insert(FactKind.MISERE, batch(acked[-1] + 1))


def test_reader_table_full_is_resource_exhausted_then_recovers(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with (
        ServerProcess(store, "--no-seed") as server,
        Client(server.address, retries=1, timeout=30) as client,
    ):
        client.insert(FactKind.MISERE, batch(0))
        # another process (this one) takes every reader slot of the store's lock table
        env = lmdb.open(str(store), readonly=True, max_dbs=16, lock=True)
        held = []
        try:
            with pytest.raises(lmdb.ReadersFullError):
                for _ in range(5000):
                    held.append(env.begin())
            with pytest.raises(ServiceError) as refused:
                client.get(FactKind.MISERE, list(batch(0)))
            assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "reader table is full" in str(refused.value)
        finally:
            for txn in held:
                txn.abort()
            env.close()
        assert client.get(FactKind.MISERE, list(batch(0))) == batch(0)
        assert client.stats()["errors"].get("INTERNAL", 0) == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs (root only; skipped where mount is not allowed)."""
    where = tmp_path / "disk"
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip() or 'not root'})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_disk_that_refuses_writes_is_resource_exhausted(small_disk: Path) -> None:
    store = small_disk / "store"
    with ServerProcess(store, "--no-seed", log=small_disk.parent / "server.log") as server:
        with Client(server.address, retries=1, timeout=30) as client:
            client.insert(FactKind.MISERE, batch(0))
            # full: the disk takes writes until it has no room left
            acked, error = fill_until_refused(client)
            assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED, error
            assert "disk" in str(error) and "reads are still served" in str(error)
            assert_whole(client, [0, *acked], len(acked))
            assert client.stats()["errors"].get("INTERNAL", 0) == 0
        assert server.stop() == 0


def _prefix(client: Client, batches: list[int]) -> int:
    """How many of the stream's chunks are stored; each chunk whole, and only a prefix."""
    present = [client.get(FactKind.MISERE, list(batch(b))) for b in batches]
    stored = [found == batch(b) for b, found in zip(batches, present)]
    for b, found in zip(batches, present):
        assert found in ({}, batch(b)), f"chunk {b} half written"
    n = stored.count(True)
    assert stored == [True] * n + [False] * (len(stored) - n), "stored chunks are no prefix"
    return n


def test_sigterm_in_the_middle_of_an_insert_stream_drains_it(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with ServerProcess(store, "--no-seed") as server:
        channel = grpc.insecure_channel(server.address)
        stub = pb_grpc.SproutsDbStub(channel)
        sent: list[int] = []
        outcome_box: list[object] = []

        def stream() -> None:
            try:
                outcome_box.append(
                    stub.InsertStream(insert_chunks(0, 40, pause=0.05, sent=sent), timeout=60)
                )
            except grpc.RpcError as error:
                outcome_box.append(error)

        worker = threading.Thread(target=stream)
        worker.start()
        deadline = time.monotonic() + 30
        while len(sent) < 10 and time.monotonic() < deadline:
            time.sleep(0.01)
        server.proc.send_signal(15)  # SIGTERM while chunks are still coming
        worker.join(60)
        assert server.proc.wait(60) == 0
        channel.close()
        log = server.tail(5)
        assert "draining in-flight calls" in log and "every acknowledged write" in log
    [answer] = outcome_box
    with ServerProcess(store, "--no-seed") as again, Client(again.address) as client:
        stored = _prefix(client, list(range(40)))
        if isinstance(answer, grpc.RpcError):  # cut by the shutdown: a prefix, no more
            assert stored <= len(sent)
        else:  # drained: acknowledged, so every chunk is there
            assert answer.chunks == 40 and stored == 40


CLIENT_THAT_VANISHES = textwrap.dedent("""
    import sys, time, grpc
    sys.path.insert(0, sys.argv[2])
    from fault_batches import insert_chunks
    from sproutsdb.wire import pb_grpc
    stub = pb_grpc.SproutsDbStub(grpc.insecure_channel(sys.argv[1]))
    def chunks():
        for i, chunk in enumerate(insert_chunks(100, 1000, pause=0.02)):
            print(i, flush=True)
            yield chunk
    stub.InsertStream(chunks(), timeout=60)
""")


def test_a_client_that_disappears_mid_stream_leaves_whole_chunks(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "store", "--no-seed") as server:
        writer = subprocess.Popen(
            [sys.executable, "-c", CLIENT_THAT_VANISHES, server.address, str(ROOT / "tests")],
            stdout=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        try:
            assert writer.stdout is not None
            for _line in itertools.islice(writer.stdout, 20):
                pass
            writer.kill()  # gone without closing the stream
        finally:
            writer.kill()
            writer.wait(30)
            if writer.stdout is not None:
                writer.stdout.close()
        with Client(server.address, retries=1, timeout=30) as client:
            deadline = time.monotonic() + 10
            while client.stats()["in_flight"] and time.monotonic() < deadline:
                time.sleep(0.05)
            stored = _prefix(client, list(range(100, 200)))
            assert stored < 100
            client.insert(FactKind.MISERE, batch(0))  # still serving writes
            stats = client.stats()
            assert stats["facts"]["misere"] == (stored + 1) * BATCH
            assert stats["errors"].get("INTERNAL", 0) == 0
        assert server.proc is not None and server.proc.poll() is None


def test_a_read_only_disk_is_refused_at_start_with_one_line(tmp_path: Path) -> None:
    """A disk that refuses every write: the store cannot even be locked; one line, exit 2."""
    source, view = tmp_path / "rw", tmp_path / "ro"
    source.mkdir()
    view.mkdir()
    with ServerProcess(source / "store", "--no-seed") as server:
        with Client(server.address) as client:
            client.insert(FactKind.MISERE, batch(0))
        assert server.stop() == 0
    bind = subprocess.run(
        ["mount", "--bind", str(source), str(view)], capture_output=True, text=True, check=False
    )
    if bind.returncode != 0:
        pytest.skip(f"cannot bind-mount here ({bind.stderr.strip() or 'not root'})")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True)
        for command in (
            ["serve", "--no-seed", "--listen", "127.0.0.1:0"],
            ["solve", "0*6", "--quiet"],
        ):
            done = subprocess.run(
                [sys.executable, "-m", "sproutsdb", *command, "--store", str(view / "store")],
                capture_output=True,
                text=True,
                timeout=60,
                env=child_env(),
                check=False,
            )
            assert done.returncode == 2, done.stderr
            assert done.stderr.count("\n") == 1 and "Read-only file system" in done.stderr
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)
