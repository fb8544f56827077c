"""df-pn (solver/search/dfpn.py) against plain recursion on random acyclic game graphs."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.solver.search.dfpn import BusyMarks, DfpnSearch
from sproutsdb.solver.search.driver import run_tasks


class GraphSpace:
    """Nodes 0..n-1; edges go to higher numbers only (acyclic); no moves = a loss."""

    def __init__(
        self,
        edges: list[list[int]],
        estimates: list[int],
        capacity: int,
        busy: BusyMarks | None = None,
        hashed: bool = False,
    ) -> None:
        self.edges = edges
        self.estimates = estimates
        self.decisions: dict[str, bool] = {}
        self.visits = 0
        self.expanded: list[int] = []  # the nodes expanded, in order
        self.search = DfpnSearch(self, capacity=capacity, busy=busy, hashed=hashed)

    def expand(self, node: int, key: str) -> list[tuple[str, int, tuple[int, int]]]:
        self.expanded.append(node)
        return [(str(c), c, (1, self.estimates[c])) for c in self.edges[node]]

    def decided(self, node: int, key: str) -> bool | None:
        return self.decisions.get(key)

    def record(self, key: str, losing: bool) -> None:
        assert key not in self.decisions, "a node is decided once"
        self.decisions[key] = losing

    def visit(self) -> None:
        self.visits += 1

    def losing(self, root: int) -> bool:
        return bool(run_tasks(self.search.solve(root, str(root)), []))


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    n = draw(st.integers(1, 30))
    edges = [
        sorted(set(draw(st.lists(st.integers(i + 1, n - 1), max_size=5)))) if i < n - 1 else []
        for i in range(n)
    ]
    estimates = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    return edges, estimates


@settings(max_examples=300, deadline=None)
@given(graphs(), st.sampled_from([1 << 22, 3, 1]), st.booleans())
def test_dfpn_agrees_with_recursion(
    graph: tuple[list[list[int]], list[int]], capacity: int, hashed: bool
) -> None:
    """Every node df-pn decides (roots and everything on the way) is decided right, also
    when its table of proof numbers is tiny and keeps being cleared, or keyed by hash."""
    edges, estimates = graph

    @cache
    def losing(node: int) -> bool:
        return not any(losing(child) for child in edges[node])

    space = GraphSpace(edges, estimates, capacity, hashed=hashed)
    assert space.losing(0) == losing(0)
    assert all(value == losing(int(key)) for key, value in space.decisions.items())


@settings(max_examples=100, deadline=None)
@given(graphs(), st.sampled_from([1 << 22, 3]))
def test_a_table_keyed_by_hash_searches_as_one_keyed_by_key(
    graph: tuple[list[list[int]], list[int]], capacity: int
) -> None:
    """Without a collision of hashes, the two kinds of table steer alike: the same visits
    and the same decisions in the same order, and the same numbers for each key."""
    runs = []
    for hashed in (False, True):
        space = GraphSpace(*graph, capacity, hashed=hashed)
        space.losing(0)
        numbers = {str(n): space.search.numbers_of(str(n)) for n in range(len(graph[0]))}
        runs.append((space.visits, list(space.decisions.items()), numbers))
    assert runs[0] == runs[1]


class BusyForever:
    """Busy marks where other searches sit in some nodes for good; this search's own
    marks must balance (each node entered is left)."""

    def __init__(self, elsewhere: set[str]) -> None:
        self.others = elsewhere
        self.mine: dict[str, int] = {}

    def enter(self, key: str) -> None:
        self.mine[key] = self.mine.get(key, 0) + 1

    def leave(self, key: str) -> None:
        self.mine[key] -= 1

    def elsewhere(self, key: str) -> bool:
        return key in self.others


@settings(max_examples=300, deadline=None)
@given(graphs(), st.sampled_from([1 << 22, 3, 1]), st.data())
def test_dfpn_leaving_busy_nodes_to_others_still_decides_right(
    graph: tuple[list[list[int]], list[int]], capacity: int, data: st.DataObject
) -> None:
    """With nodes another search is in (here: forever), df-pn searches the others first
    and still decides every node right, without looping, and leaves every node it entered."""
    busy = BusyForever({str(node) for node in data.draw(st.sets(st.integers(0, len(graph[0]))))})
    _decides_right_leaving_every_node(graph, capacity, busy)


def _decides_right_leaving_every_node(
    graph: tuple[list[list[int]], list[int]], capacity: int, busy: BusyForever
) -> None:
    """df-pn with these marks decides every node right, without looping, and leaves every
    node it entered."""
    edges, estimates = graph

    @cache
    def losing(node: int) -> bool:
        return not any(losing(child) for child in edges[node])

    space = GraphSpace(edges, estimates, capacity, busy)
    space.visit = lambda: _count_visits(space)  # type: ignore[method-assign]
    assert space.losing(0) == losing(0)
    assert all(value == losing(int(key)) for key, value in space.decisions.items())
    assert not any(busy.mine.values())


class LeaderForever(BusyForever):
    """Busy marks of a helper whose leading search sits in some nodes for good."""

    def __init__(self, elsewhere: set[str], leading: set[str]) -> None:
        super().__init__(elsewhere)
        self.led = leading

    def leading(self, key: str) -> bool:
        return key in self.led


@settings(max_examples=300, deadline=None)
@given(graphs(), st.sampled_from([1 << 22, 3, 1]), st.data())
def test_dfpn_following_a_leading_search_still_decides_right(
    graph: tuple[list[list[int]], list[int]], capacity: int, data: st.DataObject
) -> None:
    """A helper that goes down the child its leader is in at every node that looks
    winning (here: the leader never moves) decides every node right, without looping."""
    nodes = st.sets(st.integers(0, len(graph[0])))
    led = {str(node) for node in data.draw(nodes)}
    busy = LeaderForever(led | {str(node) for node in data.draw(nodes)}, led)
    _decides_right_leaving_every_node(graph, capacity, busy)


def test_at_a_node_that_looks_winning_a_helper_goes_where_its_leader_is() -> None:
    """Root 0 looks winning (child 1's δ estimate is 1); alone, df-pn expands child 1
    first; a helper whose leader is in the root and its child 2 expands child 2 first."""
    edges = [[1, 2], [3], [3, 4], [], []]
    estimates = [1, 1, 9, 1, 1]
    firsts = []
    for busy in (None, LeaderForever({"2"}, {"0", "2"})):
        space = GraphSpace(edges, estimates, 1 << 22, busy)
        assert space.losing(0)
        firsts.append(space.expanded[1])
    assert firsts == [1, 2]


def test_a_table_cleared_all_the_time_cannot_make_df_pn_loop() -> None:
    """A graph on which df-pn livelocked when a cleared table made a parent forget what
    its children had come back with (a search that never ended)."""
    edges = [
        [5, 8, 13, 14],
        [],
        [4, 5, 7],
        [9, 12, 15],
        [5, 8, 10],
        [10, 12, 16],
        [8, 14, 17],
        [11, 12],
        [11, 12, 17],
        [12, 15],
        [],
        [14, 15, 17],
        [13, 15, 16, 17],
        [15, 16, 17],
        [16, 17],
        [16],
        [17],
        [],
    ]
    estimates = [5, 4, 6, 7, 5, 6, 8, 6, 3, 6, 6, 7, 4, 2, 1, 5, 1, 9]
    for hashed in (False, True):
        space = GraphSpace(edges, estimates, capacity=3, hashed=hashed)
        space.visit = lambda space=space: _count_visits(space)  # type: ignore[method-assign]
        assert space.losing(0) is True  # every move of 0 reaches a node that can move to a loss
        assert space.visits < 1000


def _count_visits(space: GraphSpace) -> None:
    space.visits += 1
    if space.visits > 100_000:
        raise AssertionError("df-pn is looping")
