"""Misère solver: outcomes against a plain game-tree search (no RCT), with and without RCT
tables, the paper's numbers and examples, canonical node keys, stored facts, store and CLI.

The reference `brute_force_misere` walks the whole game tree of P + *g over `SproutsGame`
(no RCTs, no pruning): a position with no move is a misère win for the player to move.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.rcttable import RctTable, make_header, table_from_positions, write_table
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import (
    MisereConflictError,
    MisereSolver,
    Node,
    StoreRcts,
    TableRcts,
    brute_force_misere,
)
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.sprouts.game import SproutsGame

REPO = Path(__file__).resolve().parents[1]
S6_FILE = REPO / "data" / "s6.rcttable"

FIGURE_1 = "WLLLWWLLLWWWLLLWW"  # misère outcomes of 0*1 .. 0*17 (the paper's Figure 1)


@pytest.fixture(scope="module")
def game() -> SproutsGame:
    return SproutsGame()


def _table(game: SproutsGame, root: str) -> RctTable:
    search = game_tree_rcts(game, game.canonical(root))
    return table_from_positions(search.algebra, search.positions())


@pytest.fixture(scope="module")
def s4(game: SproutsGame) -> RctTable:
    return _table(game, "0*4")


@pytest.fixture(scope="module")
def s5(game: SproutsGame) -> RctTable:
    return _table(game, "0*5")


@pytest.fixture(scope="module")
def brute(game: SproutsGame) -> dict[str, bool]:
    """Reference outcomes of every position of the game tree of 0*5 ("pos#0" -> losing)."""
    memo: dict[str, bool] = {}
    brute_force_misere(game, "0*5", memo)
    return memo


def _tree_positions(brute: dict[str, bool]) -> list[str]:
    return sorted(k[:-2] for k in brute if k.endswith("#0"))


# ----------------------------------------------------------------------- outcomes


@pytest.mark.parametrize("n", range(1, 6))
def test_starting_positions_without_table_match_figure_1_and_brute_force(
    game: SproutsGame, n: int, brute: dict[str, bool]
) -> None:
    solver = MisereSolver(game, MemoryProofStore())
    assert solver.outcome(f"0*{n}") == FIGURE_1[n - 1]
    assert brute_force_misere(game, f"0*{n}", brute) == FIGURE_1[n - 1]


@pytest.mark.parametrize("n", range(1, 6))
def test_starting_positions_with_s4_table_match_figure_1(
    game: SproutsGame, s4: RctTable, n: int
) -> None:
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
    assert solver.outcome(f"0*{n}") == FIGURE_1[n - 1]


@pytest.mark.parametrize("table_name", ["none", "s4", "s5"])
def test_every_position_of_the_tree_of_0x5_agrees_with_brute_force(
    game: SproutsGame, brute: dict[str, bool], s4: RctTable, s5: RctTable, table_name: str
) -> None:
    rcts = {"none": None, "s4": TableRcts(s4), "s5": TableRcts(s5)}[table_name]
    solver = MisereSolver(game, MemoryProofStore(), rcts)  # type: ignore[arg-type]
    positions = _tree_positions(brute)
    assert len(positions) > 10_000
    wrong = [p for p in positions if solver.outcome(p) != ("L" if brute[p + "#0"] else "W")]
    assert wrong == []


def test_with_and_without_table_agree_on_sums_and_nim_heaps(
    game: SproutsGame, s4: RctTable
) -> None:
    memo: dict[str, bool] = {}
    plain = MisereSolver(game, MemoryProofStore())
    fed = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
    for position in ["0*2+0*2", "0*3+0.1a1a", "0*2+0*3", "0.AB|AB+0*2", "0*4+0"]:
        for g in range(4):
            expected = brute_force_misere(game, position, memo, nim=g)
            assert plain.outcome_plus_nim(position, g) == expected, (position, g)
            assert fed.outcome_plus_nim(position, g) == expected, (position, g)


def test_misere_grundy_value_is_the_least_g_making_a_loss(game: SproutsGame, s4: RctTable) -> None:
    memo: dict[str, bool] = {}
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
    for position in ["!", "0", "0*2", "0*3", "0*4", "0*2+0*2", "0.1a1a"]:
        g = solver.grundy(position)
        assert brute_force_misere(game, position, memo, nim=g) == "L"
        assert all(brute_force_misere(game, position, memo, nim=h) == "W" for h in range(g))
    assert solver.grundy("!") == 1  # 0 + *1 = *1 is the first misère loss


@pytest.mark.parametrize("tuning", [(0.0, 1), (0.25, 8192), (2.0, 3)])
def test_outcomes_do_not_depend_on_the_search_tuning(
    game: SproutsGame, brute: dict[str, bool], s4: RctTable, tuning: tuple[float, int]
) -> None:
    """df-pn's threshold widening and the size of its children cache steer the search only."""
    epsilon, node_cache = tuning
    solver = MisereSolver(
        game, MemoryProofStore(), TableRcts(s4), epsilon=epsilon, node_cache=node_cache
    )
    positions = _tree_positions(brute)[::60]
    assert [solver.outcome(p) for p in positions] == [
        "L" if brute[p + "#0"] else "W" for p in positions
    ]
    assert solver.outcome("0*5") == "W"


