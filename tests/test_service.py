"""Every RPC of sproutsdb.v1 against a real server subprocess on 127.0.0.1 (nothing mocked).

One server per module, its store seeded from the RCT table of 0*4 built for the run.
Bad input must get INVALID_ARGUMENT with a precise message and change nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from service_support import ServerProcess, build_table
from sproutsdb.client import Client, InvalidRequestError
from sproutsdb.formats.rcttable import load_table
from sproutsdb.solver.cgt.ident import tree_id
from sproutsdb.solver.ports.proofstore import FactKind, RctRecord
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.wire import SERVICE_NAME, pb, pb_grpc

GAME = SproutsGame()


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_table("0*4", tmp_path_factory.mktemp("table") / "s4.rcttable")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, table: Path) -> Iterator[ServerProcess]:
    base = tmp_path_factory.mktemp("service")
    # placeholder values test the wire here; the verifier (tests/test_trust.py) would refute
    # the false ones while a test reads them back
    with ServerProcess(base / "store", "--seed", str(table), "--no-verify") as proc:
        yield proc


@pytest.fixture()
def client(server: ServerProcess) -> Iterator[Client]:
    with Client(server.address, timeout=30) as c:
        yield c


@pytest.fixture()
def fresh_client(tmp_path: Path, table: Path) -> Iterator[Client]:
    """A client of a server of its own, for a test whose assertions depend on what the store
    holds before it: the shared server's store depends on which tests ran first."""
    with (
        ServerProcess(tmp_path / "store", "--seed", str(table), "--no-verify") as proc,
        Client(proc.address, timeout=30) as c,
    ):
        yield c


@pytest.fixture()
def stub(server: ServerProcess) -> Iterator[object]:
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.SproutsDbStub(channel)


def invalid(call: object) -> str:
    """The details of an INVALID_ARGUMENT raised by a raw stub call."""
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    return str(caught.value.details())


# --- ServerInfo, health, reflection ---------------------------------------------------------


def test_server_info_health_and_reflection(server: ServerProcess, client: Client) -> None:
    info = client.server_info()
    assert info["api"] == "sproutsdb.v1" and info["game"] == "sprouts"
    assert info["canon_version"] == CANON_VERSION and info["schema_version"] == 1
    assert info["limits"]["max_keys"] == 10_000 and not info["writes_need_token"]
    assert [t["root"] for t in info["rct_tables"]] == ["0*4"]
    assert client.health() == "SERVING" and client.health(SERVICE_NAME) == "SERVING"
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    with grpc.insecure_channel(server.address) as channel:
        replies = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
        )
        names = {s.name for r in replies for s in r.list_services_response.service}
    assert {SERVICE_NAME, "grpc.health.v1.Health"} <= names


# --- Lookup and Insert ----------------------------------------------------------------------


def test_insert_lookup_round_trip_canonicalises(fresh_client: Client) -> None:
    client = fresh_client
    facts = {"0*5": 1, "0.0.}]!": 0, "1a1a": 2, "2ab2ba": 3}  # one in GLOP 1.x
    done = client.insert(FactKind.NIMBER, facts)
    assert done.canonical == ["0*5", "0*2", "1a1a", "2ab2ba"]
    assert done.status == ["inserted"] * 4 and done.inserted == 4 and not done.conflicts
    again = client.insert(FactKind.NIMBER, {"0*2": 0, "0*5": 1})
    assert again.status == ["unchanged", "unchanged"] and again.inserted == 0
    found = client.lookup(["0.0.}]!", "0*5", "0*9", "2ab2ba"], with_records=True)
    assert found.canonical == ["0*2", "0*5", "0*9", "2ab2ba"]
    assert found.values[FactKind.NIMBER] == [0, 1, None, 3]
    record = found.records[FactKind.NIMBER][1]
    assert record is not None and record.status.value == "claimed"
    assert found.provenance[record.provenance].tool == "sproutsdb-client"
    assert client.get(FactKind.NIMBER, ["0*5", "0*9"]) == {"0*5": 1}


