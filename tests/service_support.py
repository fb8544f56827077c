"""Support of the service tests (no tests in here): a real `sproutsdb serve` subprocess.

The server listens on 127.0.0.1 port 0 (the kernel picks a free port) and prints the
address it got on its first stdout line; `ServerProcess` waits for that line, so a test
never races the server's start. Every process is killed on exit of its `with` block.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Self

import pytest

COMMAND = [sys.executable, "-m", "sproutsdb"]
ROOT = Path(__file__).resolve().parent.parent


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a process a test starts: none of the user's SPROUTSDB_ settings
    (a server address, a token), but the run's own cache of table marks (conftest), so a
    server does not re-derive the S6 table in, or write marks to, the user's cache."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SPROUTSDB_") or k == "SPROUTSDB_CACHE"
    }
    env.update(extra)
    return env


class ServerProcess:
    """`sproutsdb serve` in a subprocess: start() waits until it listens; always killed."""

    def __init__(
        self, store: Path, *args: str, listen: str = "127.0.0.1:0", log: Path | None = None
    ) -> None:
        self.store = store
        self.args = args
        self.listen = listen
        self.log = log if log is not None else store.parent / f"{store.name}-server.log"
        self.proc: subprocess.Popen[str] | None = None
        self.address = ""
        self.banner: list[str] = []

    def start(self, timeout: float = 60.0) -> Self:
        command = [
            *COMMAND,
            "serve",
            "--store",
            str(self.store),
            "--listen",
            self.listen,
            *self.args,
        ]
        with open(self.log, "a") as err:
            self.proc = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env=child_env(),
                cwd=self.store.parent,
            )
        assert self.proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(f"server did not listen within {timeout} s: {self.tail()}")
                if not selector.select(remaining):
                    continue
                line = self.proc.stdout.readline()
                if not line:
                    self.proc.wait(10)
                    raise RuntimeError(f"server exited with {self.proc.returncode}: {self.tail()}")
                self.banner.append(line)
                found = re.search(r"listening on (\S+)", line)
                if found:
                    self.address = found.group(1)
                    return self
        except BaseException:
            self.kill()
            raise
        finally:
            selector.close()

    def tail(self, lines: int = 20) -> str:
        try:
            return "".join(self.log.read_text().splitlines(keepends=True)[-lines:])
        except OSError:
            return ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait (graceful); SIGKILL if it does not end in time."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        """SIGKILL (kill -9) and reap."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> Self:
        return self.start() if self.proc is None else self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def run_cli(
    *args: str, timeout: float = 120, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=child_env(**(env or {})),
    )


def build_table(root: str, out: Path) -> Path:
    done = run_cli("rct-table", "build", root, "--out", str(out), "--quiet")
    if done.returncode != 0:
        pytest.fail(done.stderr)
    return out
