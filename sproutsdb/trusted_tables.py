"""RCT table files re-derived before use, with a verified mark cached per file checksum.

Loading a table (``formats.rcttable.load_table``) re-derives every RCT *record*, but the
position → RCT entries are claims: one forged entry, written with the project's own writer
under a valid checksum, would feed a false tree to every misère search and check. So every
command that uses a table takes it through ``verified_table``: each position's RCT must be the
reduction of the RCTs its children have in the table (a whole game tree is closed under moves,
so this re-derives every entry from the rules, by induction on lives). The S6 table takes
tens of seconds; the verdict is remembered in a mark keyed by the SHA-256 of the file's bytes
and the engine's canonical-form and tool versions, so an install verifies the shipped table once,
not once per command. A mark is only ever written by this function, after a clean check, or
by ``remember_built`` in the process that built the table from the rules and read it back;
each mark names the check that made it (``made_by``) and the tool version.

A mark is as trusted as the user who owns the cache: one that anybody else could have
written (a mark file or cache folder owned by another user, or writable by group or others)
is treated as absent, and the table re-derived, as ssh refuses a group-writable key.

A search takes a large table (S7: 3.2 M positions) through ``verified_rcts`` instead: once
verified, its positions go to a memory-mapped index in the cache and its trees to a snapshot
of their algebra (formats.rctindex), whose digests the mark keeps; later commands open those
rather than loading and re-deriving the table whole.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sproutsdb import __version__
from sproutsdb.formats.rctindex import (
    IndexedRcts,
    index_digest,
    read_trees,
    write_index,
    write_trees,
)
from sproutsdb.formats.rcttable import RctTable, RctTableError, table_from_bytes
from sproutsdb.games import get_game
from sproutsdb.solver.misere.rctsearch import check_positions
from sproutsdb.solver.misere.solver import TableRcts
from sproutsdb.solver.ports.game import Game
from sproutsdb.table_check_workers import check_on_helpers, helpers_for

CANON_VERSION = get_game().canon_version
log = logging.getLogger("sproutsdb.cache")

MARKS_FOLDER = "verified-tables"
INDEX_FOLDER = "table-index"
# Tables with more positions are opened in place by verified_rcts. S6 (226 809 positions)
# loads whole in 2 CPU s and 142 MB; S7 (3.2 M) took 99.6 CPU s and 2 589 MB that way.
LAZY_FROM_POSITIONS = 1_000_000
TABLE_CHECK = "rct-table check"  # the `made_by` of a mark verified_table wrote
TABLE_BUILD = "rct-table build"  # the `made_by` of a mark remember_built wrote
_verified: dict[str, RctTable] = {}  # sha256 -> table, re-derived in this process
_untrusted_said: set[Path] = set()  # cache paths refused so far (each said once)


def cache_dir() -> Path:
    """Where marks live: $SPROUTSDB_CACHE, else $XDG_CACHE_HOME/sproutsdb, else ~/.cache/sproutsdb."""
    explicit = os.environ.get("SPROUTSDB_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sproutsdb"


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def verified_table(
    path: str | Path,
    *,
    progress: Callable[[int], None] | None = None,
    notice: Callable[[str], None] | None = None,
    recheck: bool = False,
) -> RctTable:
    """Load a table and make sure every position of it re-derives from its children.

    RctTableError (a UserError) naming the first faulty position when one does not. The
    table's header gets a ``verified`` entry saying how (now, or the cached mark). `notice`
    is told, in one line, when the whole check is about to run (it takes seconds). With
    `recheck`, no mark is believed: the table is re-derived (once per process).
    """
    data = Path(path).read_bytes()  # read once: the bytes hashed are the bytes used
    digest = hashlib.sha256(data).hexdigest()
    table = _verified.get(digest)
    if table is not None and not (recheck and _how(table) != "re-derived now"):
        return table
    table = None if recheck else _from_verified_trees(path, data, digest)
    if table is None:
        table = table_from_bytes(str(path), data)  # checksum, framing, every record re-derived
        with _one_check_at_a_time(digest, path, notice):  # another process may be checking it
            _check_or_believe(path, digest, table, recheck, progress, notice)
        _keep_trees(digest, table)
    _verified[digest] = table
    return table


def _from_verified_trees(path: str | Path, data: bytes, digest: str) -> RctTable | None:
    """The table of these bytes with its trees taken from the snapshot kept beside its mark
    (written after a clean check of the same bytes, its digest in the mark), so a command
    does not re-derive the 25 k records of S6 again; None when there is no such snapshot."""
    mark = read_mark(digest)
    wanted = None if mark is None else mark.get("trees_blake2b")
    if not isinstance(wanted, str):
        return None
    try:
        algebra = read_trees(cached_index_files(digest)[1], wanted)
        table = table_from_bytes(str(path), data, algebra=algebra)
    except (OSError, RctTableError):  # gone or different: re-derive, and write it again
        return None
    assert mark is not None
    table.header["verified"] = {"how": "cached mark", **mark}
    return table


def _keep_trees(digest: str, table: RctTable) -> None:
    """Keep a snapshot of a verified table's trees beside its mark (see _from_verified_trees:
    called when there was none it could use); an unwritable cache only costs the next
    command the records' re-derivation."""
    mark = read_mark(digest)
    target = cached_index_files(digest)[1]
    if mark is None:
        return
    try:
        _private_folders(target.parent)
        if not trusted_cache_path(target.parent):
            return
        written = write_trees(target, table.algebra.snapshot())
    except OSError:
        return
    _write_mark(digest, dict(mark, trees_blake2b=written))


