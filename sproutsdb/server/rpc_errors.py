"""How an RPC fails: exceptions mapped to gRPC status codes, counted and logged.

Errors a client can cause map to status codes with the message (never a traceback):
bad input (garbled request bytes too, server/wire_guard.py) -> INVALID_ARGUMENT, a server
state that forbids the request -> FAILED_PRECONDITION, a missing table -> NOT_FOUND, a store
out of room or readers and a request over its budget (server/limits.py) ->
RESOURCE_EXHAUSTED, shutting down -> UNAVAILABLE. Anything else is a bug: INTERNAL with an
incident number, and the traceback in the server's log.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import grpc

from sproutsdb.errors import UserError
from sproutsdb.server.limits import resource_status
from sproutsdb.server.metrics import Metrics
from sproutsdb.server.validation import PreconditionError
from sproutsdb.server.wire_guard import client_gone, clip_details
from sproutsdb.store import (
    ReadOnlyStoreError,
    StoreClosedError,
    StoreError,
    StoreFullError,
)

log = logging.getLogger("sproutsdb.server")


class Counted(Protocol):
    """A servicer whose calls are counted (the Stats RPC's metrics)."""

    metrics: Metrics


_incidents = itertools.count(1)


class NotFoundError(UserError):
    """Something named in a request that the server does not have (NOT_FOUND)."""


def status_of(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message a client gets for an exception raised by an RPC."""
    exhausted = resource_status(error)  # store full, readers full, disk, budgets
    if exhausted is not None:
        return exhausted
    if isinstance(error, StoreClosedError):
        return grpc.StatusCode.UNAVAILABLE, "the server is shutting down; retry on another"
    if isinstance(error, (PreconditionError, ReadOnlyStoreError, StoreFullError)):
        return grpc.StatusCode.FAILED_PRECONDITION, str(error)
    if isinstance(error, NotFoundError):
        return grpc.StatusCode.NOT_FOUND, str(error)
    if isinstance(error, (StoreError,)):
        return grpc.StatusCode.FAILED_PRECONDITION, str(error)
    if isinstance(error, UserError):
        return grpc.StatusCode.INVALID_ARGUMENT, str(error)
    incident = next(_incidents)
    log.error(
        "internal error #%d: %r", incident, error, exc_info=error, extra={"incident": incident}
    )
    return grpc.StatusCode.INTERNAL, f"internal error; the server logged it as incident #{incident}"


@contextlib.contextmanager
def served(
    service: Counted, name: str, context: grpc.ServicerContext, *, timed: bool
) -> Iterator[None]:
    """One RPC's frame: count it, map an exception to its status code (context.abort),
    and with ``timed`` log its duration at debug level."""
    service.metrics.begin(name)
    start = time.perf_counter()
    code: str | None = None
    try:
        yield
    except Exception as error:  # noqa: BLE001 - every failure becomes a status
        status, message = (
            status_of(error)
            if not client_gone(error, context)
            else (grpc.StatusCode.CANCELLED, "the client went away mid-call")
        )
        code = status.name
        log.info(
            "%s failed: %s %s",
            name,
            code,
            message,
            extra={"rpc": name, "code": code, "peer": context.peer()},
        )
        context.abort(status, clip_details(message))
    finally:
        service.metrics.end(code)
        if timed and log.isEnabledFor(logging.DEBUG):
            log.debug(
                "%s",
                name,
                extra={
                    "rpc": name,
                    "code": code or "OK",
                    "ms": round((time.perf_counter() - start) * 1e3, 3),
                    "peer": context.peer(),
                },
            )


def rpc(method: Callable[..., Any]) -> Callable[..., Any]:
    """Count the call, map exceptions to status codes, log at debug level."""
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self: Counted, request: Any, context: grpc.ServicerContext) -> Any:
        with served(self, name, context, timed=True):
            return method(self, request, context)

    return wrapper


def rpc_stream(method: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """rpc for methods that return a stream of messages."""
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self: Counted, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        with served(self, name, context, timed=False):
            yield from method(self, request, context)

    return wrapper
