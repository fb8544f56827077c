"""RCT table files: build one from the rules, or name one (`--rct-table s7`).

`rct-table build ROOT --out FILE` and a named table share `build_rct_table`. A name `sN`
(1 ≤ N ≤ 7; any case) stands for the table of the game tree of 0*N: `s6` is the shipped
file, and any other is built once from the rules into the cache (`$SPROUTSDB_CACHE/tables`)
the first time a command asks for it, with progress, then found there. S7, the base that
pays for misère roots of 0*15 and up (bench/misere.py), is too large for the wheel (48 MB)
and takes about 15 minutes and 5 GB to build, so it is made on demand. A cached file earns
no trust by its place: every command takes it through `trusted_tables` as it would any file
(a build marks its own file; a file put there by anyone else is re-derived whole first).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sproutsdb.errors import UserError
from sproutsdb.formats.rcttable import load_table, make_header, table_from_positions, write_table
from sproutsdb.games import get_game
from sproutsdb.ops.solved_on import table_file_name, tables_solved_on
from sproutsdb.progress import counter_bar
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.ports.proofstore import FactKind, ProofStore
from sproutsdb.trusted_tables import cache_dir, remember_built

if TYPE_CHECKING:
    from sproutsdb.store import LmdbProofStore

TABLES_FOLDER = "tables"
_NAME = re.compile(r"[sS]([1-7])")
# what a build of a named table costs on the 2-core machine of DESIGN §7 (told beforehand)
_BUILD_COST = {7: "about 15 minutes and 5 GB"}


@dataclass(frozen=True)
class BuiltTable:
    """What `build_rct_table` wrote: the file, its counts and what it cost."""

    path: Path
    positions: int
    rcts: int
    size: int
    cpu_seconds: float
    wall_seconds: float

    def summary(self) -> str:
        """The line `rct-table build` prints."""
        return (
            f"{self.path}: {self.positions} positions, {self.rcts} RCTs, {self.size} bytes, "
            f"{self.cpu_seconds:.1f} s CPU ({self.wall_seconds:.1f} s wall)"
        )


def build_rct_table(
    root: str,
    out: str | Path,
    *,
    progress: bool = True,
    verify: bool = True,
    command: str = "rct-table build",
) -> BuiltTable:
    """Write the RCT table of the game tree of `root` to `out`, every entry derived from the
    rules. With `verify`, the file is read back and compared, then marked verified in the
    cache (a later use need not re-derive it). `progress`: a counter of positions on stderr."""
    game = get_game().engine()
    key = game.canonical(root)
    out = Path(out)
    if not out.parent.is_dir():
        raise UserError(f"{out.parent} is not a directory")
    wall, cpu = time.perf_counter(), time.process_time()
    with counter_bar("positions", enabled=progress) as bar:
        search = game_tree_rcts(game, key, progress=bar.update_to)
    table = table_from_positions(search.algebra, search.positions())
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    header = make_header(
        table,
        game=game.name,
        root=key,
        extra={"command": command, "cpu_seconds": round(cpu, 1)},
    )
    size = write_table(out, table, header)
    if verify:
        again = load_table(out)
        if {p: again.rct_id_of(p) for p in again.positions} != {
            p: search.algebra.content_id(h) for p, h in search.positions().items()
        }:
            raise RuntimeError(f"{out}: the written table does not read back the same")
        remember_built(out, again, cpu)  # derived from the rules here: no check on first use
    counts = header["counts"]
    return BuiltTable(out, counts["positions"], counts["rcts"], size, cpu, wall)


def table_name_spots(value: str | Path) -> int | None:
    """N when `value` names the table of 0*N (`s7`) and is no existing file, else None."""
    match = _NAME.fullmatch(str(value))
    if match is None or Path(value).exists():
        return None
    return int(match[1])


def named_table_path(spots: int) -> Path:
    """Where the table of 0*`spots` is (the shipped file for 6) or will be built."""
    if spots == 6:
        from sproutsdb.shipped import shipped_table

        shipped = shipped_table()
        if shipped is not None:
            return shipped
    return cache_dir() / TABLES_FOLDER / f"s{spots}.rcttable"


def rct_table_file(
    value: str | Path,
    *,
    notice: Callable[[str], None] | None = None,
    progress: bool = True,
) -> Path:
    """The file an `--rct-table` value stands for: a path as given; a name (`s7`) the
    cached table of 0*N, built first when it is not there yet (said through `notice`,
    its counter of positions on stderr unless `progress` is off: `--quiet`).
    A path that does not exist is refused here, with the names in the message."""
    spots = table_name_spots(value)
    if spots is None:
        path = Path(value).expanduser()
        if not path.is_file():
            raise UserError(
                f"{value}: no such file (an RCT table from `rct-table build`, or a name: "
                "s1 .. s7 for the table of 0*1 .. 0*7, s7 built once into the cache)"
            )
        return path
    path = named_table_path(spots)
    if path.is_file():
        return path
    if notice is not None:
        cost = _BUILD_COST.get(spots, "seconds")
        notice(
            f"building the RCT table of 0*{spots} into {path} ({cost}; once: later commands "
            f"find it there; `sproutsdb rct-table build 0*{spots} --out FILE` makes a copy "
            "of your own)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        build_rct_table(f"0*{spots}", partial, command=f"--rct-table s{spots}", progress=progress)
        os.replace(partial, path)  # whole or not at all, even beside another build
    finally:
        partial.unlink(missing_ok=True)
    return path


# From 0*18's lives on, an empty store's misère solve takes S7: measured there (bench/misere.py;
# its rows are kept in bench/history/misere.md), S7 pays from 0*18 on in CPU and visits, at
# 1.3-1.6x the memory and a build of about 10 CPU minutes once; below 0*18 S6 stays, as small
# roots need no 5 GB build.
LARGE_MISERE_LIVES = 54
LARGE_ROOT_TABLE = 7


def table_the_store_names(store: LmdbProofStore, *, built_only: bool = False) -> str | None:
    """The named table (`s7`) whose file the misère solves on `store` were run on, when
    they all name one table by the file name a named table has: a resumed solve and a
    check then read the same table without being told (`built_only`: only if it is here
    already, so a check never starts a build). The store's text only picks a table; the
    table is trusted by its mark or re-derived, as every file is. Builds are not byte for
    byte alike (the header says when), so the name is matched, not the checksum."""
    names = {table_file_name(text) for text in tables_solved_on(store)}
    name = name_of_table_file(names.pop()) if len(names) == 1 else None
    if name is None or (built_only and not named_table_path(int(name[1:])).is_file()):
        return None
    return name


def name_of_table_file(file_name: str) -> str | None:
    """The name (`s7`) of a file named as a named table's file is (`s7.rcttable`), else None."""
    stem = file_name.removesuffix(".rcttable")
    found = _NAME.fullmatch(stem) if stem != file_name else None
    return f"s{found[1]}" if found else None