@contextlib.contextmanager
def _one_check_at_a_time(
    digest: str, path: str | Path, notice: Callable[[str], None] | None
) -> Iterator[None]:
    """Hold the cache's lock of one table file's digest: two commands started together (a
    server seeding and a query) wait for one check instead of both running it. Without a
    writable cache folder this user alone can write, no lock (each checks for itself)."""
    folder = _mark_path(digest).parent
    try:
        _private_folders(folder)
        handle = open(folder / f".{digest}.lock", "a")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with handle:
        if trusted_cache_path(folder):
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if notice is not None:
                    notice(f"waiting for another sproutsdb command that is re-deriving {path}")
                fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _check_or_believe(
    path: str | Path,
    digest: str,
    table: RctTable,
    recheck: bool,
    progress: Callable[[int], None] | None,
    notice: Callable[[str], None] | None,
) -> None:
    """Believe the file's mark, else re-derive every position and write one (see
    verified_table)."""
    mark = None if recheck else read_mark(digest)
    if mark is not None:
        table.header["verified"] = {"how": "cached mark", **mark}
    else:
        if notice is not None:
            notice(
                f"re-deriving every position of the RCT table {path} before using it "
                f"({len(table.positions):,} positions: tens of seconds for the S6 table, minutes for S7; "
                "done once, then remembered for this file)"
            )
        started = time.process_time()
        problems, helper_cpu = rederive_positions(path, digest, table, progress)
        if problems:
            raise RctTableError(
                f"{path}: {len(problems)} position(s) of the table do not re-derive from their "
                f"children, e.g. {problems[0]}; the table is refused"
            )
        mark = {
            "sha256": digest,
            "tool_version": __version__,
            "canon_version": CANON_VERSION,
            "positions": len(table.positions),
            "rcts": len(table.algebra),
            "cpu_seconds": round(time.process_time() - started + helper_cpu, 2),
            "verified_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "made_by": TABLE_CHECK,
        }
        _write_mark(digest, mark)
        table.header["verified"] = {"how": "re-derived now", **mark}


def rederive_positions(
    path: str | Path,
    digest: str,
    table: RctTable,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[str], float]:
    """(positions of `table` that do not re-derive from their children, the CPU seconds of
    helper processes): on every core for a large table (each helper reading `path`, refused
    unless its SHA-256 is `digest`), else here."""
    helpers = helpers_for(len(table.positions))
    if helpers:
        return check_on_helpers(path, digest, table, helpers, progress)
    engine = get_game(table.game).engine()
    return check_positions(engine, table.algebra, table.positions, progress), 0.0