@pytest.fixture(scope="module")
def s6() -> RctTable:
    from sproutsdb.formats.rcttable import load_table

    return load_table(S6_FILE)


@pytest.mark.parametrize(
    "n",
    [
        *range(7, 13),
        # CPU seconds on the 2-core VM: about 5, 16 and 195 (0*15: 479 475 visits)
        *(pytest.param(n, marks=pytest.mark.slow) for n in (13, 14, 15)),
    ],
)
def test_starting_positions_7_to_15_with_the_s6_table(
    game: SproutsGame, s6: RctTable, n: int
) -> None:
    """Figure 1 of the misère paper; 0*12 (a win, about 15 CPU s) is the issue's must-show."""
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s6))
    assert solver.outcome(f"0*{n}") == FIGURE_1[n - 1]


# ----------------------------------------------------------------------- nodes


def test_paper_example_two_lands_are_2_plus_1(game: SproutsGame, s5: RctTable) -> None:
    """0.0.A.}0.A.}]! ~ 3-1+1-W, i.e. {2} + *1: the 0/1 part 1 and the RCT {2}."""
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s5))
    node = solver.node("0.0.A.}0.A.}]!")
    algebra = s5.algebra
    assert node.lands == () and node.parity == 1
    assert [algebra.format(h) for h in node.rcts] == ["{2}"]
    assert algebra.outcome(node.rcts[0]) == "L"  # 3-1-L
    assert solver.outcome("0.0.A.}0.A.}]!") == "W"  # 3-1+1-W
    assert solver.key(node) == f"! *1 {algebra.content_id(node.rcts[0])}"


def test_paper_node_of_section_4_1(game: SproutsGame, s5: RctTable) -> None:
    """0.0.0.0.0.0.0.0.}]22.}]2ab2ba.}]0.0.A.}2A.}]! ~ 0*8 + 1 + {2-0-W + 3-1-L}."""
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s5))
    node = solver.node("0.0.0.0.0.0.0.0.}]22.}]2ab2ba.}]0.0.A.}2A.}]!")
    algebra = s5.algebra
    assert node.lands == (game.canonical("0*8"),)
    assert node.parity == 1  # 1 + 1 + 1 ~ 1
    assert sorted(algebra.format(h) for h in node.rcts) == ["2", "{2}"]  # *2 and {2}
    assert solver.key(node) == "0*8 *1 " + " ".join(
        sorted(algebra.content_id(h) for h in node.rcts)
    )


def test_node_keys_are_canonical(game: SproutsGame, s4: RctTable) -> None:
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
    parts = [game.canonical(t) for t in ("0*5", "0.0.A.}0.A.}]!", "2ab2ba.}]", "0*4")]
    a = solver.node("+".join(parts))
    b = solver.node("+".join(reversed(parts)))
    assert a.lands == (game.canonical("0*5"),) and len(a.rcts) == 3
    assert a == b and solver.key(a) == solver.key(b)
    assert solver.parse_node(solver.key(a)) == a
    assert solver.key(solver.node("0*5")) == "0*5"  # a plain position keeps its key
    assert solver.key(solver.node("!")) == "!"
    assert solver.key(solver.add_nim(solver.node("!"), 1)) == "! *1"
    three = solver.add_nim(solver.node("!"), 3)  # *3 = *2 + *1: factored
    assert three.parity == 1 and [s4.algebra.nim_value(h) for h in three.rcts] == [2]
    assert solver.add_nim(solver.add_nim(solver.node("0*5"), 1), 1) == solver.node("0*5")


def test_children_of_a_node(game: SproutsGame, s4: RctTable) -> None:
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
    algebra = s4.algebra
    node = solver.add_nim(solver.add_nim(solver.node("0*5"), 1), 2)  # 0*5 + *1 + *2
    kids = {solver.key(k) for k in solver.children(node)}
    star2 = algebra.content_id(algebra.nim(2))
    assert f"0*5 {star2}" in kids  # *1 -> 0
    assert "0*5 *1" in kids  # *2 -> *0, which disappears
    assert "0*5" in kids  # *2 -> *1, which cancels the other *1
    land_kids = {
        solver.key(solver.add_nim(solver.add_nim(solver.node(c), 1), 2))
        for c in game.children("0*5")
    }
    assert land_kids <= kids
    assert len(kids) == 3 + len(land_kids)
    assert solver.children(solver.node("!")) == []


