"""Which store a command works on, from its flags: `--store DIR`, or `--server ADDR` with
`--token-file` and `--tls-ca`, as a StoreLocation; the stores are opened by the library's
verbs (sproutsdb.ops.stores)."""

from __future__ import annotations

import argparse

from sproutsdb.ops.stores import StoreLocation
from sproutsdb.tools.server_options import client_token, tls_ca_of


def location_of(args: argparse.Namespace, game: str | None = None) -> StoreLocation:
    """Where the flags put the store of `game` (default Sprouts): the --server's (with its
    token and TLS certificate), else the embedded store at --store."""
    if getattr(args, "server", None):
        return StoreLocation(
            server=args.server, token=client_token(args), tls_ca=tls_ca_of(args), game=game
        )
    return StoreLocation(path=args.store, game=game)
