"""The engine's children of lands for the web page, under a time limit.

The compiled core lists a land's children without returning to Python (a region with many
different boundaries can take minutes, and holds the interpreter meanwhile), so the page
asks a worker process: `python -m sproutsdb.server.children_worker` reads one JSON request
per line (``{"lands": [...]}``) and answers one line (``{"children": {land: [[lands...],
...]}, "errors": {land: message}}``). A request that outlasts its time is answered by
killing the worker; the next request starts a fresh one. Nothing here touches a store.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.games import DEFAULT_GAME, get_game

LandChildren = tuple[tuple[str, ...], ...]


class ChildrenTimeout(Exception):
    """The engine did not list the children within the time allowed."""


class BoundedChildren:
    """Land children from a worker process, each request bounded by `seconds` (thread-safe).

    Answers are memoised here too (bounded by the number of children held), so a page
    walked back and forth costs the worker nothing twice.
    """

    def __init__(
        self, seconds: float = 3.0, cache_size: int = 1 << 17, game: str = DEFAULT_GAME
    ) -> None:
        self.game = game  # the worker's engine: the registry's entry of this name
        self.seconds = seconds
        self._cache: dict[str, LandChildren] = {}
        self._errors: dict[str, str] = {}
        self._cached = 0
        self._cache_size = cache_size
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.restarts = 0  # workers killed for running out of time

    def lands(self, lands: Sequence[str], seconds: float | None = None) -> dict[str, LandChildren]:
        """The children of each land; UserError (the engine's refusal, e.g. too many splits)
        for the first land refused; ChildrenTimeout past `seconds` (default self.seconds)."""
        with self._lock:
            wanted = sorted({x for x in lands if x not in self._cache and x not in self._errors})
            if wanted:
                answer = self._ask(wanted, self.seconds if seconds is None else seconds)
                for land, message in answer.get("errors", {}).items():
                    self._errors[land] = str(message)
                for land, kids in answer.get("children", {}).items():
                    self._remember(land, tuple(tuple(k) for k in kids))
            for land in lands:
                if land in self._errors:
                    raise UserError(self._errors[land])
            return {land: self._cache[land] for land in lands}

    def _remember(self, land: str, kids: LandChildren) -> None:
        self._cached += len(kids) + 1
        if self._cached > self._cache_size:
            self._cache.clear()
            self._cached = len(kids) + 1
        self._cache[land] = kids

    def _ask(self, lands: list[str], seconds: float) -> dict[str, dict[str, Any]]:
        proc = self._worker()
        assert proc.stdin is not None and proc.stdout is not None
        deadline = time.monotonic() + seconds
        try:
            proc.stdin.write(json.dumps({"lands": lands}).encode() + b"\n")
            proc.stdin.flush()
            line = _read_line(proc.stdout.fileno(), deadline)
        except ChildrenTimeout:
            self._stop(timed_out=True)
            raise ChildrenTimeout(f"the engine did not list them within {seconds:g} s") from None
        except (OSError, EOFError):  # the worker died (a fault, or killed from outside)
            code = proc.poll()
            self._stop()
            raise UserError(f"the engine's worker process stopped (exit code {code})") from None
        return dict(json.loads(line))

    def _worker(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "sproutsdb.server.children_worker", self.game],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._proc

    def _stop(self, *, timed_out: bool = False) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self.restarts += timed_out
        proc.kill()
        proc.wait(10)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def close(self) -> None:
        """Stop the worker (it also stops by itself when this process's pipe closes)."""
        with self._lock:
            self._stop()


def _read_line(fd: int, deadline: float) -> bytes:
    """One line from fd before the deadline; ChildrenTimeout after it, EOFError at EOF."""
    chunks: list[bytes] = []
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise ChildrenTimeout
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                return b"".join(chunks)


def serve(name: str = DEFAULT_GAME) -> None:
    """The worker's loop: one request per line of stdin, one answer per line of stdout."""

    game = get_game(name).engine()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        children: dict[str, list[list[str]]] = {}
        errors: dict[str, str] = {}
        for land in request["lands"]:
            try:
                children[land] = [list(c) for c in game.component_children(land)]
            except UserError as error:
                errors[land] = str(error)
        sys.stdout.buffer.write(json.dumps({"children": children, "errors": errors}).encode())
        sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":  # pragma: no cover - run as the worker process
    serve(*sys.argv[1:2])
