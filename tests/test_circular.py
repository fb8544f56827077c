"""Circular sprouts engine: notation, canonical form, moves, sizes, and nimbers by the solver
checked against a whole-graph oracle that knows nothing of sums or canonical forms."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.solver.circular.game import CircularGame, compress, least_symmetric
from sproutsdb.solver.circular.notation import MAX_POSITION_VERTICES, count_vertices, key_lives
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import MemoryProofStore

GAME = CircularGame()


def cs(*tips: int) -> str:
    return "CS(" + ",".join(str(t) for t in tips) + ")"


def key(*tips: int) -> str:
    return GAME.canonical(cs(*tips))


def test_it_is_a_game() -> None:
    assert isinstance(GAME, Game)
    assert GAME.name == "circular" and GAME.terminal == "!"


# ----------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("CS(1,2,3)", "has 3 spots; a circle needs at least 4"),
        ("CS()", "is not CS(t1,…,tn)"),
        ("CS(1,2,x,4)", "term 1 'CS(1,2,x,4)'"),
        ("CS(1,1,1,1)+", "term 2 ''"),
        ("CS(1,1,1,1)+cs(1,1,1,1)", "term 2"),
        ("CS(-1,1,1,1)", "is not CS"),
        ("CS(1,1,1,1", "is not CS"),
        (f"CS({MAX_POSITION_VERTICES},1,1,1)", "position too large"),
        ("CS(" + "9" * 40 + ",1,1,1)", "position too large"),
    ],
)
def test_bad_notation_says_what_is_wrong(text: str, needle: str) -> None:
    with pytest.raises(NotationError, match="circular") as caught:
        GAME.canonical(text)
    assert needle in str(caught.value)


def test_the_empty_position_and_spaces() -> None:
    assert GAME.canonical("!") == GAME.canonical("  ") == "!"
    assert GAME.canonical(" CS( 3 , 1,5 ,1 ) ") == GAME.canonical("CS(3,1,5,1)")
    assert GAME.components("!") == ()
    assert GAME.size("!") == 0


def test_count_vertices_counts_spots_and_tips() -> None:
    assert count_vertices("CS(3,1,5,1)") == 4 + 10
    assert count_vertices("CS(1,1,1,1)+CS(2,0,2,0)") == 8 + 8


# ----------------------------------------------------------------- canonical form


def test_paper_symmetry_p_and_q_swap() -> None:
    assert key(3, 1, 5, 1) == key(5, 1, 3, 1) == key(1, 3, 1, 5)


def test_tipless_runs_shrink_and_dead_circles_vanish() -> None:
    assert compress((3, 0, 0, 1, 0, 0, 0, 2)) == (3, 0, 1, 0, 2)
    assert key(3, 0, 0, 1, 0, 0, 0, 2, 0) == key(3, 0, 1, 0, 2, 0)
    assert key(0, 0, 5, 0) == "!"  # one tipped spot: no move
    assert key(4, 7, 0, 0) == "!"  # two tipped spots, neighbours
    assert key(1, 1, 0, 0, 0) == "!"  # a triangle once tipless runs shrink
    assert key(1, 1, 1, 0, 0, 0) == "CS(0,1,1,1)"  # the outer two tips are two apart
    assert key(1, 0, 1, 0) == "CS(0,1,0,1)"
    assert GAME.canonical("CS(0,0,5,0)+CS(1,1,1,1)") == key(1, 1, 1, 1)


def test_sums_are_sorted_and_repeat_components() -> None:
    a, b = key(3, 1, 5, 1), key(1, 1, 1, 1)
    assert GAME.canonical(f"{a}+{b}") == GAME.canonical(f"{b}+{a}") == GAME.join([a, b])
    assert GAME.components(GAME.join([a, a])) == (a, a)


cycles = st.lists(st.integers(min_value=0, max_value=4), min_size=4, max_size=9).map(tuple)


@settings(max_examples=150, deadline=None)
@given(tips=cycles, shift=st.integers(min_value=0, max_value=8), mirror=st.booleans())
def test_rotation_and_reflection_give_the_same_key(
    tips: tuple[int, ...], shift: int, mirror: bool
) -> None:
    shift %= len(tips)
    turned = tips[shift:] + tips[:shift]
    if mirror:
        turned = turned[::-1]
    assert key(*tips) == key(*turned)


@settings(max_examples=150, deadline=None)
@given(tips=cycles)
def test_canonical_form_is_idempotent_and_least(tips: tuple[int, ...]) -> None:
    k = key(*tips)
    assert GAME.canonical(k) == k
    if k != "!":
        (component,) = GAME.components(k)
        small = tuple(int(t) for t in component[3:-1].split(","))
        assert small == least_symmetric(small) == least_symmetric(compress(tips))


# ----------------------------------------------------------------- moves


def test_children_by_hand() -> None:
    # CS(0,1,0,1): the one move joins the two tips; both halves have a single tipped spot.
    assert GAME.children(key(0, 1, 0, 1)) == ["!"]
    # CS(1,1,1,1): opposite spots only; each move leaves two copies of CS(0,1,0,1).
    half = key(0, 1, 0, 1)
    assert GAME.children(key(1, 1, 1, 1)) == [GAME.join([half, half])]
    # CS(1,0,q,0) (Lemma 5.2 iii): x joins y, and nothing is left.
    assert GAME.children(key(1, 0, 4, 0)) == ["!"]
    # CS(0,1,q,1) (Lemma 5.2 iv): the top joins the bottom: CS(0,0,1,0)+CS(1,0,q,0) = CS(1,0,q,0).
    assert GAME.children(key(0, 1, 3, 1)) == [key(1, 0, 3, 0)]
    # Spots two apart may join (a 4-cycle), neighbours may not: CS(1,1,0) is a triangle.
    assert GAME.children(key(1, 0, 1, 0, 0)) == ["!"]
    assert GAME.children(GAME.join([key(1, 0, 1, 0)])) == ["!"]


def test_paper_first_moves_of_cs4() -> None:
    """§5.1.1: the top–bottom move, and x_{p'+1}–y_{q'+1} for every p', q'."""
    p, q = 3, 5
    expected = {GAME.join([key(p, 0, 1, 0), key(1, 0, q, 0)])}
    for a in range(p):
        for b in range(q):
            expected.add(GAME.canonical(f"{cs(a, 1, b, 1)}+{cs(p - 1 - a, 1, q - 1 - b, 1)}"))
    assert set(GAME.children(key(p, 1, q, 1))) == expected


@settings(max_examples=60, deadline=None)
@given(tips=st.lists(cycles, min_size=1, max_size=3))
def test_size_drops_along_every_move(tips: list[tuple[int, ...]]) -> None:
    position = GAME.canonical("+".join(cs(*t) for t in tips))
    assert GAME.size(position) >= 0
    assert GAME.size(position) == key_lives(position)
    for child in GAME.children(position):
        assert GAME.size(child) < GAME.size(position)
        assert GAME.canonical(child) == child


# ----------------------------------------------------------------- the whole-graph oracle
# Written apart from solver/circular: it keeps the graph itself, every face as a cycle of
# (vertex id, open tips in that face), and the set of all edges. A move may join u and v only
# if they differ and no edge joins them anywhere in the graph (the path u–w–v then closes no
# cycle shorter than 4). It knows nothing of sums, canonical forms or tipless-run shortening:
# the nimber is the mex over the whole position's children, memoised on the exact graph.
OracleFace = tuple[tuple[int, int], ...]
OracleState = tuple[frozenset[OracleFace], frozenset[frozenset[int]], int]


def oracle_start(*circles: tuple[int, ...]) -> OracleState:
    """The position CS(c1)+CS(c2)+…: one face per circle, the circles' arcs as edges."""
    faces: set[OracleFace] = set()
    edges: set[frozenset[int]] = set()
    fresh = 0
    for tips in circles:
        n = len(tips)
        faces.add(tuple((fresh + i, t) for i, t in enumerate(tips)))
        edges.update(frozenset((fresh + i, fresh + (i + 1) % n)) for i in range(n))
        fresh += n
    return frozenset(faces), frozenset(edges), fresh


