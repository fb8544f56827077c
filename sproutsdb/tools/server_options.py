"""The client side of the commands: `--server ADDR` (with --token-file, --tls-ca) and the
Client or RemoteProofStore it names. grpc is imported only when a command connects."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from sproutsdb.tools.cli import UsageError

TOKEN_ENV = "SPROUTSDB_TOKEN"


def add_client_options(
    parser: argparse.ArgumentParser, *, writes: bool = True, server_help: str | None = None
) -> None:
    """--server, and for commands that write --token-file; --tls-ca for TLS servers."""
    parser.add_argument(
        "--server",
        metavar="ADDR",
        default=None,
        help=server_help or "use the sproutsdb server at HOST:PORT instead of a local store",
    )
    if writes:
        parser.add_argument(
            "--token-file",
            metavar="F",
            default=None,
            help=f"file holding the server's write token (default: ${TOKEN_ENV})",
        )
    parser.add_argument(
        "--tls-ca",
        metavar="PEM",
        default=None,
        help="connect with TLS, trusting this CA certificate (PEM)",
    )


def client_token(args: argparse.Namespace) -> str | None:
    """The write token: from --token-file, else $SPROUTSDB_TOKEN, else None."""
    path = getattr(args, "token_file", None)
    if path:
        from sproutsdb.server.auth import read_token_file

        return read_token_file(path)
    return os.environ.get(TOKEN_ENV) or None


def tls_ca_of(args: argparse.Namespace) -> bytes | None:
    """The --tls-ca certificate's bytes (None without TLS); an unreadable file: UsageError."""
    if not getattr(args, "tls_ca", None):
        return None
    try:
        return Path(args.tls_ca).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read --tls-ca {args.tls_ca}: {error.strerror}") from None


def client_from_args(args: argparse.Namespace) -> Any:
    """A Client for --server (with the token and TLS options)."""
    from sproutsdb.client import Client

    return Client(args.server, client_token(args), tls_ca=tls_ca_of(args), timeout=30.0)