def _how(table: RctTable) -> str | None:
    """How a table of this process was verified: "re-derived now" or "cached mark"."""
    verified = table.header.get("verified")
    return verified.get("how") if isinstance(verified, dict) else None


def remember_built(path: str | Path, table: RctTable, cpu_seconds: float) -> None:
    """Mark a table file this process has just built from the rules and read back the same
    (``rct-table build``): the build derived every entry from its children, so the whole
    check would only repeat it (17 CPU minutes for S7). A large table gets its index and
    snapshot now too, from the algebra read back from the file."""
    digest = file_digest(path)
    mark: dict[str, Any] = {
        "sha256": digest,
        "tool_version": __version__,
        "canon_version": CANON_VERSION,
        "positions": len(table.positions),
        "rcts": len(table.algebra),
        "cpu_seconds": round(cpu_seconds, 2),
        "verified_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "derived_by": "rct-table build (the file read back the same)",
        "made_by": TABLE_BUILD,
    }
    if len(table.positions) > LAZY_FROM_POSITIONS:
        index, trees = cached_index_files(digest)
        try:
            mark["index_blake2b"] = write_index(path, index, digest, size=_position_size)
            mark["trees_blake2b"] = write_trees(trees, table.algebra.snapshot())
        except OSError:  # an unwritable cache: the first search will write them
            pass
    _write_mark(digest, mark)


def verified_rcts(
    path: str | Path,
    *,
    notice: Callable[[str], None] | None = None,
    lazy_from: int = LAZY_FROM_POSITIONS,
) -> TableRcts | IndexedRcts:
    """The RCT source of a search from a table file: the table loaded whole (verified_table)
    when it has at most ``lazy_from`` positions, else its index opened in place.

    A large table is re-derived whole the first time (no mark yet); then its index (the
    positions, memory-mapped) and a snapshot of its algebra (every tree, taken back without
    re-deriving) are written beside the mark, which keeps both digests, checked at every open.
    """
    digest = file_digest(path)
    mark = read_mark(digest)
    table: RctTable | None = None
    if mark is None or int(mark.get("positions", 0)) <= lazy_from:
        table = verified_table(path, notice=notice)
        mark = read_mark(digest)
        if len(table.positions) <= lazy_from or mark is None:  # small, or no cache to index in
            return TableRcts(table)
    index, trees = cached_index_files(digest)
    wanted_index, wanted_trees = mark.get("index_blake2b"), mark.get("trees_blake2b")
    algebra = None
    if (
        isinstance(wanted_index, str)
        and isinstance(wanted_trees, str)
        and _digest_or_none(index) == wanted_index
    ):
        try:
            algebra = read_trees(trees, wanted_trees)  # refused unless it has that digest
        except (OSError, RctTableError):
            algebra = None
    if algebra is None:  # none yet, or a file that differs: write both again
        if notice is not None:
            notice(f"writing an index of the verified RCT table {path} (once, for this file)")
        if table is None:
            table = verified_table(path, notice=notice)  # the mark holds: loaded, not checked
        try:
            wanted_index = write_index(path, index, digest, size=_position_size)
            wanted_trees = write_trees(trees, table.algebra.snapshot())
        except OSError:  # an unwritable cache: use the table whole, as a small one
            return TableRcts(table)
        mark = dict(mark, index_blake2b=wanted_index, trees_blake2b=wanted_trees)
        _write_mark(digest, mark)
        algebra = read_trees(trees, wanted_trees)
    del table
    _verified.pop(digest, None)  # the index serves it from now on
    rcts = IndexedRcts(index, algebra)
    if rcts.max_size is None:  # an index of an earlier version: the same, with its bound
        try:
            _write_mark(
                digest,
                dict(mark, index_blake2b=write_index(path, index, digest, size=_position_size)),
            )
        except OSError:  # an unwritable cache: the index serves as it is
            pass
        else:
            rcts = IndexedRcts(index, algebra)
    if rcts.header.get("sha256") != digest or rcts.header.get("game") != "sprouts":
        raise RctTableError(f"{index}: an index of another table; delete it")
    return rcts


