"""The RCT table file: round trip, and every kind of damage refused with a clear message."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import zstandard

from sproutsdb.errors import UserError
from sproutsdb.formats import rcttable
from sproutsdb.formats.rcttable import (
    RctTable,
    RctTableError,
    load_table,
    make_header,
    table_from_positions,
    write_table,
)
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.rctsearch import RctSearch, check_positions, game_tree_rcts
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame


@pytest.fixture(scope="module")
def game() -> SproutsGame:
    return SproutsGame()


@pytest.fixture(scope="module")
def s4(game: SproutsGame) -> RctSearch:
    return game_tree_rcts(game, game.canonical("0*4"))


@pytest.fixture
def s4_file(tmp_path: Path, s4: RctSearch) -> Path:
    table = table_from_positions(s4.algebra, s4.positions())
    path = tmp_path / "s4.rcttable"
    write_table(path, table, make_header(table, game="sprouts", root="0*4"))
    return path


def reframe(path: Path, header: dict[str, object] | None = None, body: bytes | None = None) -> None:
    """Rewrite a table with another header or (uncompressed) body and a *valid* checksum:
    damage that only the semantic checks can catch."""
    old_header, packed = rcttable.read_header(path)
    raw = zstandard.ZstdDecompressor().decompress(packed)
    head = dict(old_header if header is None else header)
    new_body = raw if body is None else body
    head["body"] = dict(head["body"], raw_bytes=len(new_body))  # type: ignore[call-overload]
    head_bytes = json.dumps(head).encode()
    packed = zstandard.ZstdCompressor().compress(new_body)
    content = (
        rcttable.PREFIX.pack(rcttable.MAGIC, rcttable.FORMAT_VERSION, len(head_bytes))
        + head_bytes
        + rcttable.BODY_LEN.pack(len(packed))
        + packed
    )
    path.write_bytes(content + hashlib.blake2b(content, digest_size=32).digest())


# -- round trip ------------------------------------------------------------------------------


def test_round_trip_keeps_every_position_id(s4_file: Path, s4: RctSearch) -> None:
    table = load_table(s4_file)
    assert isinstance(table, RctTable)
    assert table.positions.keys() == s4.positions().keys()
    for position, handle in s4.positions().items():
        assert table.rct_id_of(position) == s4.algebra.content_id(handle)
        mine = table.rct_of(position)
        assert mine is not None
        assert table.algebra.format(mine) == s4.algebra.format(handle)
        assert table.algebra.label(mine) == s4.algebra.label(handle)  # discovery order kept
    assert table.rct_of("0*9") is None and table.rct_id_of("0*9") is None


def test_header_and_counts(s4_file: Path) -> None:
    table = load_table(s4_file)
    assert (table.game, table.root, table.canon_version) == ("sprouts", "0*4", CANON_VERSION)
    assert table.counts == {
        "positions": 1505,
        "rcts": 35,
        "position_rcts": 35,
        "nim_heaps": 6,
        "max_height": 7,
    }
    root = table.rct_of("0*4")
    assert root is not None
    assert table.header["root_rct"] == table.algebra.content_id(root)
    assert table.algebra.format(root) == "{3;{1;2;{3;{2}}}}"
    provenance = table.header["provenance"]
    assert provenance["tool"] == "sproutsdb" and provenance["created"].endswith("Z")


def test_records_rebuild_the_same_algebra(s4_file: Path) -> None:
    table = load_table(s4_file)
    records = list(table.records())
    assert len(records) == table.counts["rcts"] == 35
    again = Algebra.from_records(records)
    assert [cid for cid, _ in again.records()] == [cid for cid, _ in records]


def test_loaded_algebra_keeps_growing(s4_file: Path) -> None:
    # A misère solver loads the table, then reduces and adds trees beyond it.
    alg = load_table(s4_file).algebra
    s2 = alg.parse("{2}")
    assert alg.parse("{2}+{2}") != s2 and alg.plus1(s2) == alg.parse("{3;{2}}")


def test_same_table_same_bytes(tmp_path: Path, s4: RctSearch) -> None:
    table = table_from_positions(s4.algebra, s4.positions())
    header = make_header(table, game="sprouts", root="0*4")
    a, b = tmp_path / "a", tmp_path / "b"
    write_table(a, table, header)
    write_table(b, table, header)
    assert a.read_bytes() == b.read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


# -- damage --------------------------------------------------------------------------------


@pytest.mark.parametrize("where", [20, 200, -100, -1])
def test_a_flipped_byte_is_refused(s4_file: Path, where: int) -> None:
    data = bytearray(s4_file.read_bytes())
    data[where] ^= 0x01
    s4_file.write_bytes(bytes(data))
    with pytest.raises(RctTableError, match="checksum mismatch: the file is corrupted"):
        load_table(s4_file)


@pytest.mark.parametrize("keep", [0, 5, 14, 100, 2000, -1])
def test_a_truncated_file_is_refused(s4_file: Path, keep: int) -> None:
    data = s4_file.read_bytes()
    s4_file.write_bytes(data[:keep])  # -1: only the last checksum byte is missing
    with pytest.raises(RctTableError, match=r"truncated|not an RCT table"):
        load_table(s4_file)


def test_trailing_bytes_are_refused(s4_file: Path) -> None:
    s4_file.write_bytes(s4_file.read_bytes() + b"\0")
    with pytest.raises(RctTableError, match="trailing bytes"):
        load_table(s4_file)


def test_other_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "x"
    path.write_bytes(b"hello, this is not a table at all")
    with pytest.raises(RctTableError, match="not an RCT table file"):
        load_table(path)
    with pytest.raises(OSError):
        load_table(tmp_path / "missing")


def test_a_newer_format_version_is_refused(s4_file: Path) -> None:
    data = bytearray(s4_file.read_bytes())
    data[9] = 2  # the low byte of the big-endian version
    s4_file.write_bytes(bytes(data))
    with pytest.raises(RctTableError, match="format version 2; this sproutsdb reads 1"):
        load_table(s4_file)


def test_another_canonical_form_or_game_is_refused(s4_file: Path) -> None:
    header, _ = rcttable.read_header(s4_file)
    reframe(s4_file, header=dict(header, canon_version=99))
    with pytest.raises(RctTableError, match="canon_version 99"):
        load_table(s4_file)
    assert load_table(s4_file, canon_version=None).counts["rcts"] == 35
    reframe(s4_file, header=dict(header, game="kayles"))
    with pytest.raises(RctTableError, match="a table of 'kayles'"):
        load_table(s4_file)


def test_a_wrong_record_with_a_valid_checksum_is_refused(s4_file: Path) -> None:
    # {2} claims to be a misère win: the record is re-derived on load and disagrees.
    _, packed = rcttable.read_header(s4_file)
    lines = zstandard.ZstdDecompressor().decompress(packed).decode().split("\n")
    index = next(i for i, line in enumerate(lines) if "\t3\tL\t-\t-\t" in line)
    lines[index] = lines[index].replace("\t3\tL\t", "\t3\tW\t")
    reframe(s4_file, body="\n".join(lines).encode())
    with pytest.raises(UserError, match="outcome is stored as 'W', recomputed 'L'"):
        load_table(s4_file)


def test_malformed_body_and_counts_are_refused(s4_file: Path) -> None:
    original = s4_file.read_bytes()
    reframe(s4_file, body=b"#rcts\tbanana\n")
    with pytest.raises(RctTableError, match="malformed body"):
        load_table(s4_file)
    s4_file.write_bytes(original)
    header, _ = rcttable.read_header(s4_file)
    reframe(s4_file, header=dict(header, counts=dict(header["counts"], positions=7)))
    with pytest.raises(RctTableError, match="counts in the header do not match"):
        load_table(s4_file)
    reframe(s4_file, header={k: v for k, v in header.items() if k != "counts"})
    with pytest.raises(RctTableError, match="header lacks body size or counts"):
        load_table(s4_file)


def test_a_wrong_position_loads_but_fails_the_check(s4_file: Path, game: SproutsGame) -> None:
    # Positions are not re-derived on load (that needs the engine); check_positions does it.
    table = load_table(s4_file)
    assert check_positions(game, table.algebra, table.positions) == []
    wrong = dict(table.positions)
    wrong["0*2"] = table.algebra.parse("{1;{2}}")
    problems = check_positions(game, table.algebra, wrong)
    # 0*2 itself, and its parents, whose children now give another tree.
    assert any(p.startswith("0*2: stored rct1:cd7a20c7") for p in problems)
    assert all(game.children(p.split(":")[0]) for p in problems)
    del wrong["!"]
    assert any(
        "child ! is not in the table" in p for p in check_positions(game, table.algebra, wrong)
    )


def test_a_sum_of_lands_is_checked_against_the_sum_of_their_rcts(
    s4_file: Path, game: SproutsGame
) -> None:
    """A position of several lands the table holds is checked by the reduced sum of its
    lands' RCTs (no children listed); a sum with a land the table lacks, by its children."""
    table = load_table(s4_file)
    sums = [p for p in table.positions if len(game.components(p)) > 1]
    assert sums, "the tree of 0*4 has positions of several lands"
    position = sums[0]
    stored = table.positions[position]
    other = next(h for h in set(table.positions.values()) if h != stored)
    wrong = dict(table.positions, **{position: other})
    problems = check_positions(game, table.algebra, wrong, keys=[position])
    assert problems == [
        f"{position}: stored {table.algebra.content_id(other)}, the sum of its lands' RCTs "
        f"is {table.algebra.content_id(stored)}"
    ]
    land = game.components(position)[0]
    without_land = {p: h for p, h in wrong.items() if p != land}
    (problem,) = check_positions(game, table.algebra, without_land, keys=[position])
    assert problem.startswith(f"{position}: stored {table.algebra.content_id(other)}, its children")
