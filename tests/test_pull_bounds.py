"""`sproutsdb pull` against hostile peers: fake gRPC servers (in this process, on a free
port of 127.0.0.1) that page forever, repeat a page token, answer slowly, send columns
of unequal length or malformed facts, or lie in every Lookup. Each pull ends within its
small bounds with one line naming the peer, stores nothing of a refused answer, and
leaves no forged fact verified and no committed fact changed."""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from service_support import run_cli
from sproutsdb.client import Client
from sproutsdb.facts import Provenance, Status
from sproutsdb.games import get_game
from sproutsdb.ops.check import check_root
from sproutsdb.ops.pull import PeerRefused, PullBounds, PullReport, pull
from sproutsdb.solver.normal.rules_nimber import SmallLands
from sproutsdb.solver.ports.proofstore import FactKind, RctRecord
from sproutsdb.store import LmdbProofStore, open_store
from sproutsdb.wire import KIND_FROM_PB, KIND_TO_PB, STATUS_TO_PB, fill_column, pb, pb_grpc

ENTRY = get_game()
GAME = ENTRY.engine()
RULES = SmallLands(GAME, 12)  # the true nimbers of the small lands these tests use
SMALL = PullBounds(max_pages=20, max_facts=500, max_seconds=10)

Chunk = dict[str, Any]  # keys, values, and optionally statuses, token (an ExportChunk)


def truth(land: str) -> int:
    """The nimber of a small land, from the rules."""
    value = RULES.nimber(land)
    assert value is not None, land
    return value


