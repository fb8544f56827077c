"""Request bytes that are no message of the method's type answer INVALID_ARGUMENT.

gRPC's own handling of a request it cannot deserialize is INTERNAL "Exception deserializing
request!", which tells a client the server is broken when the client sent the garbage. This
interceptor swaps each method's deserializer for one that never raises: bytes that do not
parse (or parse into text fields that are not UTF-8) become a `Garbled` marker, refused with
INVALID_ARGUMENT before the method runs; in a request stream, the garbled message ends the
stream with INVALID_ARGUMENT naming it (the messages before it were handled as usual).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from sproutsdb.server.validation import RequestError


@dataclass(frozen=True)
class Garbled:
    """Request bytes that are not a message of the expected type."""

    method: str
    size: int
    reason: str

    def message(self, index: int | None = None) -> str:
        which = "the request" if index is None else f"message {index} of the request stream"
        return (
            f"{self.method}: {which} ({self.size:,} bytes) is not a valid protobuf message "
            f"of this method's type: {self.reason}"
        )


def _safe(deserialize: Callable[[bytes], Any], method: str) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return deserialize(data)
        except DecodeError as error:
            return Garbled(method, len(data), str(error) or "it does not decode")
        except (UnicodeDecodeError, ValueError) as error:
            return Garbled(method, len(data), f"a text field is not valid UTF-8 ({error})")
        except Exception as error:  # noqa: BLE001 - whatever the parser raises is the bytes' fault
            return Garbled(method, len(data), f"{type(error).__name__}: {error}")

    return parse


def _guard_stream(requests: Iterator[Any]) -> Iterator[Any]:
    for index, request in enumerate(requests):
        if isinstance(request, Garbled):
            raise RequestError(request.message(index))
        yield request


MAX_DETAILS = 2000  # characters of a status message: it travels as metadata (16 KiB at most)


def clip_details(message: str) -> str:
    """A status message short enough for any client to receive (a message quoting a huge
    input would otherwise be refused by the client as oversized metadata)."""
    if len(message) <= MAX_DETAILS:
        return message
    return f"{message[:MAX_DETAILS]}... ({len(message):,} characters, cut)"


def client_gone(error: BaseException, context: grpc.ServicerContext) -> bool:
    """Whether a method failed only because its client went away (a request stream that
    raises once the call is cancelled): CANCELLED, not an internal error."""
    return isinstance(error, grpc.RpcError) and not context.is_active()


class GarbledRequestInterceptor(grpc.ServerInterceptor):
    """Make undecodable request bytes INVALID_ARGUMENT instead of INTERNAL."""

    def __init__(self, on_refused: Callable[[str], None] | None = None) -> None:
        self._on_refused = on_refused

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = continuation(details)
        if handler is None or handler.request_deserializer is None:
            return handler
        method = details.method.rsplit("/", 1)[-1]
        deserializer = _safe(handler.request_deserializer, method)
        if handler.request_streaming:
            return self._wrap_streaming(handler, deserializer)
        return self._wrap_unary(handler, deserializer)

    def _refuse(self, garbled: Garbled, context: grpc.ServicerContext) -> None:
        if self._on_refused is not None:
            self._on_refused(grpc.StatusCode.INVALID_ARGUMENT.name)
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, garbled.message())

    def _wrap_unary(self, handler: Any, deserializer: Callable[[bytes], Any]) -> Any:
        inner = handler.unary_unary or handler.unary_stream
        streaming = handler.unary_stream is not None

        def behaviour(request: Any, context: grpc.ServicerContext) -> Any:
            if isinstance(request, Garbled):
                self._refuse(request, context)
            return inner(request, context)

        if streaming:
            return handler._replace(unary_stream=behaviour, request_deserializer=deserializer)
        return handler._replace(unary_unary=behaviour, request_deserializer=deserializer)

    def _wrap_streaming(self, handler: Any, deserializer: Callable[[bytes], Any]) -> Any:
        if handler.stream_unary is not None:
            inner = handler.stream_unary

            def stream_unary(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
                return inner(_guard_stream(requests), context)

            return handler._replace(stream_unary=stream_unary, request_deserializer=deserializer)
        inner_ss = handler.stream_stream

        def stream_stream(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
            return inner_ss(_guard_stream(requests), context)

        return handler._replace(stream_stream=stream_stream, request_deserializer=deserializer)


__all__ = ["Garbled", "GarbledRequestInterceptor", "client_gone", "clip_details"]