def cached_index_files(digest: str) -> tuple[Path, Path]:
    """Where the cache keeps a large table's index and its trees' snapshot, by the table
    file's digest (both trusted only through the digests its mark keeps)."""
    folder = cache_dir() / INDEX_FOLDER
    return folder / f"{digest}.idx", folder / f"{digest}.trees"


def _position_size(position: str) -> int:
    """The game's size of a table position (Sprouts: its lives), for an index's bound."""
    return _sizing_game().size(position)


@functools.cache
def _sizing_game() -> Game:
    """The game engine whose size `_position_size` reads (made once, when first needed)."""
    return get_game().engine()


def _digest_or_none(path: Path) -> str | None:
    """blake2b-256 of a cache file, or None when it cannot be read."""
    try:
        return index_digest(path)
    except OSError:
        return None


def _mark_path(digest: str) -> Path:
    return cache_dir() / MARKS_FOLDER / f"{digest}.json"


def read_mark(digest: str) -> dict[str, Any] | None:
    """The cached mark of a file with this digest, if written by a table check or build of
    this tool version for this canonical form (a mark of another version is not evidence
    for this engine) in a cache only this user can write."""
    mark = read_cached_mark(_mark_path(digest))
    if mark is None or mark.get("made_by") not in (TABLE_CHECK, TABLE_BUILD):
        return None
    wanted = {"sha256": digest, "tool_version": __version__, "canon_version": CANON_VERSION}
    if any(mark.get(key) != value for key, value in wanted.items()):
        return None
    return mark


def _write_mark(digest: str, mark: dict[str, Any]) -> None:
    """Write the mark of a table's file (see write_cached_mark)."""
    write_cached_mark(_mark_path(digest), mark)


def write_cached_mark(target: Path, mark: dict[str, Any]) -> None:
    """Write a mark file of the cache atomically (never half-written), its folders private
    to this user; an unwritable or untrusted cache only costs the next command the check."""
    try:
        _private_folders(target.parent)
        if not trusted_cache_path(target.parent):  # its marks would not be read back
            return
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".mark-")
        with os.fdopen(fd, "w") as handle:
            json.dump(mark, handle, indent=1)
        os.replace(temporary, target)
    except OSError:
        pass


def read_cached_mark(target: Path) -> dict[str, Any] | None:
    """The JSON object of a mark file of the cache, or None when there is none, it does not
    parse, or it is not to be trusted (`trusted_cache_path`)."""
    if not target.is_file() or not trusted_cache_path(target):
        return None
    try:
        mark = json.loads(target.read_text())
    except (OSError, ValueError):
        return None
    return mark if isinstance(mark, dict) else None


def trusted_cache_path(path: Path) -> bool:
    """Whether a file or folder of the cache may be believed: it and every folder above it,
    up to the cache folder itself, belong to this user and nobody else may write them (as
    ssh refuses a group-writable key). An untrusted one is said once, as a warning."""
    root = cache_dir()
    chain = [path]
    if path.is_relative_to(root):
        chain += [p for p in path.parents if p.is_relative_to(root)]
    for place in chain:
        try:
            status = os.stat(place)
        except OSError:
            return False
        why = _untrusted_because(status)
        if why is not None:
            if place not in _untrusted_said:
                _untrusted_said.add(place)
                log.warning(
                    "not trusting the cache at %s: %s; its marks are ignored and what they "
                    "vouch for is re-derived (fix: chmod go-w, or remove it)",
                    place,
                    why,
                )
            return False
    return True


def _untrusted_because(status: os.stat_result) -> str | None:
    """Why a cache path with this status could hold what another user wrote, or None."""
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return f"owned by user id {status.st_uid}, not by this user"
    if status.st_mode & 0o022:
        return "writable by group or others"
    return None


def _private_folders(folder: Path) -> None:
    """Make `folder` and the missing folders above it, readable and writable by this user
    only (a folder created by someone's umask 002 would be group-writable, so untrusted)."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for place in reversed(missing):
        place.mkdir(mode=0o700, exist_ok=True)
