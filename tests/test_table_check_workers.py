"""An RCT table re-derived by helper processes finds exactly what one process finds: no
fault of a clean table, every fault of a forged one (a wrong tree under a valid checksum), in
the same order; a file that changed under the check is refused, and no helper outlives it. Two
commands that need one table at once run one check."""

from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sproutsdb import trusted_tables
from sproutsdb.formats.rctindex import write_trees
from sproutsdb.formats.rcttable import (
    RctTableError,
    load_table,
    make_header,
    table_from_positions,
    write_table,
)
from sproutsdb.solver.misere.rctsearch import check_positions, game_tree_rcts
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.table_check_workers import balanced_shares, check_on_helpers, helpers_for
from sproutsdb.trusted_tables import rederive_positions

GAME = SproutsGame()


def _write(path: Path, positions: dict[str, int], algebra: object) -> Path:
    table = table_from_positions(algebra, positions)  # type: ignore[arg-type]
    write_table(path, table, make_header(table, game="sprouts", root="0*4"))
    return path


@pytest.fixture(scope="module")
def s4_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The table of 0*4's game tree, and a forgery of it: 0*2 given the tree of 0*3."""
    folder = tmp_path_factory.mktemp("s4")
    search = game_tree_rcts(GAME, GAME.canonical("0*4"))
    positions = dict(search.positions())
    clean = _write(folder / "s4.rcttable", positions, search.algebra)
    positions[GAME.canonical("0*2")] = positions[GAME.canonical("0*3")]
    return clean, _write(folder / "forged.rcttable", positions, search.algebra)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("helpers", [1, 3])
def test_helpers_find_what_one_process_finds(s4_files: tuple[Path, Path], helpers: int) -> None:
    clean, forged = s4_files
    table = load_table(clean)
    seen: list[int] = []
    problems, cpu = check_on_helpers(clean, _digest(clean), table, helpers, seen.append)
    assert problems == [] and cpu > 0
    assert seen == sorted(seen) and seen[-1] == len(table.positions)
    table = load_table(forged)
    alone = check_positions(GAME, table.algebra, table.positions)
    assert any(p.startswith("0*2: stored") for p in alone)
    problems, _ = check_on_helpers(forged, _digest(forged), table, helpers)
    assert problems == alone


@pytest.mark.parametrize("helpers", [1, 2, 3, 5])
def test_shares_cover_every_position_once_in_order_and_weigh_alike(helpers: int) -> None:
    """Consecutive runs of the keys, one per helper, together every key once; keys of one
    size are cut by count, and a run of long keys gets fewer of them."""
    keys = [f"{i:04d}" for i in range(100)]
    shares = balanced_shares(keys, helpers)
    assert len(shares) == helpers and shares[0][0] == 0 and shares[-1][1] == len(keys)
    assert all(stop == start for (_, stop), (start, _) in itertools.pairwise(shares))
    sizes = [stop - start for start, stop in shares]
    assert max(sizes) - min(sizes) <= 1
    long_tail = ["ab"] * 60 + ["abcdefgh"] * 15  # 60 * 4 = 240 against 15 * 64 = 960
    (_, cut), _ = balanced_shares(long_tail, 2)
    assert 60 < cut < 75
    assert balanced_shares([], 2) == [(0, 0), (0, 0)]


def test_a_table_that_changed_under_the_check_is_refused(s4_files: tuple[Path, Path]) -> None:
    clean, forged = s4_files
    with pytest.raises(RctTableError, match="changed while it was being checked"):
        check_on_helpers(forged, _digest(clean), load_table(forged), 2)


def test_a_helper_takes_the_callers_trees_only_by_their_digest(
    s4_files: tuple[Path, Path], tmp_path: Path
) -> None:
    """A helper takes the records' trees from the snapshot its caller wrote (not re-deriving
    them) only when the snapshot has the digest the caller gave it."""
    clean, _ = s4_files
    trees = tmp_path / "trees"
    written = write_trees(trees, load_table(clean).algebra.snapshot())
    helper = [sys.executable, "-m", "sproutsdb.table_check_workers", str(clean), _digest(clean)]
    ran = subprocess.run([*helper, str(trees), written, "0", "3"], capture_output=True, text=True)
    assert ran.returncode == 0 and '"problems": []' in ran.stdout
    other = "0" * len(written)
    ran = subprocess.run([*helper, str(trees), other, "0", "3"], capture_output=True, text=True)
    assert ran.returncode == 2 and "the snapshot differs from the one verified" in ran.stderr


def test_small_tables_are_checked_in_the_caller(s4_files: tuple[Path, Path]) -> None:
    clean, _ = s4_files
    table = load_table(clean)
    assert helpers_for(len(table.positions)) == 0
    assert rederive_positions(clean, _digest(clean), table) == ([], 0.0)
    assert helpers_for(10**6) in (0, *range(2, 9))  # one core: none; else one per core


def test_two_commands_checking_one_table_wait_for_one_check(
    s4_files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second command that needs a table another is re-deriving says it waits, then takes
    the first one's mark instead of re-deriving the table again."""
    clean, _ = s4_files
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPROUTSDB_CACHE", str(cache))
    monkeypatch.setattr(trusted_tables, "_verified", {})
    digest = _digest(clean)
    second = (
        "from sproutsdb.trusted_tables import verified_table\n"
        "import sys\n"
        f"table = verified_table({str(clean)!r}, notice=lambda s: print(s, file=sys.stderr, flush=True))\n"
        "print(table.header['verified']['how'])\n"
    )
    with trusted_tables._one_check_at_a_time(digest, clean, None):
        waiting = subprocess.Popen(
            [sys.executable, "-c", second],
            env={**os.environ, "SPROUTSDB_CACHE": str(cache)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert waiting.stderr is not None
            assert "waiting for another sproutsdb command" in waiting.stderr.readline()
            table = load_table(clean)
            trusted_tables._check_or_believe(clean, digest, table, False, None, None)
            assert table.header["verified"]["how"] == "re-derived now"
        except BaseException:
            waiting.kill()
            raise
    out, _ = waiting.communicate(timeout=60)
    assert waiting.returncode == 0 and out.strip() == "cached mark"