def test_conflict_is_reported_with_the_stored_value_and_never_applied(fresh_client: Client) -> None:
    client = fresh_client
    client.insert(FactKind.NIMBER, {"0.AB|AB": 2})
    done = client.insert(FactKind.NIMBER, {"0.AB|AB": 5, "0*3": 1})
    assert done.status == ["conflict", "inserted"]
    (conflict,) = done.conflicts
    assert (conflict.key, conflict.stored, conflict.offered, conflict.index) == ("0.AB|AB", 2, 5, 0)
    assert client.get(FactKind.NIMBER, ["0.AB|AB"]) == {"0.AB|AB": 2}
    assert client.stats()["conflicts"] >= 1


def test_misere_and_pos_rct_and_multi_kind_lookup(fresh_client: Client, table: Path) -> None:
    client = fresh_client
    client.insert(FactKind.MISERE, {"0*4": "W", "0*2+0*2": "L"})
    t = load_table(table)
    positions = ["0*4", "0*3", "0*2+0*2"]
    result = client.lookup(positions, (FactKind.POS_RCT, FactKind.MISERE))
    assert result.values[FactKind.POS_RCT] == [t.rct_id_of(p) for p in positions]
    assert result.values[FactKind.MISERE] == ["W", None, "L"]
    with pytest.raises(InvalidRequestError, match="content ids"):
        client.lookup(["0*4"], (FactKind.NIMBER, FactKind.RCT))


def _table_trees(table: Path, n: int) -> list[str]:
    """Content ids of n trees of the served table a misère node may hold (not 0, *1, or
    H + *1), sorted."""
    ids = [
        cid
        for cid, record in load_table(table).records()
        if record.nim is None and record.plus1_of is None
    ]
    assert len(ids) >= n
    return sorted(ids[:n])


def test_misere_node_keys_with_rct_parts_are_stored_and_looked_up(
    fresh_client: Client, table: Path
) -> None:
    client = fresh_client
    a, b = _table_trees(table, 2)
    keys = [f"0.0.}}]! *1 {a}", f"! {a} {b}", f"0*3 *2 {b} {b}", "0*5 *1"]
    done = client.insert(FactKind.MISERE, dict.fromkeys(keys, "L"))
    assert done.status == ["inserted"] * 4
    canonical = [f"0*2 *1 {a}", *keys[1:]]  # the position part is canonicalised
    assert done.canonical == canonical
    result = client.lookup([*keys, f"0*2 *1 {a}", f"0*3 *2 {b}"], (FactKind.MISERE,))
    assert result.canonical == [*canonical, f"0*2 *1 {a}", f"0*3 *2 {b}"]
    assert result.values[FactKind.MISERE] == ["L"] * 5 + [None]
    assert client.insert(FactKind.MISERE, {keys[1]: "L"}).status == ["unchanged"]
    conflict = client.insert(FactKind.MISERE, {canonical[0]: "W"}).conflicts[0]
    assert (conflict.key, conflict.stored, conflict.offered) == (canonical[0], "L", "W")
    exported = dict(client.export_facts(FactKind.MISERE))
    assert all(exported[key] == "L" for key in canonical)
    # lookups of several kinds read positions: a node key there is named as such
    with pytest.raises(InvalidRequestError, match=r"key 1: .* is a misère node key"):
        client.lookup(["0*5", keys[2]], (FactKind.POS_RCT, FactKind.MISERE))


def test_lookup_splits_batches_larger_than_the_limit(client: Client) -> None:
    keys = [f"0*{1 + i % 40}" for i in range(25_000)]
    assert len(client.lookup(keys).canonical) == 25_000


# --- RCTs -----------------------------------------------------------------------------------


def test_get_rcts_and_closure(client: Client, table: Path) -> None:
    t = load_table(table)
    root = t.rct_id_of("0*4")
    assert root is not None
    records, missing = client.get_rcts([root, "rct1:" + "0" * 32])
    assert records == {root: t.algebra.record(t.rct_of("0*4"))} and missing == ["rct1:" + "0" * 32]
    closure, missing = client.get_rcts([root], closure=True)
    assert not missing and list(closure)[-1] == root
    heights = [r.height for r in closure.values()]
    assert heights == sorted(heights)  # children first
    for record in closure.values():
        assert set(record.children) <= set(closure)


