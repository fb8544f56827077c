"""The web API's handler answers a fault of the server with a 500 and one line of JSON (the
traceback goes to the log), never a dropped connection; the server keeps serving."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any, cast

import pytest

from sproutsdb.server.http_api import WebServer
from sproutsdb.server.position_view import PositionReader


class Faulty:
    """A reader whose view fails as a bug would (not a UserError)."""

    def view(self, text: str, parent: str | None = None) -> dict[str, Any]:
        if text == "boom":
            raise KeyError("a bug")
        return {"position": text}

    def close(self) -> None:
        pass


def get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_fault_is_a_500_with_one_line_and_the_server_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = WebServer(("127.0.0.1", 0), cast(PositionReader, Faulty()))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/api/v1/"
    try:
        status, body = get(base + "position?pos=boom")
        assert status == 500 and "KeyError" in body["error"] and "\n" not in body["error"]
        assert "GET /api/v1/position?pos=boom failed" in caplog.text
        assert get(base + "position?pos=fine") == (200, {"position": "fine"})
        status, index = get(base)
        assert status == 200 and "endpoints" in index
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_a_bad_children_time_limit_is_one_line_and_exit_2(tmp_path: Any) -> None:
    from cli_helpers import run_cli

    done = run_cli("web", "--store", str(tmp_path / "s"), "--children-seconds", "0")
    assert done.returncode == 2 and "--children-seconds 0" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "s").exists()  # refused before any store is opened
