"""BLAKE2b and SHA-256 digests for the store's keys and file names, from CPython's own
implementations when it has them: `hashlib` loads OpenSSL on import, a large share of a small
solve's memory, for digests the builtin modules compute identically (tests/test_digests.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import Any

# CPython's builtin modules of each algorithm (_sha2 from 3.12, _sha256 before), tried in order.
_BUILTIN = {"blake2b": ("_blake2",), "sha256": ("_sha2", "_sha256")}


@cache
def _constructor(algorithm: str) -> Callable[..., Any]:
    """The builtin constructor of `algorithm`, else hashlib's."""
    for name in _BUILTIN[algorithm]:
        try:
            return getattr(import_module(name), algorithm)  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    import hashlib

    return getattr(hashlib, algorithm)  # type: ignore[no-any-return]


def blake2b(data: bytes, digest_size: int) -> bytes:
    """hashlib.blake2b(data, digest_size=digest_size).digest()."""
    return bytes(_constructor("blake2b")(data, digest_size=digest_size).digest())


def sha256_hex(data: bytes) -> str:
    """hashlib.sha256(data).hexdigest()."""
    return str(_constructor("sha256")(data).hexdigest())