def lands_below(root: str) -> list[str]:
    """Every land of the game tree of `root`, sorted."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        land = todo.pop()
        if land not in seen:
            seen.add(land)
            todo.extend(part for child in GAME.component_children(land) for part in child)
    return sorted(seen)


class FakePeer(pb_grpc.SproutsDbServicer):
    """A peer of the store's game whose Export streams are `export(kind, page_token)` and
    whose Lookup answers every key "found, nimber 0" (the liar) or "not found"."""

    def __init__(
        self,
        export: Callable[[FactKind, str], Iterator[Chunk]] | None = None,
        *,
        lies: bool = False,
    ) -> None:
        self.export = export
        self.lies = lies
        self.asked: list[str] = []  # the keys of every Lookup

    def ServerInfo(self, request: Any, context: Any) -> Any:
        return pb.ServerInfoResponse(
            api="sproutsdb.v1",
            game=ENTRY.name,
            canon_version=ENTRY.canon_version,
            limits=pb.Limits(max_keys=1000),
        )

    def Export(self, request: Any, context: Any) -> Iterator[Any]:
        kind = KIND_FROM_PB[request.kind]
        for chunk in self.export(kind, request.page_token) if self.export else ():
            keys, values = chunk["keys"], chunk["values"]
            message = pb.ExportChunk(kind=request.kind, keys=keys)
            fill_column(message, kind, values)
            statuses = chunk.get("statuses", len(keys))
            status = chunk.get("status", STATUS_TO_PB[Status.VERIFIED])
            message.status.extend([status] * statuses)
            message.provenance.extend([1] * statuses)
            message.next_page_token = chunk.get("token", "")
            yield message

    def Lookup(self, request: Any, context: Any) -> Any:
        self.asked.extend(request.keys)
        n = len(request.keys)
        column = pb.FactColumn(kind=KIND_TO_PB[FactKind.NIMBER], found=[self.lies] * n)
        column.nimbers.extend([0] * n)
        return pb.LookupResponse(columns=[column])


@pytest.fixture
def serve() -> Iterator[Callable[[FakePeer], str]]:
    """Start fake peers (a grpc server each, in threads); every one is stopped after."""
    servers: list[grpc.Server] = []

    def start(peer: FakePeer) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pb_grpc.add_SproutsDbServicer_to_server(peer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(0)


def run_pull(
    address: str, store: LmdbProofStore, root: str | None = None, bounds: PullBounds = SMALL
) -> PullReport:
    with Client(address, timeout=10.0, retries=1) as client:
        return pull(client, store, server=address, root=root, bounds=bounds)


def refused(address: str, store: LmdbProofStore, root: str | None = None, **bounds: Any) -> str:
    """The one-line error a pull ends with, checked to name the peer."""
    started = time.monotonic()
    with pytest.raises(PeerRefused) as caught:
        run_pull(address, store, root, dataclasses.replace(SMALL, **bounds))
    assert time.monotonic() - started < 20
    message = str(caught.value)
    assert f"server {address}" in message and "\n" not in message
    return message


def empty_pages_forever(kind: FactKind, token: str) -> Iterator[Chunk]:
    """Three empty pages per call, each with a new token: no end."""
    for _ in range(3):
        yield {"keys": [], "values": [], "token": f"{token}+"}
        token += "+"


def test_empty_pages_with_new_tokens_hit_the_page_bound(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    address = serve(FakePeer(empty_pages_forever))
    with open_store(tmp_path / "local") as store:
        message = refused(address, store, max_pages=7)
        assert "page bound: 7 pages (--max-pages)" in message


def test_a_repeated_page_token_is_refused_at_once_and_what_came_before_stays(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    land = "0*2.2"

    def same_token(kind: FactKind, token: str) -> Iterator[Chunk]:
        if kind is FactKind.NIMBER:
            yield {"keys": [land], "values": [truth(land)], "token": "again"}

    address = serve(FakePeer(same_token))
    with open_store(tmp_path / "local") as store:
        message = refused(address, store)
        assert "page token 'again' again" in message and "1 new facts" in message
        record = store.get_records(FactKind.NIMBER, [land])[land]
        assert record.status is Status.CLAIMED and record.value == truth(land)


def test_a_slow_peer_hits_the_time_bound(serve: Callable[[FakePeer], str], tmp_path: Path) -> None:
    def slow(kind: FactKind, token: str) -> Iterator[Chunk]:
        for n in itertools.count():
            time.sleep(0.2)
            yield {"keys": [], "values": [], "token": f"{token}.{n}"}

    address = serve(FakePeer(slow))
    with open_store(tmp_path / "local") as store:
        started = time.monotonic()
        message = refused(address, store, max_pages=1000, max_seconds=1)
        assert "time bound: 1 s (--max-seconds)" in message
        assert time.monotonic() - started < 5


def test_too_many_facts_hit_the_fact_bound(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    lands = lands_below("0*2")

    def pages(kind: FactKind, token: str) -> Iterator[Chunk]:
        if kind is FactKind.NIMBER:  # the same true facts again and again
            values = [truth(land) for land in lands]
            for n in itertools.count():
                yield {"keys": lands, "values": values, "token": f"{token}.{n}"}

    address = serve(FakePeer(pages))
    with open_store(tmp_path / "local") as store:
        message = refused(address, store, max_pages=1000, max_facts=3 * len(lands) + 1)
        assert "fact bound" in message and "(--max-facts)" in message
        assert store.count(FactKind.NIMBER) == len(lands)  # stored once, as claims


LAND = "0*2.2"
GOOD_RCT = RctRecord(0, "W", (), nim=0)
GOOD = {  # one good fact of each kind, sent with the bad one
    FactKind.NIMBER: (LAND, truth(LAND)),
    FactKind.POS_RCT: ("0*2", "*0"),
    FactKind.MISERE: ("0*2", "W"),
    FactKind.RCT: ("*0", GOOD_RCT),
}
MALFORMED = {
    "not canonical": (FactKind.NIMBER, "0.0", 0, "not in canonical form ('0*2')"),
    "a sum of lands": (FactKind.NIMBER, "0+0", 0, "not one land"),
    "unreadable": (FactKind.NIMBER, "0.Z", 0, "'0.Z'"),
    "nimber out of range": (FactKind.NIMBER, "0*3", 2**63, "a nimber is an int in 0..2**63-1"),
    "pos_rct not an id": (FactKind.POS_RCT, "0*3", "*1 ", "is not an RCT content id"),
    "misère outcome": (FactKind.MISERE, "0*3", "D", "a misère outcome is 'L' or 'W'"),
    "rct key not an id": (FactKind.RCT, "rct1:x", GOOD_RCT, "is not an RCT content id"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_fact_refuses_its_whole_page(
    case: str, serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    kind, key, value, why = MALFORMED[case]
    good = GOOD[kind]

    def page(asked: FactKind, token: str) -> Iterator[Chunk]:
        if asked is kind:
            yield {"keys": [good[0], key], "values": [good[1], value]}

    address = serve(FakePeer(page))
    with open_store(tmp_path / "local") as store:
        message = refused(address, store)
        assert f"2 {kind.value} facts, refused whole" in message and why in message
        assert store.get(kind, [good[0], key]) == {}  # nothing of the page


def test_a_key_sent_twice_in_one_page_refuses_it(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    def page(kind: FactKind, token: str) -> Iterator[Chunk]:
        if kind is FactKind.NIMBER:
            yield {"keys": [LAND, LAND], "values": [1, 1]}

    address = serve(FakePeer(page))
    with open_store(tmp_path / "local") as store:
        assert "sent twice" in refused(address, store)
        assert store.count(FactKind.NIMBER) == 0


@pytest.mark.parametrize(
    "columns",
    [
        {"keys": [LAND, "0*2"], "values": [1, 0, 0], "statuses": 3},  # a value with no key
        {"keys": [LAND, "0*2"], "values": [1, 0], "statuses": 1},  # a status missing
        {"keys": [LAND, "0*2", "0"], "values": [1, 0], "statuses": 2},  # a key alone
    ],
)
def test_columns_of_unequal_length_are_refused(
    columns: Chunk, serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    def page(kind: FactKind, token: str) -> Iterator[Chunk]:
        if kind is FactKind.NIMBER:
            yield columns

    address = serve(FakePeer(page))
    with open_store(tmp_path / "local") as store:
        assert "columns of unequal length" in refused(address, store)
        assert store.count(FactKind.NIMBER) == 0


def test_an_answer_that_cannot_be_read_is_refused(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    def page(kind: FactKind, token: str) -> Iterator[Chunk]:
        if kind is FactKind.NIMBER:  # a status no sproutsdb sends
            yield {"keys": [LAND], "values": [1], "status": 99}

    address = serve(FakePeer(page))
    with open_store(tmp_path / "local") as store:
        assert "an answer that cannot be read" in refused(address, store)
        assert store.count(FactKind.NIMBER) == 0


def committed(store: LmdbProofStore, root: str) -> dict[str, int]:
    """The true nimbers of `root`'s lands stored, and those its check verified."""
    facts = {land: truth(land) for land in lands_below(root)}
    store.put(FactKind.NIMBER, facts, provenance=Provenance(tool="test"))
    store.flush()
    assert check_root(store, root).ok
    records = store.get_records(FactKind.NIMBER, list(facts))
    verified = {k: facts[k] for k, r in records.items() if r.status is Status.VERIFIED}
    assert root in verified
    return verified


