"""The client side of the commands: `--server ADDR` (with --token-file, --tls-ca) and the
Client or RemoteProofStore it names. grpc is imported only when a command connects."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from sproutsdb.games import get_game
from sproutsdb.tools.cli import UsageError

CANON_VERSION = get_game().canon_version

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


def client_from_args(args: argparse.Namespace) -> Any:
    """A Client for --server (with the token and TLS options)."""
    from sproutsdb.client import Client

    ca = None
    if getattr(args, "tls_ca", None):
        try:
            ca = Path(args.tls_ca).read_bytes()
        except OSError as error:
            raise UsageError(f"cannot read --tls-ca {args.tls_ca}: {error.strerror}") from None
    return Client(args.server, client_token(args), tls_ca=ca, timeout=30.0)


def remote_store_from_args(args: argparse.Namespace) -> Any:
    """The RemoteProofStore of --server, checked to be answering and of the same game."""
    from sproutsdb.client import RemoteProofStore

    client = client_from_args(args)
    info = client.server_info()
    if info["game"] != "sprouts" or info["canon_version"] != CANON_VERSION:
        client.close()
        raise UsageError(
            f"server {args.server} keeps {info['game']!r} positions with canon_version "
            f"{info['canon_version']}; this sproutsdb uses 'sprouts' with canon_version "
            f"{CANON_VERSION}"
        )
    return RemoteProofStore(client, owns_client=True)
