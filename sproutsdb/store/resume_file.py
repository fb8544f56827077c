"""Resume records of interrupted solves, kept beside a store (never in it, never facts).

One file per root under ``<store>/resume/``, named by a hash of the root, replaced whole
(written to a temporary file, then renamed) so that a killed writer leaves the old record
or the new one. The bytes are `solver.search.resume`'s; a record is only a hint to the
search, so a failure to keep one is reported as False, never raised into a solve.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sproutsdb.digests import sha256_hex

__all__ = ["FileResumeSlots"]

DIRECTORY = "resume"
MAX_FILE_BYTES = 1 << 28


class FileResumeSlots:
    """`ResumeSlots` as files in ``<store>/resume/``."""

    def __init__(self, store_dir: str | os.PathLike[str]) -> None:
        self.directory = Path(store_dir) / DIRECTORY
        self.error: str | None = None  # why the last save failed, if it did

    def _path(self, root: str) -> Path:
        return self.directory / f"{sha256_hex(root.encode())[:32]}.resume"

    def load(self, root: str) -> bytes | None:
        path = self._path(root)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                return None
            return path.read_bytes()
        except OSError:
            return None

    def save(self, root: str, data: bytes) -> bool:
        path = self._path(root)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            self.directory.mkdir(exist_ok=True)
            temporary.write_bytes(data)
            os.replace(temporary, path)
        except OSError as error:
            self.error = str(error)
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            return False
        self.error = None
        return True

    def discard(self, root: str) -> None:
        with contextlib.suppress(OSError):
            self._path(root).unlink(missing_ok=True)