def test_terminal_node_is_a_misere_win(game: SproutsGame) -> None:
    solver = MisereSolver(game, MemoryProofStore())
    assert solver.outcome("!") == "W"
    assert solver.node_outcome(Node((), 1, ())) == "L"


# ----------------------------------------------------------------------- store


def test_stored_facts_are_losing_nodes_confirmed_by_brute_force(
    game: SproutsGame, brute: dict[str, bool]
) -> None:
    store = MemoryProofStore()
    solver = MisereSolver(game, store, options=SolveOptions(batch_size=7))
    assert solver.outcome("0*5") == "W"
    stored = store.get(FactKind.MISERE, [k[:-2] for k in brute if k.endswith("#0")])
    assert len(stored) == store.count(FactKind.MISERE) == solver.stats.facts_stored > 0
    assert set(stored.values()) == {"L"}
    assert all(brute[key + "#0"] for key in stored)


def test_a_second_run_resumes_from_the_store(game: SproutsGame) -> None:
    store = MemoryProofStore()
    first = MisereSolver(game, store)
    assert first.outcome("0*5") == "W"
    second = MisereSolver(game, store)
    assert second.outcome("0*5") == "W"
    assert second.stats.nodes <= 2 and second.stats.facts_stored == 0


def test_a_wrong_stored_outcome_of_the_root_is_a_conflict(game: SproutsGame) -> None:
    store = MemoryProofStore()
    store.put(FactKind.MISERE, {"0*5": "L", "0*4": "W"})
    with pytest.raises(MisereConflictError):
        MisereSolver(game, store).outcome("0*5")
    with pytest.raises(MisereConflictError):
        MisereSolver(game, store).outcome("0*4")


def test_rcts_read_from_the_store_give_the_same_outcomes(game: SproutsGame, s4: RctTable) -> None:
    store = MemoryProofStore()
    store.put(FactKind.RCT, dict(s4.records()))
    store.put(FactKind.POS_RCT, {p: s4.rct_id_of(p) for p in s4.positions})
    source = StoreRcts(store)
    solver = MisereSolver(game, store, source)
    for n in range(1, 6):
        assert solver.outcome(f"0*{n}") == FIGURE_1[n - 1]
    node = solver.node(game.canonical("0.0.A.}0.A.}]!") + "+0*5")
    assert node.parity == 1 and len(node.rcts) == 1
    assert source.algebra.format(node.rcts[0]) == "{2}"


# ----------------------------------------------------------------------- CLI


def test_cli_solve_misere_with_a_table_file(
    tmp_path: Path, game: SproutsGame, s4: RctTable
) -> None:
    table = tmp_path / "s4.rcttable"
    write_table(table, s4, make_header(s4, game="sprouts", root=game.canonical("0*4")))
    store = str(tmp_path / "store")
    done = run_cli(
        "solve", "0*6", "--misere", "--rct-table", str(table), "--json", "--store", store
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["position"] == "0*6" and report["outcome"] == "W"
    assert report["stored"] > 0
    text = run_cli("solve", "--spots", "4", "--misere", "--rct-table", str(table), "--store", store)
    assert text.returncode == 0, text.stderr
    assert "0*4: L in misère play" in text.stdout


def test_cli_solve_misere_says_which_table_it_used(tmp_path: Path) -> None:
    # a store without RCTs: the shipped S6 table is used (and seeded), and --json says so
    done = run_cli("solve", "0*5", "--misere", "--json", "--store", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "W" and report["rct_table"]["source"] == "shipped"
    assert "no RCT table" not in done.stderr
    again = run_cli("solve", "0*5", "--misere", "--json", "--store", str(tmp_path / "s"))
    assert json.loads(again.stdout)["rct_table"]["source"] == "store"  # seeded by the first
    bare = run_cli(
        "solve", "0*5", "--misere", "--json", "--no-rct-table", "--store", str(tmp_path / "bare")
    )
    assert bare.returncode == 0, bare.stderr
    assert json.loads(bare.stdout)["rct_table"] == {"source": "none", "where": None}
    bad = run_cli("solve", "0*4", "--rct-table", "x", "--store", str(tmp_path / "s"))
    assert bad.returncode != 0 and "--misere" in bad.stderr


def test_parse_node_refuses_malformed_keys(game: SproutsGame, s4: RctTable) -> None:
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
    for bad in ("0*3 *1 *1", "", "*1 0*3", "0*3 nonsense"):
        with pytest.raises(NotationError):
            solver.parse_node(bad)


def test_proof_size_counts_the_losing_nodes_of_a_proof(game: SproutsGame) -> None:
    solver = MisereSolver(game, MemoryProofStore())
    assert solver.outcome("0*4") == "L"
    size = solver.proof_size("0*4")
    assert 1 <= size <= solver.stats.facts_stored
    assert solver.proof_size("!") == 0  # terminal: decided without search
