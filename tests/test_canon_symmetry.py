"""Automorphism pruning of the canonical search (canon._Search, _core.c search_*).

Lands with interchangeable regions used to cost about k!*2^k leaves per orientation. The
search now skips options that an automorphism of the land (found from two leaves with
equal encodings) maps onto explored ones; keys must not change. Checked here: the pruned
search gives the same encoding as the plain one (prune=False) on symmetric families and
on lands of random games, the C core gives the Python keys, and the number of leaves on
the family AB|CD|...|AB.CD... grows linearly in k instead of factorially.
"""

from __future__ import annotations

import os
import random
import time

import pytest

from sprouts_helpers import random_playout, redraw
from sproutsdb.solver.sprouts import canon
from sproutsdb.solver.sprouts.canon import (
    _Search,
    canonical_lands,
    encode_land,
    format_encoding,
    normalize,
)
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import parse, upper_name

try:
    from sproutsdb.solver.sprouts import _core
except ImportError:
    if os.environ.get("SPROUTSDB_REQUIRE_CORE") == "1":
        raise
    _core = None

needs_core = pytest.mark.skipif(_core is None, reason="the C core is not built")


def letters(count: int, start: int = 0) -> list[str]:
    return [upper_name(start + i) for i in range(count)]


def family(k: int, width: int = 2) -> str:
    """k regions of `width` uppercase letters around one region holding k boundaries."""
    names = letters(k * width)
    groups = ["".join(names[i * width : (i + 1) * width]) for i in range(k)]
    return "|".join(groups) + "|" + ".".join(groups)


def family_key(k: int) -> str:
    """The canonical key of family(k): the region seen once first (canonical form v2)."""
    names = letters(k * 2)
    groups = ["".join(names[i * 2 : (i + 1) * 2]) for i in range(k)]
    return ".".join(groups) + "|" + "|".join(groups)


def the_land(text: str) -> canon.Land:
    lands = normalize(parse(text))
    assert len(lands) == 1, text
    return lands[0]


def searched(land: canon.Land, prune: bool) -> tuple[list[int], int]:
    """encode_land by hand, with the number of leaves of the search."""
    search = _Search(land, prune)
    best = search.run()
    assert best == encode_land(land, prune)
    return best, search.leaves


@pytest.mark.parametrize("k", [2, 3, 4, 5, pytest.param(6, marks=pytest.mark.slow)])  # 6: a minute
def test_family_pruned_equals_plain_search(k: int) -> None:
    land = the_land(family(k))
    pruned, pruned_leaves = searched(land, True)
    plain, plain_leaves = searched(land, False)
    assert pruned == plain
    assert format_encoding(pruned) == family_key(k)
    print(f"k={k}: leaves pruned {pruned_leaves}, plain {plain_leaves}")
    assert pruned_leaves < plain_leaves or k < 2


def test_family_leaves_grow_polynomially() -> None:
    counts = {}
    for k in range(2, 13):
        land = the_land(family(k))
        start = time.process_time()
        encoding, leaves = searched(land, True)
        counts[k] = leaves
        assert format_encoding(encoding) == family_key(k)
        print(f"k={k}: {leaves} leaves, {time.process_time() - start:.4f} s (Python)")
    for k, leaves in counts.items():
        assert leaves <= 4 * k * k, (k, leaves)  # plain search: 2 * k! * 2**k


@pytest.mark.parametrize(
    "text",
    [
        family(3, 3),
        family(3, 4),
        family(3, 5),
        "0.AB|CD|AB.CD",
        "0*2.AB|CD|EF|AB.CD.EF",
        "2AB|2CD|2EF|AB.CD.EF",
        "AB|CD|EF|AB.CD.EF.GH|GH",
        "ABCD|ADCB",
        "ABCDEF|AFEDCB",
        "ABCDEFGH|AHGFEDCB",
        "AB|CD|AB.CD+AB|AB",
        "ABC|DEF|ABC.DEF.GH|GH",
        "1aAa|1aBa|AB",
        "2A|2B|2C|ABC",
        "2A|2B|2C|2D|ABCD",
        "2A|2B|2C|2D|ADCB",
        "A.BC.DE|BC|DE|2A",
    ],
)
def test_symmetric_lands_pruned_equals_plain_search(text: str) -> None:
    for land in normalize(parse(text)):
        assert searched(land, True)[0] == searched(land, False)[0], text


def _random_lands(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    game = SproutsGame()
    lands: list[str] = []
    seen: set[str] = set()
    while len(lands) < count:
        start = rng.choice(["0*5", "0*6", "0*7", "0*8", "0*9"])
        for key in random_playout(game, start, rng, rng.randint(1, 12)):
            if key == "!":
                continue
            for land in key.split("+"):
                if land not in seen:
                    seen.add(land)
                    lands.append(land)
    return lands[:count]


def test_lands_of_random_games_pruned_equals_plain_search() -> None:
    rng = random.Random(11)
    for text in _random_lands(600, 5):
        drawn = redraw(text, rng)
        for land in normalize(parse(drawn)):
            pruned = searched(land, True)[0]
            assert pruned == searched(land, False)[0], drawn
        assert canonical_lands(parse(drawn)) == [text], drawn


@needs_core
@pytest.mark.parametrize("k", range(2, 11))
def test_core_family_equals_python(k: int) -> None:
    text = family(k)
    canon._MEMO.clear()
    expected = canonical_lands(parse(text))
    _core.clear_memo()
    start = time.process_time()
    got = _core.canonical_lands(text)
    seconds = time.process_time() - start
    print(f"k={k}: C {seconds:.4f} s")
    assert list(got) == expected == [family_key(k)]


@needs_core
@pytest.mark.parametrize("k", [8, 9, 10, 12, 16])
def test_core_large_family_is_correct(k: int) -> None:
    # Before pruning k=8 took 70 s; now well under a second (timing printed, not asserted).
    _core.clear_memo()
    start = time.process_time()
    got = _core.canonical_lands(family(k))
    print(f"k={k}: C {time.process_time() - start:.4f} s")
    assert got == (family_key(k),)


@needs_core
def test_core_equals_python_on_symmetric_lands() -> None:
    rng = random.Random(3)
    texts = [family(k, w) for k in range(2, 6) for w in range(2, 6)]
    texts += [
        "0.AB|CD|AB.CD",
        "2AB|2CD|2EF|AB.CD.EF",
        "ABCDEFGH|AHGFEDCB",
        "2A|2B|2C|2D|ABCD",
        "2A|2B|2C|2D|ADCB",
        "ABC|DEF|ABC.DEF.GH|GH",
    ]
    for text in texts:
        for _ in range(3):
            drawn = redraw(canonical_lands(parse(text))[0], rng, old_syntax=False)
            canon._MEMO.clear()
            _core.clear_memo()
            assert list(_core.canonical_lands(drawn)) == canonical_lands(parse(drawn)), drawn
