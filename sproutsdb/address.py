"""Listen addresses of `serve`: HOST:PORT parsed, and a precise reason when one cannot be used."""

from __future__ import annotations

import socket

from sproutsdb.errors import UserError

DEFAULT_LISTEN = "127.0.0.1:50051"


class ListenError(UserError):
    """The address cannot be listened on (in use, not local, malformed)."""


def split_address(address: str) -> tuple[str, int]:
    """(host, port) of a HOST:PORT listen address (brackets of an IPv6 host removed)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ListenError(f"listen address {address!r} must be HOST:PORT (e.g. {DEFAULT_LISTEN})")
    return host.strip("[]"), int(port)


def why_not_listening(address: str) -> str:
    """Why gRPC could not listen on `address`, found by binding a probe socket to it."""
    host, port = split_address(address)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        return f"cannot resolve {host!r}: {error.strerror}"
    family, kind, proto, _, sockaddr = infos[0]
    probe = socket.socket(family, kind, proto)
    try:
        probe.bind(sockaddr)
    except OSError as error:
        if error.errno == 98:  # EADDRINUSE
            return (
                "the address is already in use (another sproutsdb serve, or another "
                "program, is listening there; stop it or choose another --listen port)"
            )
        return error.strerror or str(error)
    finally:
        probe.close()
    return "gRPC refused the address"
