"""The compiled core's memo of canonical strings (core_memo.c): bounded, compact, and
never a different string than the Python reference, whatever its limit or history."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sproutsdb.solver.sprouts import canon, notation
from sproutsdb.solver.sprouts import game as sprouts_game

core = sprouts_game.compiled_core()
pytestmark = pytest.mark.skipif(core is None, reason="the compiled core is not built")

# Lands of 16 vertices or more: their shapes take two bytes a corner in the memo's keys.
WIDE = [
    "0.1.2.0.1.2.0.1.2.0.1.2.0.1.2.0.1.2",
    "0.1.AB.2.0.1.CD.0.1.2.EF|AB.0.1.2.0.1|CD.0.1.2.0.2|EF.1.0.1.2.0",
    "0*18",
]
LANDS = ["0*6", "0*5", "0.AB|AB.1", "0*2.ABC|ABC.0", "0*4.1a1a", "0*3.AB|AB|0.1"]


@pytest.fixture(autouse=True)
def _default_limit() -> Iterator[None]:
    """Each test starts from an empty memo that holds no memory, and leaves the game's
    limit in force. clear_memo keeps the memory for the next round, and an unchanged limit
    keeps it too: an earlier test's large memo (the game's 2²⁰ for a long search) would
    otherwise be counted in this test's bytes per entry. Two new limits free it."""
    assert core is not None
    core.set_memo_limit(2)
    core.set_memo_limit(sprouts_game.CORE_MEMO_KEPT)
    yield
    core.set_memo_limit(sprouts_game.CORE_MEMO_KEPT)
    core.clear_memo()


def _python_lands(text: str) -> tuple[str, ...]:
    return tuple(canon.canonical_lands(notation.parse(text)))


# A land and the same land with one region read backwards, whose boundaries read the same
# codes either way round, so that only the names of its letters could tell the two views
# apart: the memo's key writes the lesser view, and both share it.
TURNED = [
    ("0*9.1AB|0.AB", "0*9.BA1|0.AB"),
    ("0*3.A|0.1BC.A|0.BC", "0*3.A|0.CB1.A|0.BC"),
]


def test_a_region_read_backwards_shares_the_memo_key() -> None:
    assert core is not None
    for land, turned in TURNED:
        core.clear_memo()
        assert core.canonical_lands(land) == _python_lands(land)
        assert core.canonical_lands(turned) == _python_lands(land)
        assert core.memo_size() == 1, (land, turned)


def test_wide_lands_read_back_the_same_from_the_memo() -> None:
    assert core is not None
    for text in WIDE:
        expected = _python_lands(text)
        assert core.canonical_lands(text) == expected  # searched, then memoised
        assert core.canonical_lands(text) == expected  # read from the memo
    assert core.memo_size() >= len(WIDE)


@pytest.mark.parametrize("limit", [2, 3, 16, 64, 1 << 17])
def test_children_are_the_reference_ones_under_any_limit(limit: int) -> None:
    assert core is not None
    assert core.set_memo_limit(limit) == limit // 2 * 2
    for land in LANDS + LANDS:  # the second round meets the memo in another state
        assert core.land_children(land) == sprouts_game.python_land_children(land)
        assert core.memo_size() <= max(limit, 2)


def test_the_memo_never_holds_more_than_its_limit() -> None:
    assert core is not None
    core.set_memo_limit(40)
    for land in ["0*7", "0*6.1a1a", "0*5.AB|AB"]:
        core.land_children(land)
        assert core.memo_size() <= 40


def test_strings_met_lately_survive_a_generation_turn() -> None:
    """A flat memo cleared whole forgets everything; two generations keep what was met
    since the last turn: after a turn, a land met again is not searched again."""
    assert core is not None
    core.set_memo_limit(1 << 12)
    core.canonical_lands("0*4.1a1a")
    for land in ["0*7", "0*6", "0*5.AB|AB"]:  # fills and turns the young generation
        core.land_children(land)
        core.canonical_lands("0*4.1a1a")  # met again: kept young
    offered: list[tuple[str, ...]] = []
    # memoised_first offers first the children whose lands are all memoised: the land
    # 0*4.1a1a's own children were never made, but the land itself was kept.
    assert core.first_child("0*4.1a1a", offered.append, True) is None
    assert offered and set(offered) == set(core.land_children("0*4.1a1a"))


def test_a_new_limit_empties_the_memo_and_bad_limits_are_refused() -> None:
    assert core is not None
    core.land_children("0*5")
    assert core.memo_size() > 0
    core.set_memo_limit(1 << 10)
    assert core.memo_size() == 0
    for bad in (0, 1, -5, 1 << 40):
        with pytest.raises(ValueError, match="memo limit"):
            core.set_memo_limit(bad)
    with pytest.raises(TypeError):
        core.set_memo_limit("many")  # type: ignore[arg-type]


def test_an_entry_costs_well_under_the_flat_table_s_275_bytes() -> None:
    """The point of core_memo.c: 2¹⁷ strings in ~20 MB (the flat table needed ~36 MB)."""
    assert core is not None
    core.set_memo_limit(1 << 20)
    done: set[str] = set()
    lands = {"0*9", "0*8.1a1a"}
    for _ in range(3):  # lands, their children's lands, and theirs: ~10⁴ strings
        new = lands - done
        done |= new
        lands = {part for land in new for child in core.land_children(land) for part in child}
    count = core.memo_size()
    assert count > 5000
    assert core.memo_bytes() / count < 200
