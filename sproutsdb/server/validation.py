"""Validation of what arrives on the wire: limits, positions, content ids, RCT records.

Every position is read by the Sprouts engine. Text it cannot read is refused with the
parser's message; a readable position is replaced by its canonical key, so nothing is ever
stored under a non-canonical key. The compiled core reads GLOP 2.x lands fast; anything it
declines (1.x syntax, genus, invalid text) goes through the Python reference, which gives
either the canonical key or the precise NotationError. For writes, the core's answer is
taken only when the key was already canonical (a fixed point of the core's printer);
otherwise the Python reference confirms it.

Misère facts are keyed by search nodes: a position part, then optionally `*1` and RCT
content ids, in the syntax of solver/misere/keys.py; only the position part is read (and
canonicalised) by the engine.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.ops.claims import content_id_problem, record_problem
from sproutsdb.server.limits import DEFAULT_MAX_CHILDREN_WORK, DEFAULT_REQUEST_SECONDS
from sproutsdb.solver.misere.keys import join_node_key, split_node_key
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import RctRecord

MAX_POSITION_VERTICES = get_game().max_position_vertices  # the default game's


class RequestError(UserError):
    """A request the server refuses as sent (INVALID_ARGUMENT); nothing was changed."""


class PreconditionError(UserError):
    """A request that cannot be served in the server's state (FAILED_PRECONDITION)."""


@dataclass(frozen=True)
class Limits:
    """What one request may carry; served by ServerInfo and quoted in every refusal."""

    max_keys: int = 10_000
    max_key_bytes: int = 4096
    max_message_bytes: int = 64 << 20
    max_children_positions: int = 1000
    max_chunk: int = 20_000
    max_rct_closure: int = 200_000
    max_reported_conflicts: int = 1000
    max_position_vertices: int = MAX_POSITION_VERTICES  # spots and letter occurrences
    max_children_work: int = DEFAULT_MAX_CHILDREN_WORK  # of one position (server/limits.py)
    request_seconds: float = DEFAULT_REQUEST_SECONDS  # of one Children or Verify request

    def check_count(self, what: str, n: int, limit: int | None = None) -> None:
        limit = self.max_keys if limit is None else limit
        if n > limit:
            raise RequestError(f"{what}: {n:,} items in one request, the limit is {limit:,}")


_CACHE_LIMIT = 200_000