def test_stream_rct_table_rebuilds_the_served_table(client: Client, table: Path) -> None:
    served = client.rct_table(chunk_size=7)  # many small chunks
    original = load_table(table)
    assert served.header["root"] == "0*4"
    assert {p: served.rct_id_of(p) for p in served.positions} == {
        p: original.rct_id_of(p) for p in original.positions
    }
    assert dict(served.records()) == dict(original.records())
    with pytest.raises(Exception, match="no RCT table with root"):
        client.rct_table("0*9")


def test_insert_rct_records_are_checked(client: Client) -> None:
    record = RctRecord(height=1, outcome="L", children=("*0", "*2"))  # not a nim-heap
    cid = tree_id(record.children)
    done = client.insert(FactKind.RCT, {cid: record})
    assert done.status in (["inserted"], ["unchanged"])
    assert client.get_rcts([cid])[0] == {cid: record}
    forged = "rct1:" + "f" * 32
    with pytest.raises(InvalidRequestError, match="does not match the record"):
        client.insert(FactKind.RCT, {forged: record})
    with pytest.raises(InvalidRequestError, match="not an RCT content id"):
        client.insert(FactKind.POS_RCT, {"0*7": "nope"})


# --- Children, Export, InsertStream ---------------------------------------------------------


def test_children(client: Client) -> None:
    got = client.children(["0*2", "0.0.}]!", "1a1a"])
    assert got["0*2"] == tuple(sorted(GAME.children("0*2")))
    assert got["0.0.}]!"] == got["0*2"]
    assert got["1a1a"] == tuple(sorted(GAME.children("1a1a")))


def test_export_is_chunked_and_resumable(client: Client, table: Path) -> None:
    every = list(client.export_facts(FactKind.POS_RCT, chunk_size=100))
    assert len(every) == load_table(table).counts["positions"]
    assert [k for k, _ in every] == sorted(k for k, _ in every)  # store order
    pages = client.export(FactKind.POS_RCT, chunk_size=300, limit=700)
    first = list(pages)
    assert [len(p.facts) for p in first] == [300, 300, 100]
    resumed = [
        f
        for p in client.export(
            FactKind.POS_RCT, page_token=first[-1].next_page_token, chunk_size=500
        )
        for f in p.facts
    ]
    assert [f for p in first for f in p.facts] + resumed == every
    assert first[0].provenance and all(
        r.provenance in first[0].provenance for r in first[0].records
    )


def test_insert_stream_bulk(fresh_client: Client) -> None:
    client = fresh_client
    lands = sorted({land for c in GAME.children("0*5") for land in GAME.components(c)})
    facts = [(FactKind.MISERE, f"{land}+0*2", "W") for land in lands]
    client.insert(FactKind.NIMBER, {"0*3": 1})
    facts += [(FactKind.NIMBER, "0*5", 1), (FactKind.NIMBER, "0*3", 9)]  # 0*3 is 1: conflict
    result = client.insert_stream(facts, chunk_size=5)
    assert result.facts == len(facts) and result.chunks >= len(lands) // 5
    assert result.conflict_count == 1 and result.conflicts[0].stored == 1
    assert result.conflicts[0].index == len(facts) - 1
    assert client.get(FactKind.MISERE, [f"{lands[0]}+0*2"]) == {f"{lands[0]}+0*2": "W"}


# --- bad input changes nothing --------------------------------------------------------------


def test_unparseable_positions_are_invalid_argument(stub: object) -> None:
    details = invalid(lambda: stub.Lookup(pb.LookupRequest(keys=["0*2", "AB|A"]), timeout=10))
    assert details.startswith("key 1: uppercase letter 'B' seen once")
    assert invalid(lambda: stub.Children(pb.ChildrenRequest(positions=["0.A"]), timeout=10))
    assert "limit is 1,000" in invalid(
        lambda: stub.Lookup(pb.LookupRequest(keys=["0*5000"]), timeout=10)
    )