def default_misere_table(
    store: ProofStore, root: str, *, notice: Callable[[str], None] | None = None
) -> str | None:
    """The table a Sprouts misère solve of `root` on a local `store` uses when no
    `--rct-table` is given: the one named table its earlier solves ran on (a rerun
    resumes on it); else, on a store holding no misère facts and no RCTs, S7 for a root of
    at least 0*18's lives (built once, announced through `notice`); else None, the store's
    RCTs or the shipped S6 (sproutsdb.ops.solve.misere_rct_source); None for a server's
    store too (the server's table)."""
    from sproutsdb.store import LmdbProofStore

    if (
        not isinstance(store, LmdbProofStore)
        or not get_game(store.identity.game).supports.rct_tables
        or store.count(FactKind.RCT)
    ):
        return None
    named = table_the_store_names(store)
    if named is not None:
        return named
    if store.count(FactKind.MISERE) or store.count(FactKind.POS_RCT):
        return None
    lives = get_game().engine().size(root)
    if lives < LARGE_MISERE_LIVES:
        return None
    if notice is not None:
        notice(
            f"{root} has {lives} lives, {LARGE_MISERE_LIVES} (0*18's) or more, so this new "
            f"store is solved on S7, the table of 0*{LARGE_ROOT_TABLE}'s tree (about 2-3x "
            "less CPU than S6 at 0*18..0*20, bench/misere.py; `--rct-table s6` keeps the "
            "shipped table); a check of its proof reads S7 too"
        )
    return f"s{LARGE_ROOT_TABLE}"