class Validator:
    """Canonical keys of positions and checks of content ids and records, thread-safe."""

    def __init__(self, game: Game, limits: Limits) -> None:
        self.game = game
        self.entry = get_game(game.name)  # the registry's facts of the served game
        self.limits = limits
        self._have_core = self.entry.compiled_core() is not None
        self._cache: dict[str, str] = {}  # text -> canonical key (confirmed)
        self._lock = threading.Lock()

    # --- positions ------------------------------------------------------------------------

    def canonical(self, text: object, index: int | None = None, *, strict: bool = False) -> str:
        """The canonical key of a position; RequestError with the parser's message.

        strict (for writes): an answer of the compiled core that differs from the text
        is confirmed by the Python reference before it is used as a key.
        """
        if type(text) is not str:
            raise RequestError(f"{_where(index)}a position is text, got {type(text).__name__}")
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        limits = self.limits
        n = len(text)
        if n == 0:
            raise RequestError(
                f"{_where(index)}the empty string is not a position (the empty "
                f"position is written {self.entry.terminal!r})"
            )
        if n * 4 > limits.max_key_bytes and len(text.encode()) > limits.max_key_bytes:
            raise RequestError(
                f"{_where(index)}a position of {len(text.encode()):,} bytes; "
                f"the limit is {limits.max_key_bytes:,} bytes"
            )
        if "*" in text or n > limits.max_position_vertices:
            vertices = self.entry.count_vertices(text)
            if vertices > limits.max_position_vertices:
                raise RequestError(
                    f"{_where(index)}a position of {vertices:,} spots and letters "
                    f"({text[:40]!r}...); the limit is {limits.max_position_vertices:,}"
                )
        key = self._core_canonical(text)
        if key is not None and key != text and not strict:
            return key  # good enough for a read; not cached, as it is unconfirmed
        if key is None or key != text:
            try:
                key = self.game.canonical(text)
            except NotationError as error:
                served = f"(this server holds {self.entry.name} positions)"
                raise RequestError(f"{_where(index)}{error} {served}") from None
            except RecursionError:
                raise RequestError(
                    f"{_where(index)}position {text[:60]!r} is nested too deeply"
                ) from None
        cache = self._cache
        if len(cache) >= _CACHE_LIMIT:
            with self._lock:
                cache.clear()
        cache[text] = key
        return key

    def _core_canonical(self, text: str) -> str | None:
        if not self._have_core:
            return None
        if "+" not in text:
            if text == self.entry.terminal:
                return text
            lands = self.entry.fast_canonical_lands(text)
            if lands is not None and len(lands) == 1:
                return lands[0]
        else:
            lands = []
            for part in text.split("+"):
                part_lands = self.entry.fast_canonical_lands(part)
                if part_lands is None:
                    return None
                lands += part_lands
        if lands is None:
            return None
        return "+".join(sorted(lands)) if lands else self.entry.terminal

    def land(self, text: object, index: int | None = None) -> str:
        """The canonical key of a position that must be one land (a nimber fact's key)."""
        key = self.canonical(text, index, strict=True)
        if key == self.entry.terminal or "+" in key:
            where = _where(index)
            what = (
                "the empty position (its nimber is 0 by definition)"
                if key == self.entry.terminal
                else f"a sum of {key.count('+') + 1} lands ({key!r})"
            )
            raise RequestError(
                f"{where}nimber facts are kept per land, and {text!r:.80} is {what}; "
                "insert the nimber of each land"
            )
        return key

    # --- misère nodes ---------------------------------------------------------------------

    def misere_node(
        self, text: object, index: int | None = None, *, strict: bool = False
    ) -> tuple[str, tuple[str, ...]]:
        """The canonical key of a misère node and its content ids; RequestError if it is
        malformed (solver/misere/keys.py) or its position part cannot be read.

        Only the position part is canonicalised (as a position is); the parity and the
        ids are kept. Whether the ids name stored RCTs is the caller's to check.
        """
        if type(text) is not str:
            raise RequestError(
                f"{_where(index)}a misère node key is text, got {type(text).__name__}"
            )
        limit = self.limits.max_key_bytes
        if len(text) * 4 > limit and len(text.encode()) > limit:
            raise RequestError(
                f"{_where(index)}a key of {len(text.encode()):,} bytes; the "
                f"limit is {limit:,} bytes"
            )
        try:
            position, parity, cids = split_node_key(text)
        except NotationError as error:
            raise RequestError(f"{_where(index)}{error}") from None
        head = self.canonical(position, index, strict=strict)
        if head == position:
            return text, cids
        if head == self.entry.terminal and not parity and not cids:
            raise RequestError(
                f"{_where(index)}{position!r:.80} is the empty position, a misère win by "
                "definition; misère facts are not kept for it"
            )
        return join_node_key(head, parity, cids), cids

    # --- RCTs -----------------------------------------------------------------------------

    def content_id(self, text: object, what: str = "content id") -> str:
        if why := content_id_problem(text, what):
            raise RequestError(why)
        return text  # type: ignore[return-value]

    def rct_record(self, cid: str, record: RctRecord, index: int | None = None) -> None:
        """Check what can be checked of one record alone (ops.claims.record_problem)."""
        if why := record_problem(cid, record):
            where = f"key {index} ({cid}): " if index is not None else f"{cid}: "
            raise RequestError(f"{where}{why}")


def _where(index: int | None) -> str:
    return "" if index is None else f"key {index}: "


def check_parallel(
    what: str, keys: Sequence[object], column: str, values: Sequence[object]
) -> None:
    if len(values) != len(keys):
        raise RequestError(
            f"{what}: {len(keys):,} keys but {len(values):,} {column}; they must be parallel"
        )