def assert_nothing_forged(store: LmdbProofStore, committed: dict[str, int]) -> None:
    """Every verified nimber is the rules' value; committed facts keep value and status."""
    for key, value in store.iter_facts(FactKind.NIMBER):
        record = store.get_records(FactKind.NIMBER, [key])[key]
        if record.status is Status.VERIFIED:
            assert value == truth(key), key
    records = store.get_records(FactKind.NIMBER, list(committed))
    assert {k: r.value for k, r in records.items()} == committed
    assert all(r.status is Status.VERIFIED for r in records.values())


def test_a_lying_lookup_verifies_nothing_and_overwrites_nothing(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    liar = FakePeer(lies=True)
    address = serve(liar)
    with open_store(tmp_path / "local") as store:
        kept = committed(store, "0*2")
        report = run_pull(address, store, "0*3")
        assert report.refuted > 0 and report.check_ok is False
        assert liar.asked and not set(liar.asked) & set(kept)  # only what the store lacks
        assert_nothing_forged(store, kept)


def test_a_lying_lookup_on_a_large_root_ends_within_the_bounds(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    address = serve(FakePeer(lies=True))
    with open_store(tmp_path / "local") as store:
        kept = committed(store, "0*2")
        message = refused(address, store, "0*8", max_pages=1000, max_facts=200)
        assert "fact bound: 200 facts" in message
        assert_nothing_forged(store, kept)
        claims = store.get_records(FactKind.NIMBER, [k for k, _ in store.iter_facts("nimber")])
        assert sum(r.status is Status.CLAIMED for r in claims.values()) > 0


def test_an_exported_lie_is_a_conflict_never_a_change(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    with open_store(tmp_path / "local") as store:
        kept = committed(store, "0*2")
        lied = next(land for land, value in kept.items() if value != 0)

        def page(kind: FactKind, token: str) -> Iterator[Chunk]:
            if kind is FactKind.NIMBER:
                yield {"keys": [lied], "values": [0]}

        address = serve(FakePeer(page))
        report = run_pull(address, store)
        assert report.conflicts == 1 and report.inserted == 0
        assert_nothing_forged(store, kept)


def test_the_command_prints_one_line_and_exits_2(
    serve: Callable[[FakePeer], str], tmp_path: Path
) -> None:
    address = serve(FakePeer(empty_pages_forever))
    store = tmp_path / "local"
    done = run_cli(
        "pull", "--server", address, "--all", "--max-pages", "5", "--store", str(store), timeout=60
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.splitlines() == [
        f"sproutsdb pull: error: server {address} hit the page bound: 5 pages (--max-pages); "
        "the pull stops, and the 0 new facts stored from it so far stay here as claims"
    ]
    bad = run_cli("pull", "--server", address, "--all", "--max-seconds", "0", timeout=60)
    assert bad.returncode == 2 and "--max-seconds S needs S > 0" in bad.stderr