def test_a_bad_item_rejects_the_whole_insert(client: Client, stub: object) -> None:
    before = client.stats()["facts"]
    request = pb.InsertRequest(
        kind=pb.FACT_KIND_NIMBER, keys=["0*6", "0*7", "AB|A"], nimbers=[0, 0, 1]
    )
    assert "key 2: uppercase letter" in invalid(lambda: stub.Insert(request, timeout=10))
    for keys, nimbers, message in [
        (["0*6", "0*3+0*2"], [0, 1], "nimber facts are kept per land"),
        (["0*6", "!"], [0, 0], "the empty position"),
        (["0*6", "0.0.}]!", "0*2"], [0, 0, 1], "keys 1 and 2 are the same position"),
        (["0*6", "0*7"], [0], "2 keys but 1 nimbers"),
    ]:
        request = pb.InsertRequest(kind=pb.FACT_KIND_NIMBER, keys=keys, nimbers=nimbers)
        assert message in invalid(lambda r=request: stub.Insert(r, timeout=10))
    request = pb.InsertRequest(kind=pb.FACT_KIND_MISERE, keys=["0*6"], texts=["X"])
    assert "'L' or 'W'" in invalid(lambda: stub.Insert(request, timeout=10))
    request = pb.InsertRequest(kind=pb.FACT_KIND_MISERE, keys=["0*6"], nimbers=[1])
    assert "take their values in texts" in invalid(lambda: stub.Insert(request, timeout=10))
    request = pb.InsertRequest(kind=0, keys=["0*6"], nimbers=[1])
    assert "kind must be one of" in invalid(lambda: stub.Insert(request, timeout=10))
    assert client.get(FactKind.NIMBER, ["0*6", "0*7"]) == {}
    assert client.stats()["facts"] == before


def test_bad_misere_node_keys_are_refused_and_nothing_is_written(
    client: Client, stub: object, table: Path
) -> None:
    (a,) = _table_trees(table, 1)
    unknown = "rct1:" + "0" * 32
    before = client.stats()["facts"]
    for keys, message in [
        (
            ["0*7 *1", "0*7 " + " ".join(sorted([a, unknown]))],
            f"key 1: content id {unknown} names no RCT stored",
        ),
        (["0*7 *1", f"0*7 *1 {a}", "0*7 *1 *1"], "key 2: '\\*1' twice at column 8"),
        ([f"0*7 {a} *1"], "key 0: '\\*1' out of place"),
        (["0*7 rct1:abc"], "key 0: 'rct1:abc' at column 5 .* is neither '\\*1' nor an RCT"),
        ([f"0*7 {a}  *2"], "key 0: empty token"),
        ([f"*2 {a}"], "key 0: a misère node key starts with its position part"),
        ([f"0.A *1 {a}"], "key 0: uppercase letter 'A' seen once"),  # the parser's message
        (["!"], "key 0: '!' alone is no misère node key"),
        (["0*7 *1", "2"], "key 1: '2' is the empty position, a misère win"),  # a dead spot
        ([f"0*3 *1 {a}", f"0.0.0.}}]! *1 {a}"], "keys 0 and 1 are the same misère node"),
    ]:
        texts = ["L"] * (len(keys) - 1) + ["W"]
        request = pb.InsertRequest(kind=pb.FACT_KIND_MISERE, keys=keys, texts=texts)
        details = invalid(lambda r=request: stub.Insert(r, timeout=10))
        assert re.search(message, details), (message, details)
    request = pb.LookupRequest(keys=["0*7", "0*7 *1 *1"], kinds=[pb.FACT_KIND_MISERE])
    assert "key 1: '*1' twice" in invalid(lambda: stub.Lookup(request, timeout=10))
    assert client.stats()["facts"] == before
    assert client.get(FactKind.MISERE, ["0*7 *1", f"0*7 *1 {a}", f"0*3 *1 {a}"]) == {}
    assert client.lookup([f"0*7 {unknown}"], (FactKind.MISERE,)).values[FactKind.MISERE] == [
        None
    ]  # a read may name any well-formed id


