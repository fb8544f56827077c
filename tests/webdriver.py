"""A tiny W3C WebDriver client (urllib only) driving Debian's chromium through chromedriver,
headless; every process it starts is stopped by close()."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def browser_available() -> bool:
    return bool(shutil.which("chromium") and shutil.which("chromedriver"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """One headless chromium session."""

    def __init__(self, timeout: float = 60.0) -> None:
        self.profile = tempfile.mkdtemp(prefix="sproutsdb-chromium-")
        port = _free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.driver = subprocess.Popen(
            [shutil.which("chromedriver") or "chromedriver", f"--port={port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # its own process group: chromium is stopped with it
        self.session = ""
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    if self._call("GET", "/status", timeout=5)["ready"]:
                        break
                except (OSError, urllib.error.URLError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("chromedriver did not start")
                time.sleep(0.2)
            options = {
                "binary": shutil.which("chromium"),
                "args": [*CHROMIUM_ARGS, f"--user-data-dir={self.profile}"],
            }
            made = self._call(
                "POST",
                "/session",
                {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}},
                timeout=timeout,
            )
            self.session = f"/session/{made['sessionId']}"
        except BaseException:
            self.close()
            raise

    def _call(self, method: str, path: str, body: Any = None, timeout: float = 30) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                return json.loads(reply.read())["value"]
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"WebDriver {method} {path}: {error.read()[:500]!r}") from None

    def do(self, method: str, path: str, body: Any = None) -> Any:
        return self._call(method, self.session + path, body)

    def get(self, url: str) -> None:
        self.do("POST", "/url", {"url": url})

    def find(self, css: str) -> str:
        return str(self.do("POST", "/element", {"using": "css selector", "value": css})[ELEMENT])

    def find_all(self, css: str) -> list[str]:
        found = self.do("POST", "/elements", {"using": "css selector", "value": css})
        return [str(e[ELEMENT]) for e in found]

    def text(self, element: str) -> str:
        return str(self.do("GET", f"/element/{element}/text"))

    def click(self, element: str) -> None:
        self.do("POST", f"/element/{element}/click", {})

    def type(self, element: str, keys: str) -> None:
        self.do("POST", f"/element/{element}/clear", {})
        self.do("POST", f"/element/{element}/value", {"text": keys})

    def script(self, source: str, *args: Any) -> Any:
        return self.do("POST", "/execute/sync", {"script": source, "args": list(args)})

    def back(self) -> None:
        """The browser's own Back button (history), not the page's."""
        self.do("POST", "/back", {})

    def forward(self) -> None:
        self.do("POST", "/forward", {})

    def resize(self, width: int, height: int) -> None:
        self.do("POST", "/window/rect", {"width": width, "height": height})

    def screenshot_png(self) -> bytes:
        import base64

        return base64.b64decode(self.do("GET", "/screenshot"))

    def wait_for(self, source: str, timeout: float = 30.0) -> Any:
        """Poll a JavaScript expression until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.script(f"return ({source});")
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {source}")
            time.sleep(0.1)

    def close(self) -> None:
        if self.session:
            with contextlib.suppress(OSError, RuntimeError, urllib.error.URLError):
                self._call("DELETE", self.session, timeout=30)
            self.session = ""
        # the group this driver leads: chromedriver and the chromium it started
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.driver.pid, signal.SIGTERM)
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.driver.pid, signal.SIGKILL)
            self.driver.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
