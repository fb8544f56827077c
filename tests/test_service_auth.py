"""Tokens, TLS and the listening socket of `sproutsdb serve` (real subprocesses, 127.0.0.1)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.client import AccessDeniedError, Client, ServiceError
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.wire import pb, pb_grpc

TOKEN = "s3cret-token-for-the-tests-0123456789"


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Path]]:
    base = tmp_path_factory.mktemp("auth")
    token_file = base / "token"
    token_file.write_text(TOKEN + "\n")
    with ServerProcess(base / "store", "--no-seed", "--token-file", str(token_file)) as proc:
        yield proc, token_file


def test_reads_are_open_writes_need_the_token(secured: tuple[ServerProcess, Path]) -> None:
    server, _ = secured
    with Client(server.address) as anonymous:
        assert anonymous.server_info()["writes_need_token"]
        assert anonymous.get(FactKind.NIMBER, ["0*5"]) == {}
        with pytest.raises(AccessDeniedError) as caught:
            anonymous.insert(FactKind.NIMBER, {"0*5": 1})
        assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED
    with Client(server.address, token="wrong-token-wrong-token") as intruder:
        with pytest.raises(AccessDeniedError) as caught:
            intruder.insert(FactKind.NIMBER, {"0*5": 1})
        assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(AccessDeniedError):
            intruder.insert_stream([(FactKind.NIMBER, "0*5", 1)])
    with grpc.insecure_channel(server.address) as channel:  # not even a Bearer header
        stub = pb_grpc.SproutsDbStub(channel)
        with pytest.raises(grpc.RpcError) as raw:
            stub.Insert(
                pb.InsertRequest(kind=pb.FACT_KIND_NIMBER, keys=["0*5"], nimbers=[1]),
                metadata=(("authorization", "Basic abc"),),
                timeout=10,
            )
        assert raw.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with Client(server.address) as reader:
        assert reader.get(FactKind.NIMBER, ["0*5"]) == {}  # nothing was written
        assert reader.stats()["errors"].get("PERMISSION_DENIED", 0) >= 2
    with Client(server.address, token=TOKEN) as writer:
        assert writer.insert(FactKind.NIMBER, {"0*5": 1}).status == ["inserted"]
        assert writer.insert_stream([(FactKind.NIMBER, "0*4", 1)]).inserted == 1
        assert writer.get(FactKind.NIMBER, ["0*5", "0*4"]) == {"0*5": 1, "0*4": 1}


def test_cli_writes_with_a_token_file(secured: tuple[ServerProcess, Path]) -> None:
    server, token_file = secured
    denied = run_cli("solve", "0*3", "--server", server.address, "--quiet")
    assert denied.returncode == 2 and "refused to write" in denied.stderr
    assert len(denied.stderr.strip().splitlines()) == 1
    done = run_cli(
        "solve", "0*3", "--server", server.address, "--quiet", "--token-file", str(token_file)
    )
    assert done.returncode == 0, done.stderr
    assert "0*3: W" in done.stdout and "on server" in done.stdout


def test_a_second_server_on_a_busy_port_fails_clearly(
    secured: tuple[ServerProcess, Path], tmp_path: Path
) -> None:
    server, _ = secured
    busy = run_cli(
        "serve",
        "--store",
        str(tmp_path / "other"),
        "--listen",
        server.address,
        "--no-seed",
        timeout=60,
    )
    assert busy.returncode == 2
    assert f"cannot listen on {server.address}: the address is already in use" in busy.stderr
    assert "Traceback" not in busy.stderr
    with Client(server.address) as c:  # the first one still serves
        assert c.health() == "SERVING"


def test_bad_token_files_are_refused(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("abc")
    done = run_cli(
        "serve",
        "--store",
        str(tmp_path / "s"),
        "--token-file",
        str(short),
        "--listen",
        "127.0.0.1:0",
        "--no-seed",
    )
    assert done.returncode == 2 and "use at least 16" in done.stderr
    done = run_cli(
        "serve",
        "--store",
        str(tmp_path / "s"),
        "--token-file",
        str(tmp_path / "missing"),
        "--listen",
        "127.0.0.1:0",
        "--no-seed",
    )
    assert done.returncode == 2 and "cannot read token file" in done.stderr


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    with ServerProcess(
        tmp_path / "store", "--no-seed", "--tls-cert", str(cert), "--tls-key", str(key)
    ) as server:
        with Client(server.address, tls_ca=cert.read_bytes()) as c:
            assert c.server_info()["tls"]
            assert c.insert(FactKind.NIMBER, {"0*2": 0}).inserted == 1
        with Client(server.address, retries=1, timeout=5) as plain, pytest.raises(ServiceError):
            plain.server_info()
        done = run_cli("query", "0*2", "--server", server.address, "--tls-ca", str(cert), "--json")
        assert done.returncode == 0, done.stderr
        assert '"nimber": 0' in done.stdout
