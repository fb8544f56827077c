"""The JSON API and the page of `sproutsdb web`, on the standard library's ThreadingHTTPServer.

GET /api/v1/position?pos=P answers the report of P and of its children (ops/describe.py,
through server/position_view.py); bad input is a 400 with the parser's message, a fault of
the server a 500 with one line (the traceback goes to the log): a request is always
answered. GET /api/v1/ is the index, /api/v1/openapi.json the OpenAPI description. GET /
serves the page (server/web/, package data). Nothing is ever written: every other method is
refused with 405.
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sproutsdb.errors import UserError
from sproutsdb.ops.results import results_payload
from sproutsdb.server.openapi import index, openapi
from sproutsdb.server.position_view import PositionReader

log = logging.getLogger("sproutsdb.server.http")

API_PREFIX = "/api/v1/"
MAX_QUERY_BYTES = 8192
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/results": ("results.html", "text/html; charset=utf-8"),
    "/results.html": ("results.html", "text/html; charset=utf-8"),
    "/results.js": ("results.js", "text/javascript; charset=utf-8"),
}


def _static(name: str) -> bytes:
    return resources.files("sproutsdb.server.web").joinpath(name).read_bytes()


class _Handler(BaseHTTPRequestHandler):
    server: WebServer
    server_version = "sproutsdb-web"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if len(self.path) > MAX_QUERY_BYTES:
            return self._json(
                HTTPStatus.REQUEST_URI_TOO_LONG,
                {"error": f"request line over {MAX_QUERY_BYTES} bytes"},
            )
        url = urlsplit(self.path)
        if url.path in STATIC:
            name, kind = STATIC[url.path]
            return self._send(HTTPStatus.OK, _static(name), kind)
        if url.path == API_PREFIX + "position":
            return self._position(parse_qs(url.query, keep_blank_values=True))
        if url.path == API_PREFIX + "results":  # the results library (ops/results.py)
            return self._json(HTTPStatus.OK, results_payload())
        if url.path == API_PREFIX + "health":
            return self._json(HTTPStatus.OK, {"status": "SERVING"})
        if url.path in (API_PREFIX, API_PREFIX.rstrip("/")):
            return self._json(HTTPStatus.OK, index())
        if url.path == API_PREFIX + "openapi.json":
            return self._json(HTTPStatus.OK, openapi())
        self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {url.path}"})

    def _position(self, query: dict[str, list[str]]) -> None:
        values = query.get("pos")
        if not values or not values[0].strip():
            return self._json(
                HTTPStatus.BAD_REQUEST, {"error": "give a position: /api/v1/position?pos=0*6"}
            )
        parent = query.get("from", [None])[0]
        try:
            report = self.server.reader.view(values[0], parent)
        except UserError as error:  # NotationError and the engine's refusals
            return self._json(HTTPStatus.BAD_REQUEST, {"error": str(error)})
        except Exception as error:  # a fault here: answered and logged, never a dropped link
            log.exception("GET %s failed", self.path)
            return self._json(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                {"error": f"the server failed on this position: {type(error).__name__}: {error}"},
            )
        self._json(HTTPStatus.OK, report)

    def _refuse(self) -> None:
        self._json(
            HTTPStatus.METHOD_NOT_ALLOWED,
            {"error": "read-only: only GET is served"},
            extra={"Allow": "GET"},
        )

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _refuse

    def _json(
        self, status: HTTPStatus, payload: Any, *, extra: dict[str, str] | None = None
    ) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json", extra)

    def _send(
        self, status: HTTPStatus, data: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if data:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        log.info("%s %s", self.address_string(), format % args)


class WebServer(ThreadingHTTPServer):
    """The HTTP server over one PositionReader; threads are daemons (stop: shutdown())."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], reader: PositionReader) -> None:
        self.reader = reader
        super().__init__(address, _Handler)

    def server_close(self) -> None:
        super().server_close()
        self.reader.close()