def _arc(m: int, i: int, j: int) -> list[int]:
    """Face positions strictly between i and j going forward."""
    out, k = [], (i + 1) % m
    while k != j:
        out.append(k)
        k = (k + 1) % m
    return out


def oracle_children(state: OracleState) -> list[OracleState]:
    """Every position one move away (duplicates included)."""
    faces, edges, fresh = state
    out: list[OracleState] = []
    for face in faces:
        m = len(face)
        for i in range(m):
            for j in range(m):
                (u, tu), (v, tv) = face[i], face[j]
                if i == j or tu == 0 or tv == 0 or u == v or frozenset((u, v)) in edges:
                    continue
                for a in range(tu):
                    for b in range(tv):
                        one = ((u, a), *(face[k] for k in _arc(m, i, j)), (v, b), (fresh, 1))
                        other = (
                            (v, tv - 1 - b),
                            *(face[k] for k in _arc(m, j, i)),
                            (u, tu - 1 - a),
                            (fresh, 1),
                        )
                        new_faces = (faces - {face}) | {one, other}
                        new_edges = edges | {frozenset((u, fresh)), frozenset((fresh, v))}
                        out.append((new_faces, new_edges, fresh + 1))
    return out


@cache
def oracle_nimber(state: OracleState) -> int:
    """Mex of the children's nimbers, by plain recursion over the whole position."""
    seen = {oracle_nimber(child) for child in oracle_children(state)}
    n = 0
    while n in seen:
        n += 1
    return n


# ----------------------------------------------------------------- nimbers


SMALL = [
    (1, 1, 1, 1),
    (2, 1, 1, 1),
    (2, 1, 2, 1),
    (3, 1, 2, 1),
    (2, 2, 1, 1),
    (2, 2, 2, 2),
    (2, 0, 2, 0),
    (1, 1, 1, 1, 1),
    (1, 2, 1, 2, 0),
    (0, 2, 0, 3, 1),
    (1, 1, 1, 1, 1, 1),
    (2, 0, 0, 1, 1, 0),
]


@pytest.mark.parametrize("tips", SMALL)
def test_solver_agrees_with_the_whole_graph_oracle(tips: tuple[int, ...]) -> None:
    solver = NormalSolver(GAME, MemoryProofStore())
    assert solver.nimber(key(*tips)) == oracle_nimber(oracle_start(tips))


@pytest.mark.parametrize(
    ("first", "second"),
    [((1, 1, 1, 1), (2, 1, 1, 1)), ((2, 1, 1, 1), (2, 1, 1, 1)), ((2, 1, 2, 1), (1, 1, 1, 1))],
)
def test_sums_agree_with_the_oracle(first: tuple[int, ...], second: tuple[int, ...]) -> None:
    """A sum's nimber from the solver against the oracle run on one graph with two faces
    (small circles only: the oracle's states multiply)."""
    solver = NormalSolver(GAME, MemoryProofStore())
    position = GAME.canonical(f"{cs(*first)}+{cs(*second)}")
    whole = oracle_nimber(oracle_start(first, second))
    assert solver.position_nimber(position) == whole
    assert solver.outcome(position) == ("L" if whole == 0 else "W")
