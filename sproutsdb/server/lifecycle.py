"""`sproutsdb serve`: a Server (the gRPC server, its interceptors, health and reflection,
the verifier) and run_server, its lifecycle.

`run_server` binds the listen address first (SO_REUSEPORT off, so a busy port is an error,
not a shared port; a bad address is refused before any store is created), opens the store,
seeds it from the RCT tables when it has none, starts serving (the results library is then
seeded in the background, its progress in Stats), and on SIGTERM/SIGINT stops taking calls,
lets in-flight ones finish (their writes commit) and closes the store.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from sproutsdb.address import DEFAULT_LISTEN, ListenError, split_address, why_not_listening
from sproutsdb.errors import UserError
from sproutsdb.facts import Provenance
from sproutsdb.formats.rcttable import read_header
from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.ops.seed import LibrarySeeder, TableShelf, needs_seed, seed_store
from sproutsdb.ops.verifier import Verifier
from sproutsdb.server.auth import TokenBook, WriteTokenInterceptor
from sproutsdb.server.reflection import enable_reflection
from sproutsdb.server.service import SproutsDbService
from sproutsdb.server.validation import Limits
from sproutsdb.server.wire_guard import GarbledRequestInterceptor
from sproutsdb.store import LmdbProofStore, open_store
from sproutsdb.store.errors import StoreNotFoundError
from sproutsdb.store.location import check_new_store_location
from sproutsdb.store.opening import peek_identity
from sproutsdb.wire import SERVICE_NAME, WRITE_METHODS, pb_grpc

log = logging.getLogger("sproutsdb.server")

DEFAULT_WORKERS = 16
GRACE_SECONDS = 30.0


@dataclass
class ServeOptions:
    """What `sproutsdb serve` was asked for."""

    store: str | None = None
    listen: str = DEFAULT_LISTEN
    token: TokenBook | str | None = None  # a str: one token named "default"
    tls_cert: Path | None = None
    tls_key: Path | None = None
    seed: list[Path] = field(default_factory=list)
    workers: int = DEFAULT_WORKERS
    limits: Limits = field(default_factory=Limits)
    grace: float = GRACE_SECONDS
    verify: bool = True  # run the background verifier of claims (ops/verifier.py)
    map_size: int | None = None  # LMDB map_size in bytes (None: the store's default)
    game: str | None = None  # the game of a new store (None: an existing store's, else Sprouts)
    results: Path | None = None  # a results library to seed (ops/seed.py; None: none)


class Server:
    """A gRPC server: Server(options) binds its port at once (ListenError when it cannot, before
    any store is opened), serve(store, tables) adds the services, then start(), stop()."""

    def __init__(self, options: ServeOptions) -> None:
        self.options = options
        tokens = options.token
        if isinstance(tokens, str):
            tokens = TokenBook.single(tokens)
        self.tokens = tokens
        self.store: LmdbProofStore | None = None
        self.verifier: Verifier | None = None
        self._service: SproutsDbService | None = None
        interceptors: list[grpc.ServerInterceptor] = [
            GarbledRequestInterceptor(on_refused=self._refused)
        ]
        if tokens is not None:
            streaming = frozenset({f"/{SERVICE_NAME}/InsertStream"})
            interceptors.append(
                WriteTokenInterceptor(tokens, WRITE_METHODS, streaming, on_denied=self._refused)
            )
        limit = options.limits.max_message_bytes
        self.grpc = grpc.server(
            futures.ThreadPoolExecutor(
                max_workers=options.workers, thread_name_prefix="sproutsdb-rpc"
            ),
            interceptors=interceptors,
            options=[
                ("grpc.so_reuseport", 0),
                ("grpc.max_receive_message_length", limit),
                ("grpc.max_send_message_length", limit),
            ],
            maximum_concurrent_rpcs=options.workers * 16,
        )
        self.health = health.HealthServicer()
        self.port = self._bind()

    @property
    def service(self) -> SproutsDbService:
        assert self._service is not None, "serve(store) first"
        return self._service

    def _refused(self, code: str) -> None:
        if self._service is not None:
            self._service.metrics.error(code)

    def _bind(self) -> int:
        """Bind the listen address (not accepting calls until start): its port, or
        ListenError with the reason (malformed, port out of range, in use, not local)."""
        address = self.options.listen
        check_listen_address(address)
        try:
            if self.options.tls_cert is not None:
                assert self.options.tls_key is not None
                creds = grpc.ssl_server_credentials(
                    [(self.options.tls_key.read_bytes(), self.options.tls_cert.read_bytes())]
                )
                with _quiet_native_stderr():
                    port = self.grpc.add_secure_port(address, creds)
            else:
                with _quiet_native_stderr():
                    port = self.grpc.add_insecure_port(address)
        except RuntimeError:
            port = 0
        if not port:
            raise ListenError(f"cannot listen on {address}: {why_not_listening(address)}")
        return int(port)

    def serve(self, store: LmdbProofStore, tables: TableShelf | None = None) -> None:
        """Add the services over `store` (before start)."""
        self.store = store
        self.verifier = Verifier(store) if self.options.verify else None
        self._service = SproutsDbService(
            store,
            limits=self.options.limits,
            tables=tables,
            writes_need_token=self.tokens is not None,
            tls=self.options.tls_cert is not None,
            tokens=self.tokens,
            verifier=self.verifier,
        )
        pb_grpc.add_SproutsDbServicer_to_server(self._service, self.grpc)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.grpc)
        enable_reflection((SERVICE_NAME, health.SERVICE_NAME), self.grpc)  # v1 and v1alpha

    def start(self) -> int:
        self.grpc.start()
        if self.verifier is not None:
            self.verifier.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    def stop(self, grace: float | None = None) -> None:
        """Refuse new calls, let in-flight ones finish (their writes commit), then return."""
        self.health.enter_graceful_shutdown()
        self.grpc.stop(self.options.grace if grace is None else grace).wait()
        if self.verifier is not None:
            self.verifier.stop()


def check_listen_address(address: str) -> tuple[str, int]:
    """(host, port) of a HOST:PORT listen address; ListenError when it is malformed or its
    port is past 65535 (binding it is Server's test)."""
    host, port = split_address(address)
    if port > 65535:
        raise ListenError(f"listen address {address!r}: port {port} is past 65535")
    return host, port


@contextmanager
def _quiet_native_stderr() -> Iterator[None]:
    """Silence file descriptor 2 for the block: gRPC's core logs its own `E… add_port.cc`
    line when it cannot bind, before the one-line message `serve` gives (ListenError).
    Only the port binding runs here, before any serving thread starts."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to silence
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_served_store(
    path: str | None, map_size: int | None = None, game: str | None = None
) -> LmdbProofStore:
    """The store `serve` opens (created if missing, never under a missing parent), its
    writes signed `sproutsdb serve`. Its game: `game`, else the one an existing store
    records, else the default (a store of another game than `game` is refused)."""
    check_new_store_location(path)
    provenance = Provenance(tool="sproutsdb serve")
    if game is None:
        try:
            game = peek_identity(path).game
        except StoreNotFoundError:
            game = DEFAULT_GAME
    get_game(game)  # an unknown game is refused before anything is created
    if map_size is None:
        return open_store(path, provenance=provenance, game=game)
    return open_store(path, provenance=provenance, map_size=map_size, game=game)


SERVE_LOCK = "serve.lock"  # in the store directory: held by the one server of the store


class StoreServedError(UserError):
    """The store is already served by another `sproutsdb serve` process."""


class ServeLock:
    """An exclusive lock on `<store>/serve.lock`, held while a server serves the store, so
    that a second `serve` of the same store is refused instead of starting silently. The
    kernel drops the lock when the process ends, however it ends (even SIGKILL)."""

    def __init__(self, store_path: Path) -> None:
        self.path = store_path / SERVE_LOCK
        self._handle: Any = None

    def acquire(self, listen: str) -> None:
        """Take the lock and record who holds it; StoreServedError when it is taken."""
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock, as before
            return
        handle = open(self.path, "a+")  # noqa: SIM115 - held open while serving
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise StoreServedError(
                f"the store {self.path.parent} is already being served ({holder}); stop "
                "that server first, or serve another store"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}, listening on {listen}\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing drops the flock
            self._handle = None


SWITCH_INTERVAL = 0.0001  # seconds a thread holds the GIL while another waits for it


def run_server(options: ServeOptions, *, ready: Callable[[Server], None] | None = None) -> int:
    """`sproutsdb serve`: serve until SIGTERM/SIGINT, then drain and close the store."""
    stop = threading.Event()
    signals: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        signals.append(signum)
        stop.set()

    # The request threads share one GIL with the CPU-bound seeding and verifier threads, and
    # a request releases it at each store read: with the default 5 ms switch interval each
    # read then waits out a whole slice of the seeder (a convoy: a query of 0*6 reads
    # thousands of records). A short interval costs nothing while nobody waits.
    sys.setswitchinterval(SWITCH_INTERVAL)
    # the address first: a malformed or busy one is refused before a store is created or
    # seeded; the port stays bound (not answering yet) until the server starts
    server = Server(options)
    try:
        store = open_served_store(options.store, options.map_size, options.game)
    except BaseException:
        server.grpc.stop(None)
        raise
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    lock = ServeLock(Path(store.path))
    seeder: LibrarySeeder | None = None
    started = False
    try:
        lock.acquire(options.listen)
        shelf = TableShelf()
        for path in options.seed:
            table_game = read_header(path)[0].get("game")
            if table_game != store.identity.game:  # RCTs of another game: nothing to serve
                log.info(
                    "not serving or seeding from %s: a table of %s, the store holds %s",
                    path,
                    table_game,
                    store.identity.game,
                    extra={"table": str(path)},
                )
                continue
            entry = shelf.add(path)
            # every record and every position re-derived (or its cached mark) before the
            # table seeds the store or is served: a forged table stops the server here
            shelf.loaded(entry)
            if needs_seed(store):
                log.info(
                    "first start: seeding the store from %s (every position re-derived)",
                    path,
                    extra={"table": str(path)},
                )
            report = seed_store(store, path, load=partial(shelf.loaded, entry))
            if report.skipped:
                log.info(
                    "not seeding from %s: %s", path, report.skipped, extra={"table": str(path)}
                )
            else:
                log.info(
                    "seeded %d RCTs and %d positions from %s in %.1f s",
                    report.rcts,
                    report.positions,
                    path,
                    report.seconds,
                    extra={"table": str(path), "root": entry.root},
                )
            if stop.is_set():
                return 0
        server.serve(store, shelf)
        for entry in shelf.entries.values():
            if entry.table is not None:  # loaded to seed: keep the stream, drop the algebra
                server.service.table_stream(entry)
        if options.results is not None:  # the results library, in the background
            seeder = LibrarySeeder(store, options.results)
            server.service.seeding = seeder.progress.figures  # in Stats
        server.start()
        started = True
        if seeder is not None:
            seeder.start()
        log.info(
            "serving %s on port %d",
            store.path,
            server.port,
            extra={
                "listen": options.listen,
                "port": server.port,
                "store": str(store.path),
                "pid": os.getpid(),
                "writes_need_token": options.token is not None,
                "tls": options.tls_cert is not None,
            },
        )
        if ready is not None:
            ready(server)
        while not stop.wait(1.0):
            pass
        log.info(
            "signal %s: draining in-flight calls (up to %.0f s)",
            signal.Signals(signals[0]).name if signals else "?",
            options.grace,
        )
        server.stop()
    finally:
        if not started:  # bound, never started: let the port go
            server.grpc.stop(None)
        if seeder is not None:  # stopped between two certificates, before the store closes
            seeder.close(options.grace)
        store.close()
        lock.release()
        for s, handler in previous.items():
            signal.signal(s, handler)
    log.info("stopped; every acknowledged write is committed", extra={"store": str(store.path)})
    return 0


__all__ = ["DEFAULT_LISTEN", "ListenError", "ServeOptions", "Server", "run_server"]
