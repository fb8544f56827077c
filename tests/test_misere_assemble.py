"""The compiled assembly of a node's children from one land's moves, their move order and
df-pn's pass over them (_assemble.c) against the Python definitions (assemble.py, dfpn.py):
the same keys in the same order with equal values, on the calls of real misère searches and
on random input, and clear errors on bad input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.formats.rcttable import table_from_positions
from sproutsdb.solver.misere.assemble import (
    COMPILED,
    COMPILED_ORDER,
    COMPILED_SCAN,
    assemble_land_moves,
    order_children,
    scan_children,
)
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.search.dfpn import INFINITY
from sproutsdb.solver.sprouts.game import SproutsGame

needs_compiled = pytest.mark.skipif(
    COMPILED is None or COMPILED_ORDER is None or COMPILED_SCAN is None,
    reason="_assemble.c is not built",
)


def _both(*args: Any) -> list[tuple[str, Any]]:
    """Run both assemblers on copies of the same ``out`` and return the C one's items,
    after asserting the two agree item by item, in order."""
    assert COMPILED is not None
    out, rest = args[0], args[1:]
    by_python, by_c = dict(out), dict(out)
    assemble_land_moves(by_python, *rest)
    COMPILED(by_c, *rest)
    assert list(by_c.items()) == list(by_python.items())
    return list(by_c.items())


@needs_compiled
@pytest.mark.parametrize("n", [9, 10])
def test_compiled_equals_python_on_a_real_search(n: int) -> None:
    """Every call a misère search of 0*n makes (with the S4 table, so that moves carry
    RCTs, parity flips and nimbers) gives the same children both ways."""
    game = SproutsGame()
    search = game_tree_rcts(game, game.canonical("0*4"))
    table = table_from_positions(search.algebra, search.positions())
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(table))
    calls = {"all": 0, "with_rcts": 0, "keys": 0, "orders": 0}

    def checked(*args: Any) -> None:
        before = len(args[0])
        items = _both(*args)
        calls["all"] += 1
        calls["with_rcts"] += any(not isinstance(move, str) and move[3] for move in args[2])
        calls["keys"] += len(items) - before
        args[0].clear()
        args[0].update(items)

    def ordered(kids: Any, divisor: int, initials: Any) -> Any:
        assert COMPILED_ORDER is not None
        got = COMPILED_ORDER(kids, divisor, initials)
        assert got == order_children(kids, divisor, initials)
        calls["orders"] += 1
        return got

    def scanned(*args: Any) -> Any:
        assert COMPILED_SCAN is not None
        got = COMPILED_SCAN(*args)
        assert got == scan_children(*args)
        calls["scans"] += 1
        calls["decided"] += got[0] == 0 or got[1] == 0 or bool(got[5])
        return got

    calls["scans"] = calls["decided"] = 0
    solver._assemble = checked
    solver._order = ordered
    solver._scan_twin = scanned
    solver.outcome(f"0*{n}")
    assert calls["all"] > 1_000 and calls["with_rcts"] > 500 and calls["keys"] > 20_000
    assert calls["orders"] > 500 and calls["scans"] > 1_000 and calls["decided"] > 500


land = st.text(alphabet="0.ABab|+", min_size=1, max_size=4)
lands = st.lists(land, max_size=4).map(tuple)
handle = st.integers(2, 9)
move = st.one_of(
    land,
    st.tuples(
        lands,
        st.integers(0, 9),
        st.integers(0, 1),
        st.lists(handle, max_size=3).map(tuple),
        st.integers(0, 7),
        st.integers(0, 20),
    ),
)
# content ids with ties (two handles of one id) and non-ASCII text, to reach both key paths
cid = st.fixed_dictionaries(
    {h: st.sampled_from(["a1", "b2", "b2", "c3", "é4"]) for h in range(2, 10)}
)


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(
    rest=st.one_of(lands, lands.map(lambda t: tuple(sorted(t)))),
    moves=st.lists(move, max_size=8),
    as_bytes=st.booleans(),
    parity=st.integers(0, 1),
    rcts=st.lists(handle, max_size=3).map(tuple),
    cid=cid,
    rct_nimber=st.integers(0, 7),
    rct_height=st.integers(0, 9),
    seen=st.lists(land, max_size=2),
)
def test_compiled_equals_python_on_random_input(
    rest: tuple[str, ...],
    moves: list[Any],
    as_bytes: bool,
    parity: int,
    rcts: tuple[int, ...],
    cid: dict[int, str],
    rct_nimber: int,
    rct_height: int,
    seen: list[str],
) -> None:
    """Unsorted lands, tied and non-ASCII ids, lives as bytes or ints, keys already present."""
    lives = [len(m) if isinstance(m, str) else m[1] for m in moves]
    tail = "".join(" " + cid[h] for h in rcts)
    out = {key: ((0, 0, 0, 0), ((key,), 0, ())) for key in seen}
    _both(
        out,
        rest,
        tuple(moves),
        bytes(lives) if as_bytes else tuple(lives),
        5,
        parity,
        rcts,
        (tail, " *1" + tail),
        rct_nimber,
        rct_height,
        cid,
    )


@needs_compiled
@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (({}, (), ("a",), (1,), 0, 0, (), ("", "")), TypeError, "11 arguments"),
        (({}, ("a", 3), ("b",), (1,), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "must be str"),
        (({}, (), (("a",),), (1,), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "a move is a str"),
        (
            ({}, (), ((("a",), 1, 0, (7,), 0, 0),), (1,), 0, 0, (), ("", ""), 0, 0, {}),
            KeyError,
            "7",
        ),
        (({}, (), ("a",), ("x",), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "lives"),
        (([], (), ("a",), (1,), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "assemble_land_moves"),
    ],
)
def test_compiled_rejects_bad_input_with_an_error(
    args: tuple[Any, ...], error: type, match: str
) -> None:
    assert COMPILED is not None
    with pytest.raises(error, match=match):
        COMPILED(*args)


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(
    sizes=st.dictionaries(
        st.text(alphabet="ab!+é", max_size=3),
        st.tuples(
            st.tuples(st.integers(0, 9), st.integers(-3, 0), st.integers(0, 1), st.integers(-2, 9)),
            st.lists(handle, max_size=3).map(tuple),
        ),
        max_size=12,
    ),
    divisor=st.integers(1, 4),
)
def test_compiled_order_equals_python_on_random_input(
    sizes: dict[str, tuple[tuple[int, int, int, int], tuple[int, ...]]], divisor: int
) -> None:
    """Ties of size broken by key, negative parts, initial numbers looked up per δ."""
    assert COMPILED_ORDER is not None
    kids = {key: (size, ((key,), 0, rcts)) for key, (size, rcts) in sizes.items()}
    initials = {delta: (1, delta) for delta in range(1, 20)}
    assert COMPILED_ORDER(kids, divisor, initials) == order_children(kids, divisor, initials)


@needs_compiled
@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (({}, 2), TypeError, "3 arguments"),
        (({}, 0, {}), ValueError, "divisor must be positive"),
        (({"a": ((1, 2, 3), ((), 0, ()))}, 2, {}), TypeError, "kids maps str"),
        (({"a": ((1, 2, 3, "x"), ((), 0, ()))}, 2, {}), TypeError, "4 ints"),
        (({"a": ((1, 2, 3, 4), ((), 0, ()))}, 2, {}), KeyError, "1"),
    ],
)
def test_compiled_order_rejects_bad_input_with_an_error(
    args: tuple[Any, ...], error: type, match: str
) -> None:
    assert COMPILED_ORDER is not None
    with pytest.raises(error, match=match):
        COMPILED_ORDER(*args)


pair = st.tuples(st.integers(0, 6), st.integers(0, 6)).map(
    lambda p: (INFINITY if p[0] == 6 else p[0], INFINITY if p[1] == 6 else p[1])
)
child = st.tuples(
    st.sampled_from(["a", "b", "c", "d", "e", "f", "é"]),
    st.booleans(),  # a node with lands, or one decided by decided() alone
    st.tuples(st.integers(1, 4), st.integers(1, 4)),
)
verdict = st.sampled_from([None, None, True, False])


@needs_compiled
@settings(max_examples=500, deadline=None)
@given(
    kids=st.lists(child, max_size=8),
    table=st.dictionaries(st.sampled_from("abcdefé"), st.booleans(), max_size=4),
    claims=st.sets(st.sampled_from("abcdefé"), max_size=3),
    verdicts=st.dictionaries(st.sampled_from("abcdefé"), verdict, max_size=7),
    numbers=st.dictionaries(st.sampled_from("abcdefé"), pair, max_size=5),
    learnt=st.dictionaries(st.sampled_from("abcdefé"), pair, max_size=5),
    hashed=st.booleans(),
)
def test_compiled_scan_equals_python_on_random_input(
    kids: list[tuple[str, bool, tuple[int, int]]],
    table: dict[str, bool],
    claims: set[str],
    verdicts: dict[str, bool | None],
    numbers: dict[str, tuple[int, int]],
    learnt: dict[str, tuple[int, int]],
    hashed: bool,
) -> None:
    """Children with and without lands, keys proven, claimed, in the table of numbers (by
    key or by hash), learnt, or none of these; losing children early or late."""
    assert COMPILED_SCAN is not None
    children = [
        (key, ((key,) if with_lands else (), 0, ()), initial) for key, with_lands, initial in kids
    ]

    def decided(node: Any, key: str) -> bool | None:
        """What MisereSolver._decided answers: the table for a node with lands, unless its
        key is a claim; anything for the others."""
        if node[0] and key not in claims:
            return table.get(key)
        return verdicts.get(key)

    table_of_numbers: dict[Any, tuple[int, int]] = (
        {hash(key): value for key, value in numbers.items()} if hashed else dict(numbers)
    )
    args = (children, decided, table_of_numbers, learnt, hashed, table, claims)
    assert COMPILED_SCAN(*args) == scan_children(*args)


@needs_compiled
@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (([], None, {}, {}, False, {}), TypeError, "7 arguments"),
        (((), None, {}, {}, False, {}, set()), TypeError, "children must be a list"),
        (([], None, {}, {}, False, {}, []), TypeError, "claims a set"),
        ((["a"], None, {}, {}, False, {}, set()), TypeError, "a child is a"),
        (([("a", (("a",), 0, ()), (1,))], None, {}, {}, False, {}, set()), TypeError, "pairs"),
        (
            ([("a", (("a",), 0, ()), (1, "x"))], None, {}, {}, False, {}, set()),
            TypeError,
            "integer",
        ),
        (
            ([("a", (("a",), 0, ()), (1, 1 << 70))], None, {}, {}, False, {}, set()),
            OverflowError,
            "too big",
        ),
        (([("a", ((), 0, ()), (1, 1))], None, {}, {}, False, {}, set()), TypeError, "callable"),
    ],
)
def test_compiled_scan_rejects_bad_input_with_an_error(
    args: tuple[Any, ...], error: type, match: str
) -> None:
    assert COMPILED_SCAN is not None
    with pytest.raises(error, match=match):
        COMPILED_SCAN(*args)


def test_scan_lets_decided_raise() -> None:
    """An exception from decided (a store that fails) comes out of either pass as it is."""

    def failing(node: Any, key: str) -> bool | None:
        raise RuntimeError("store gone")

    children = [("a", ((), 0, ()), (1, 1))]
    for scan in filter(None, (COMPILED_SCAN, scan_children)):
        with pytest.raises(RuntimeError, match="store gone"):
            scan(children, failing, {}, {}, False, {}, set())