def test_oversized_batches_are_refused_with_the_limit(client: Client, stub: object) -> None:
    before = client.stats()["facts"]
    keys = [f"0*{1 + i % 30}" for i in range(10_001)]
    assert "10,001 items in one request, the limit is 10,000" in invalid(
        lambda: stub.Lookup(pb.LookupRequest(keys=keys), timeout=30)
    )
    lands = [f"0*{i}" for i in range(1, 10_002)]
    request = pb.InsertRequest(kind=pb.FACT_KIND_NIMBER, keys=lands, nimbers=[0] * len(lands))
    assert "the limit is 10,000" in invalid(lambda: stub.Insert(request, timeout=30))
    long = "0." * 3000 + "0"
    request = pb.InsertRequest(kind=pb.FACT_KIND_MISERE, keys=[long], texts=["W"])
    assert "the limit is 4,096 bytes" in invalid(lambda: stub.Insert(request, timeout=10))
    assert client.stats()["facts"] == before


def test_bad_page_token_and_stream_chunk_errors(client: Client, stub: object) -> None:
    request = pb.ExportRequest(kind=pb.FACT_KIND_NIMBER, page_token="garbage!")
    assert "not a token this server issued" in invalid(
        lambda: list(stub.Export(request, timeout=10))
    )
    with pytest.raises(InvalidRequestError, match=r"chunk 1 .*uppercase letter.*1 chunks"):
        client.insert_stream(
            [(FactKind.MISERE, "0*2+0*9", "W"), (FactKind.MISERE, "AB|A", "L")], chunk_size=1
        )
    assert client.get(FactKind.MISERE, ["0*2+0*9"]) == {"0*2+0*9": "W"}  # chunk 0 committed


def test_stats_counts_requests_and_facts(fresh_client: Client) -> None:
    client = fresh_client
    client.insert(FactKind.NIMBER, {"0*5": 1})  # a commit
    client.lookup(["0*5"])
    with pytest.raises(InvalidRequestError):
        client.lookup(["AB|A"])
    stats = client.stats()
    assert stats["requests"]["Lookup"] >= 1 and stats["errors"]["INVALID_ARGUMENT"] >= 1
    assert stats["facts"]["rct"] >= 35 and stats["facts"]["pos_rct"] == 1505
    assert stats["commits"] >= 1 and stats["commit_ms"]["p99"] > 0
    assert stats["uptime_seconds"] > 0


def test_verify_rederives_a_solved_position_and_names_holes(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # A server of its own: the module's shared store holds test facts chosen for other
    # purposes, which Verify would rightly report as inconsistent.
    from sproutsdb.client.remote import RemoteProofStore
    from sproutsdb.solver.normal.solver import NormalSolver

    base = tmp_path_factory.mktemp("verify")
    with (
        ServerProcess(base / "store", "--no-seed") as proc,
        Client(proc.address, timeout=60) as client,
    ):
        solver = NormalSolver(GAME, RemoteProofStore(client))
        assert solver.nimber("0*5") == 1
        solver.flush()
        report = client.verify("0.0.0.0.0.}]!")
        assert report["position"] == "0*5"
        assert (report["ok"], report["nimber"], report["outcome"]) == (True, 1, "W")
        assert report["facts_used"] > 0
        assert not report["missing"] and not report["inconsistent"]

        # A position nobody solved: the proof has holes, and Verify says where.
        hole = client.verify("0*9")
        assert hole["ok"] is False and hole["missing"]
        assert {"couple", "needed_by", "missing"} <= set(hole["missing"][0])


def test_verify_refuses_bad_positions(stub: object) -> None:
    message = invalid(lambda: stub.Verify(pb.VerifyRequest(position="AB|A")))  # type: ignore[attr-defined]
    assert "seen once" in message
