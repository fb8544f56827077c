"""Content identifiers of trees: the same tree gets the same id in every run (DESIGN §4).

A nim-heap *n is named ``*n``. Any other tree is named ``rct1:`` followed by the 32 hex
digits of ``blake2b(",".join(sorted(child ids)), digest_size=16)`` (UTF-8, Python string
order). The prefix versions the scheme: a new scheme gets a new prefix, never a silent change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

SCHEME = "rct1:"


def nim_id(n: int) -> str:
    """Readable content id of the nim-heap *n."""
    return f"*{n}"


def tree_id(child_ids: Iterable[str]) -> str:
    """Content id of a tree that is not a nim-heap, from its children's content ids."""
    payload = ",".join(sorted(child_ids)).encode()
    return SCHEME + hashlib.blake2b(payload, digest_size=16).hexdigest()


def nim_value_of_id(cid: str) -> int | None:
    """n when ``cid`` names the nim-heap *n, else None."""
    if cid.startswith("*") and cid[1:].isdigit():
        return int(cid[1:])
    return None
