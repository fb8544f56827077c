"""Security of writes: the token never reaches the server's log (at any level, whatever a
client sends), and the TLS path with a certificate made here: a token over TLS writes, a
client that trusts another CA or speaks plaintext is refused."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import grpc
import pytest

from service_support import ServerProcess
from sproutsdb.client import AccessDeniedError, Client, ServiceError
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.wire import pb, pb_grpc

TOKEN = "tok-7f3a9c1e5b2d4f6a8c0e-never-logged"
WRONG = "wrong-9e8d7c6b5a4f3e2d1c0b-never-logged"

needs_openssl = pytest.mark.skipif(
    shutil.which("openssl") is None, reason="needs the openssl command to make a certificate"
)


def certificate(where: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    cert, key = where / f"{name}.pem", where / f"{name}-key.pem"
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
            f"/CN={name}",
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
    return cert, key


def exercise(address: str, ca: bytes | None) -> None:
    """Writes with the token, without it, with a wrong one and with malformed headers."""
    with Client(address, token=TOKEN, tls_ca=ca) as writer:
        assert writer.insert(FactKind.NIMBER, {"0*5": 1}).inserted == 1
        assert writer.insert_stream([(FactKind.NIMBER, "0*4", 1)]).inserted == 1
        assert writer.get(FactKind.NIMBER, ["0*5", "0*4"]) == {"0*5": 1, "0*4": 1}
    with Client(address, token=WRONG, tls_ca=ca) as intruder:
        with pytest.raises(AccessDeniedError):
            intruder.insert(FactKind.NIMBER, {"0*3": 1})
        with pytest.raises(AccessDeniedError):
            intruder.insert_stream([(FactKind.NIMBER, "0*3", 1)])
    creds = grpc.ssl_channel_credentials(ca) if ca is not None else None
    channel = (
        grpc.secure_channel(address, creds) if creds is not None else grpc.insecure_channel(address)
    )
    with channel:
        stub = pb_grpc.SproutsDbStub(channel)
        request = pb.InsertRequest(kind=pb.FACT_KIND_NIMBER, keys=["0*3"], nimbers=[1])
        for header in (
            f"Basic {TOKEN}",
            f"Bearer  {WRONG} x",
            f"bearer {WRONG[:-1]}",
            f"{WRONG}",
            f"Bearer {TOKEN}x",
        ):
            with pytest.raises(grpc.RpcError) as caught:
                stub.Insert(request, metadata=(("authorization", header),), timeout=10)
            assert caught.value.code() in (
                grpc.StatusCode.UNAUTHENTICATED,
                grpc.StatusCode.PERMISSION_DENIED,
            )
            assert TOKEN not in (caught.value.details() or "")
    with Client(address, tls_ca=ca) as reader:
        assert reader.get(FactKind.NIMBER, ["0*3"]) == {}  # nothing written without it


def assert_never_logged(log: str) -> None:
    assert log.strip(), "the server logged nothing: the test would prove nothing"
    for secret in (TOKEN, WRONG, WRONG[:-1], TOKEN[8:-8]):
        assert secret not in log, f"a token reached the server's log: {secret[:6]}..."


def test_the_token_is_never_logged_even_at_debug(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(TOKEN + "\n")
    log = tmp_path / "server.log"
    with ServerProcess(
        tmp_path / "store",
        "--no-seed",
        "--token-file",
        str(tmp_path / "token"),
        "--log-level",
        "debug",
        log=log,
    ) as server:
        exercise(server.address, None)
        assert server.stop() == 0
    text = log.read_text()
    assert "refused" in text and "PERMISSION_DENIED" in text  # the refusals were logged
    assert_never_logged(text)


@needs_openssl
def test_tls_with_a_certificate_made_here(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path, "sproutsdb-test")
    other, _ = certificate(tmp_path, "someone-else")
    (tmp_path / "token").write_text(TOKEN + "\n")
    log = tmp_path / "server.log"
    with ServerProcess(
        tmp_path / "store",
        "--no-seed",
        "--token-file",
        str(tmp_path / "token"),
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
        log=log,
    ) as server:
        ca = cert.read_bytes()
        with Client(server.address, tls_ca=ca) as client:
            info = client.server_info()
            assert info["tls"] and info["writes_need_token"]
        exercise(server.address, ca)
        for stranger in (
            Client(server.address, tls_ca=other.read_bytes(), retries=1, timeout=10),
            Client(server.address, retries=1, timeout=10),
        ):
            with stranger, pytest.raises(ServiceError) as caught:
                stranger.get(FactKind.NIMBER, ["0*5"])
            assert caught.value.code == grpc.StatusCode.UNAVAILABLE
        assert server.stop() == 0
    assert_never_logged(log.read_text())
