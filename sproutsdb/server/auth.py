"""Bearer tokens of writes: reads are open to all, writes need one of the server's tokens.

A server started with a token file accepts Insert and InsertStream only with the
metadata `authorization: Bearer <secret>`: without it the call is UNAUTHENTICATED, with
an unknown secret PERMISSION_DENIED. Secrets are compared in constant time and never
logged; a token is known by its name, which goes into the provenance of what it writes.

Token file (server): one token per line, blank lines and `#` comments ignored::

    alice:9f3c...e1            # name:secret, may write
    reader:77aa...02:ro        # read-only: its writes are PERMISSION_DENIED
    bot:c0ff...ee:rate=5,batch=1000

Options after the secret (`:` or `,` separated): `ro` (read-only), `rw` (the default),
`rate=R` (at most R write calls per second, bursts of up to max(1, R); beyond it
RESOURCE_EXHAUSTED) and `batch=N` (at most N facts per Insert request or InsertStream
chunk). A file holding one bare secret (the old format) is one writing token named
"default". A client's token file holds a bare secret or a `name:secret...` line: the
client sends the secret of its first token.
"""

from __future__ import annotations

import hmac
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from sproutsdb.errors import UserError

log = logging.getLogger("sproutsdb.server.auth")

MIN_TOKEN_CHARS = 16
DEFAULT_NAME = "default"
_NAME = re.compile(r"[A-Za-z0-9_.@-]{1,64}")


class TokenFileError(UserError):
    """A token file that cannot serve as the server's write token."""


@dataclass
class Token:
    """One named token: its secret, whether it may write, and its limits."""

    name: str
    secret: bytes = field(repr=False)
    read_only: bool = False
    rate: float | None = None  # write calls per second
    max_batch: int | None = None  # facts per request / stream chunk
    _allowance: float = field(default=0.0, repr=False)
    _last: float = field(default=0.0, repr=False)

    def take_call(self, now: float) -> bool:
        """Token bucket of the rate limit: True when one more write call is allowed."""
        if self.rate is None:
            return True
        burst = max(1.0, self.rate)
        if self._last == 0.0:
            self._allowance = burst
        else:
            self._allowance = min(burst, self._allowance + (now - self._last) * self.rate)
        self._last = now
        if self._allowance < 1.0:
            return False
        self._allowance -= 1.0
        return True


class TokenBook:
    """The server's tokens; `identify` finds the one a secret belongs to."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        if not tokens:
            raise TokenFileError("no token given")
        self.tokens = list(tokens)
        self._lock = threading.Lock()

    @classmethod
    def single(cls, secret: str, name: str = DEFAULT_NAME) -> TokenBook:
        return cls([Token(name, secret.encode())])

    def identify(self, offered: str) -> Token | None:
        """The token whose secret is `offered`: every secret is compared (constant time
        each, no early exit), so timing tells nothing about which one nearly matched."""
        raw = offered.encode()
        found = None
        for token in self.tokens:
            if hmac.compare_digest(raw, token.secret):
                found = token
        return found

    def admit(self, token: Token) -> bool:
        """Count one write call against the token's rate limit."""
        with self._lock:
            return token.take_call(time.monotonic())

    def names(self) -> list[str]:
        return [t.name for t in self.tokens]


def _check_secret(secret: str, where: Path, line: int) -> None:
    at = f"token file {where}, line {line}" if line else f"token file {where}"
    if any(c.isspace() for c in secret) or not secret.isprintable():
        raise TokenFileError(f"{at}: the token must be one word of printable text")
    if len(secret) < MIN_TOKEN_CHARS:
        raise TokenFileError(
            f"{at}: the token has {len(secret)} characters; use at least "
            f"{MIN_TOKEN_CHARS} (e.g. `openssl rand -hex 32 > {where}`)"
        )


def _parse_options(token: Token, options: Iterable[str], where: Path, line: int) -> None:
    for option in options:
        option = option.strip()
        name, _, value = option.partition("=")
        try:
            if option == "ro":
                token.read_only = True
            elif option == "rw":
                token.read_only = False
            elif name == "rate" and float(value) > 0:
                token.rate = float(value)
            elif name == "batch" and int(value) > 0:
                token.max_batch = int(value)
            elif option:
                raise ValueError
        except ValueError:
            raise TokenFileError(
                f"token file {where}, line {line}: unknown option {option!r:.40} (expected "
                "ro, rw, rate=R or batch=N with R, N > 0)"
            ) from None


