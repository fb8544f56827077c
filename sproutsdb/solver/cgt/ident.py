"""Content identifiers of trees: the same tree gets the same id in every run.

See docs/architecture.md §4.

A nim-heap *n is named ``*n``. Any other tree is named ``rct1:`` followed by the 32 hex
digits of ``blake2b(",".join(sorted(child ids)), digest_size=16)`` (UTF-8, Python string
order). The prefix versions the scheme: a new scheme gets a new prefix, never a silent change.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import TypeGuard

SCHEME = "rct1:"

# The syntax of every content id: "*n" (n without leading zeros, below 10**19) or the
# scheme followed by 32 lowercase hex digits. The one check of it (server, node keys).
_CONTENT_ID = re.compile(r"\*(?:0|[1-9][0-9]{0,18})|" + re.escape(SCHEME) + r"[0-9a-f]{32}")
CONTENT_ID_SYNTAX = f"'*n' or {SCHEME!r} followed by 32 lowercase hex digits"


def nim_id(n: int) -> str:
    """Readable content id of the nim-heap *n."""
    return f"*{n}"


def tree_id(child_ids: Iterable[str]) -> str:
    """Content id of a tree that is not a nim-heap, from its children's content ids."""
    payload = ",".join(sorted(child_ids)).encode()
    return SCHEME + hashlib.blake2b(payload, digest_size=16).hexdigest()


def is_content_id(text: object) -> TypeGuard[str]:
    """Whether ``text`` is a well-formed content id (syntax only: not that a tree has it)."""
    return isinstance(text, str) and _CONTENT_ID.fullmatch(text) is not None


def nim_value_of_id(cid: str) -> int | None:
    """n when ``cid`` names the nim-heap *n, else None."""
    if cid.startswith("*") and cid[1:].isdigit():
        return int(cid[1:])
    return None
