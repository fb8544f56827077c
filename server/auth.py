"""Bearer-token check of writes: reads are open to all, writes need the server's token.

A server started with a token file accepts Insert and InsertStream only with the
metadata `authorization: Bearer <token>`: without it the call is UNAUTHENTICATED, with
another token PERMISSION_DENIED. Tokens are compared in constant time and never logged.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

from sproutsdb.errors import UserError

log = logging.getLogger("sproutsdb.server.auth")

MIN_TOKEN_CHARS = 16


class TokenFileError(UserError):
    """A token file that cannot serve as the server's write token."""


def read_token_file(path: str | Path) -> str:
    """The token in a file (surrounding whitespace ignored); TokenFileError if unusable."""
    where = Path(path).expanduser()
    try:
        token = where.read_text().strip()
    except OSError as error:
        raise TokenFileError(f"cannot read token file {where}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise TokenFileError(f"token file {where} is not text") from None
    if not token:
        raise TokenFileError(f"token file {where} is empty")
    if any(c.isspace() for c in token) or not token.isprintable():
        raise TokenFileError(f"token file {where}: the token must be one word of printable text")
    if len(token) < MIN_TOKEN_CHARS:
        raise TokenFileError(
            f"token file {where}: the token has {len(token)} characters; use at least "
            f"{MIN_TOKEN_CHARS} (e.g. `openssl rand -hex 32 > {where}`)"
        )
    return token


def _denied(code: grpc.StatusCode, message: str, streaming_request: bool) -> Any:
    def abort(_request: object, context: grpc.ServicerContext) -> None:
        context.abort(code, message)

    if streaming_request:
        return grpc.stream_unary_rpc_method_handler(abort)
    return grpc.unary_unary_rpc_method_handler(abort)


class WriteTokenInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Refuse the write methods unless they carry the right bearer token."""

    def __init__(
        self,
        token: str,
        write_methods: frozenset[str],
        streaming: frozenset[str],
        on_denied: Callable[[str], None] | None = None,
    ) -> None:
        self._token = token.encode()
        self._write_methods = write_methods
        self._streaming = streaming
        self._on_denied = on_denied

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        method = details.method
        if method not in self._write_methods:
            return continuation(details)
        header = None
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                header = value if isinstance(value, str) else value.decode(errors="replace")
                break
        streaming = method in self._streaming
        if header is None:
            return self._deny(method, grpc.StatusCode.UNAUTHENTICATED,
                              "writes need a token: send the metadata "
                              "'authorization: Bearer <token>'", streaming)
        scheme, _, offered = header.partition(" ")
        if scheme.lower() != "bearer" or not offered.strip():
            return self._deny(method, grpc.StatusCode.UNAUTHENTICATED,
                              "the authorization metadata must be 'Bearer <token>'", streaming)
        if not hmac.compare_digest(offered.strip().encode(), self._token):
            return self._deny(method, grpc.StatusCode.PERMISSION_DENIED,
                              "this token may not write to this server", streaming)
        return continuation(details)

    def _deny(self, method: str, code: grpc.StatusCode, message: str, streaming: bool) -> Any:
        log.warning("refused %s: %s", method, code.name, extra={"rpc": method, "code": code.name})
        if self._on_denied is not None:
            self._on_denied(code.name)
        return _denied(code, message, streaming)