def _read_lines(path: str | Path) -> tuple[Path, list[tuple[int, str]]]:
    where = Path(path).expanduser()
    try:
        text = where.read_text()
    except OSError as error:
        raise TokenFileError(f"cannot read token file {where}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise TokenFileError(f"token file {where} is not text") from None
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        content = raw.strip()
        if content.startswith("#"):
            continue
        content = re.split(r"\s#", content, maxsplit=1)[0].strip()  # a trailing comment
        if content:
            lines.append((number, content))
    if not lines:
        raise TokenFileError(f"token file {where} is empty")
    return where, lines


def read_token_book(path: str | Path) -> TokenBook:
    """The server's tokens from a token file (see the module docstring)."""
    where, lines = _read_lines(path)
    if len(lines) == 1 and ":" not in lines[0][1]:
        _check_secret(lines[0][1], where, 0)
        return TokenBook.single(lines[0][1])
    tokens: list[Token] = []
    for number, content in lines:
        name, sep, rest = content.partition(":")
        if not sep:
            raise TokenFileError(
                f"token file {where}, line {number}: expected name:secret "
                "(a bare secret is allowed only alone in the file)"
            )
        if not _NAME.fullmatch(name):
            raise TokenFileError(
                f"token file {where}, line {number}: token names are 1 to "
                "64 letters, digits or _.@-"
            )
        secret, _, options = rest.partition(":")
        _check_secret(secret, where, number)
        token = Token(name, secret.encode())
        _parse_options(token, re.split(r"[:,]", options) if options else (), where, number)
        if any(t.name == name for t in tokens):
            raise TokenFileError(
                f"token file {where}, line {number}: token {name!r} is named twice"
            )
        if any(hmac.compare_digest(t.secret, token.secret) for t in tokens):
            raise TokenFileError(f"token file {where}, line {number}: two tokens share a secret")
        tokens.append(token)
    return TokenBook(tokens)


def read_token_file(path: str | Path) -> str:
    """The secret a client sends: the token file's bare secret, or its first token's."""
    where, lines = _read_lines(path)
    content = lines[0][1]
    if ":" in content:
        book = read_token_book(path)
        return book.tokens[0].secret.decode()
    if len(lines) > 1:
        raise TokenFileError(f"token file {where}: several lines but no name:secret tokens")
    _check_secret(content, where, 0)
    return content


def bearer_secret(metadata: Iterable[tuple[str, Any]] | None) -> str | None:
    """The secret of the `authorization: Bearer <secret>` metadata, or None."""
    for key, value in metadata or ():
        if key == "authorization":
            header = value if isinstance(value, str) else value.decode(errors="replace")
            scheme, _, offered = header.partition(" ")
            if scheme.lower() == "bearer" and offered.strip():
                return offered.strip()
            return None
    return None


def _denied(code: grpc.StatusCode, message: str, streaming_request: bool) -> Any:
    def abort(_request: object, context: grpc.ServicerContext) -> None:
        context.abort(code, message)

    if streaming_request:
        return grpc.stream_unary_rpc_method_handler(abort)
    return grpc.unary_unary_rpc_method_handler(abort)


class WriteTokenInterceptor(grpc.ServerInterceptor):
    """Refuse the write methods unless they carry a writing token within its rate."""

    def __init__(
        self,
        tokens: TokenBook | str,
        write_methods: frozenset[str],
        streaming: frozenset[str],
        on_denied: Callable[[str], None] | None = None,
    ) -> None:
        self._book = tokens if isinstance(tokens, TokenBook) else TokenBook.single(tokens)
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
            return self._deny(
                method,
                grpc.StatusCode.UNAUTHENTICATED,
                "writes need a token: send the metadata 'authorization: Bearer <token>'",
                streaming,
            )
        scheme, _, offered = header.partition(" ")
        if scheme.lower() != "bearer" or not offered.strip():
            return self._deny(
                method,
                grpc.StatusCode.UNAUTHENTICATED,
                "the authorization metadata must be 'Bearer <token>'",
                streaming,
            )
        token = self._book.identify(offered.strip())
        if token is None:
            return self._deny(
                method,
                grpc.StatusCode.PERMISSION_DENIED,
                "this token may not write to this server",
                streaming,
            )
        if token.read_only:
            return self._deny(
                method,
                grpc.StatusCode.PERMISSION_DENIED,
                f"token {token.name!r} is read-only on this server",
                streaming,
            )
        if not self._book.admit(token):
            return self._deny(
                method,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"token {token.name!r} may make {token.rate:g} write calls per "
                "second; slow down and retry",
                streaming,
            )
        return continuation(details)

    def _deny(self, method: str, code: grpc.StatusCode, message: str, streaming: bool) -> Any:
        log.warning("refused %s: %s", method, code.name, extra={"rpc": method, "code": code.name})
        if self._on_denied is not None:
            self._on_denied(code.name)
        return _denied(code, message, streaming)
