"""`solve --misere --jobs N`: helpers share losing nodes through the store, the answer never
changes, the certificate checks; a misère run killed with SIGKILL resumes to the same answer."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from cli_helpers import COMMAND, committed_facts, run_cli
from service_support import ServerProcess
from sproutsdb.ops.jobs.busy_marks import HeldBackRoot
from sproutsdb.ops.jobs.parallel_misere import helper_share
from sproutsdb.ops.shipped_rcts import shipped_rct_table
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, MemoryProofStore
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.sprouts.game import SproutsGame


def _rcts() -> TableRcts:
    shipped = shipped_rct_table()
    assert shipped is not None, "the S6 table ships with the package"
    return TableRcts(shipped[0])


class LateStore(MemoryProofStore):
    """A store another solver fills while this one searches: `facts` appear at the
    `after`-th read, as a helper's flush would."""

    def __init__(self, facts: Mapping[str, FactValue], after: int) -> None:
        super().__init__()
        self.facts, self.after, self.reads = dict(facts), after, 0

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
        self.reads += 1
        if self.reads == self.after:
            self.put(FactKind.MISERE, self.facts)
        return super().get(kind, keys)


@pytest.mark.parametrize("position", ["0*9", "0*10"])
def test_a_solver_meets_facts_stored_while_it_searches(position: str) -> None:
    """What a helper stores mid-search is found (the path re-read, the search restarted)
    and saves visits; the answer is the one a lone search gives."""
    rcts = _rcts()
    expected, alone_nodes, facts = _lone_search_and_helper_facts(position)
    assert facts and set(facts.values()) == {"L"}
    late = LateStore(facts, after=20)
    shared = MisereSolver(SproutsGame(), late, rcts, share_seconds=1e-9)
    assert shared.outcome(position) == expected
    assert late.reads > 20, "the facts were stored before the search ended"
    assert shared.stats.nodes < alone_nodes
    assert shared.stats.restarts >= 1


class HelperNews:
    """`FactNews` as one search of a `--jobs` run gets it: a helper stores `facts` and tells
    of their keys at the `after`-th share; what this search tells the others is kept."""

    def __init__(self, store: MemoryProofStore, facts: Mapping[str, FactValue], after: int) -> None:
        self.store, self.facts, self.after = store, dict(facts), after
        self.shares, self.told = 0, list[str]()

    def published(self, keys: Sequence[str]) -> None:
        self.told.extend(keys)

    def news(self) -> list[str]:
        self.shares += 1
        if self.shares != self.after:
            return []
        self.store.put(FactKind.MISERE, self.facts)
        return list(self.facts)


@functools.cache
def _lone_search_and_helper_facts(position: str) -> tuple[str, int, dict[str, FactValue]]:
    """A lone search of `position` (its outcome and node visits) and the losing nodes a
    lone helper stores: the same for the two tests above, so made once per position (the
    searches are deterministic; each test copies the facts it is given)."""
    rcts = _rcts()
    alone = MisereSolver(SproutsGame(), MemoryProofStore(), rcts)
    expected = alone.outcome(position)
    return expected, alone.stats.nodes, _helper_facts(position, rcts)


def _helper_facts(position: str, rcts: TableRcts) -> dict[str, FactValue]:
    """The losing nodes a lone helper stores proving its share of `position`'s options."""
    helper_store = MemoryProofStore()
    helper = MisereSolver(
        SproutsGame(), helper_store, rcts, options=SolveOptions(reprove_roots=False)
    )
    for option in helper_share(helper.ordered_children(helper.node(position)), 0, 1):
        helper.node_outcome(option)
    helper.flush()
    return helper_store.get(FactKind.MISERE, list(helper_store._facts[FactKind.MISERE]))


@pytest.mark.parametrize("position", ["0*9", "0*10"])
def test_a_solver_with_news_meets_what_it_is_told_of_and_asks_nothing_else(position: str) -> None:
    """With news (`solve --jobs`), a search reads the store once and then only the keys the
    other solvers name: their nodes restart it and save visits, the answer is the lone
    one, and it tells of the losing nodes it stores."""
    rcts = _rcts()
    expected, alone_nodes, facts = _lone_search_and_helper_facts(position)
    store = MemoryProofStore()
    news = HelperNews(store, facts, after=20)
    shared = MisereSolver(SproutsGame(), store, rcts, share_seconds=1e-9, news=news)
    assert shared.outcome(position) == expected
    assert news.shares > 20, "the facts were told of before the search ended"
    assert shared.stats.restarts >= 1
    assert shared.stats.nodes < alone_nodes
    assert shared.stats.store_reads == 1, "only the news was read, no child was asked"
    told = store.get(FactKind.MISERE, news.told)
    assert set(told) == set(news.told) and set(told.values()) <= {"L"}
    if expected == "L":  # the root itself is a losing node it stores
        assert shared.key(shared.node(position)) in told


def test_a_helper_takes_a_stored_option_as_proven() -> None:
    """Without reproving roots, an option the store has decided costs no search."""
    store = MemoryProofStore()
    rcts = _rcts()
    first = MisereSolver(SproutsGame(), store, rcts)
    option = first.ordered_children(first.node("0*9"))[0]
    assert first.node_outcome(option) == "W"  # 0*9 is a misère loss: every option wins
    child = next(c for c in first.ordered_children(option) if first.known_outcome(c) == "L")
    helper = MisereSolver(SproutsGame(), store, rcts, options=SolveOptions(reprove_roots=False))
    assert helper.node_outcome(child) == "L"
    assert helper.stats.nodes == 0


def test_helpers_share_the_options_from_the_other_end_the_last_one_last() -> None:
    options = list(range(7))
    shares = [helper_share(options, index, 2) for index in range(2)]
    assert sorted(shares[0] + shares[1]) == options
    assert shares[0][0] == options[-2]  # the main search starts from the small end
    assert helper_share(options, 0, 1) == [5, 4, 3, 2, 1, 0, 6]  # its last one is its own


def test_the_main_search_leaves_its_other_options_to_the_helpers_until_its_own_is_done() -> None:
    root = HeldBackRoot()
    assert not root.for_helpers("a")  # nothing offered yet
    root.offer([("a", None), ("b", None), ("c", None)])
    root.offer([("c", None)])  # once only
    assert root.for_helpers("a") and root.for_helpers("b") and not root.for_helpers("c")
    root.decided("a")
    assert not root.for_helpers("a") and root.for_helpers("b")
    root.decided("c")  # its own option decided: the others are free to it again
    assert not root.for_helpers("b")


def _solve(store: Path, position: str, jobs: int) -> dict[str, object]:
    done = run_cli(
        "solve",
        position,
        "--misere",
        "--jobs",
        str(jobs),
        "--store",
        str(store),
        "--json",
        "--quiet",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    assert report["jobs"] == jobs and report["play"] == "misere"
    return report


@pytest.mark.parametrize("position", ["0*9", "0*10"])
def test_jobs_2_gives_the_same_outcome_and_a_certificate_that_checks(
    tmp_path: Path, position: str
) -> None:
    outcomes = []
    for jobs in (1, 2):
        store = tmp_path / f"jobs{jobs}"
        outcomes.append(_solve(store, position, jobs)["outcome"])
        checked = run_cli(
            "check", "--misere", "--store", str(store), "--root", position, "--json", timeout=300
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert json.loads(checked.stdout)["outcome"] == outcomes[-1]
    assert outcomes[0] == outcomes[1] == {"0*9": "L", "0*10": "W"}[position]  # A164950


def test_jobs_must_be_positive_in_misere_play(tmp_path: Path) -> None:
    done = run_cli("solve", "0*3", "--misere", "--jobs", "0", "--store", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "--jobs must be at least 1" in done.stderr


def _losing_nodes(store_dir: Path) -> int:
    """Misère facts in the store (0 while the solver may still be creating it)."""
    return committed_facts(store_dir, FactKind.MISERE)


def _children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _pause(child: subprocess.Popen[bytes]) -> bool:
    """Stop the child (SIGSTOP; not reaped yet) and wait until it is stopped: True, or
    False if it ended first."""
    os.kill(child.pid, signal.SIGSTOP)
    info = os.waitid(os.P_PID, child.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
    return info is not None and info.si_code == os.CLD_STOPPED


def _kill_when(
    store_dir: Path, jobs: int, enough: Callable[[int, list[int]], bool]
) -> tuple[int, list[int]]:
    """Run `solve 0*13 --misere --jobs J` on `store_dir` and SIGKILL it (stopped first, so
    it cannot end between the look and the kill) once `enough(committed losing nodes,
    helper pids)`: (what was committed, the helpers seen)."""
    env = {k: v for k, v in os.environ.items() if k != "SPROUTSDB_STORE"}
    solve = ["solve", "0*13", "--misere", "--quiet", "--json", "--flush-seconds", "1"]
    child = subprocess.Popen(
        [*COMMAND, *solve, "--jobs", str(jobs), "--store", str(store_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    helpers: list[int] = []
    committed = 0
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and child.poll() is None:
            committed = _losing_nodes(store_dir)
            helpers = helpers or _children_of(child.pid)
            if enough(committed, helpers):
                break
            time.sleep(0.1)
        assert child.poll() is None and _pause(child), "the run ended before it could be killed"
        assert enough(committed, helpers), "the run was not far enough within the time limit"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert child.returncode == -signal.SIGKILL
    return _losing_nodes(store_dir), helpers


def test_a_killed_misere_solve_resumes_to_the_same_answer_with_less_work(tmp_path: Path) -> None:
    """0*13 SIGKILLed once most of its proof is committed (it stores 384 losing nodes in
    all): a rerun on the same store gives a fresh run's answer in fewer visits, and its
    certificate checks. (A kill early in the run is tests/test_misere_resume.py's: the
    stored losing nodes alone once moved df-pn's path, 18,229 visits after half the proof
    against 17,380 fresh; the misère resume record now keeps the search's path.)"""
    store_dir = tmp_path / "killed"
    kept, _ = _kill_when(store_dir, 1, lambda committed, _helpers: committed >= 280)
    assert kept >= 280
    resumed = _solve(store_dir, "0*13", 1)
    fresh = _solve(tmp_path / "fresh", "0*13", 1)
    assert resumed["outcome"] == fresh["outcome"] == "L"  # A164950
    assert isinstance(resumed["nodes"], int) and isinstance(fresh["nodes"], int)
    assert resumed["nodes"] < fresh["nodes"]
    checked = run_cli(
        "check", "--misere", "--store", str(store_dir), "--root", "0*13", "--json", timeout=300
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_helpers_of_a_killed_misere_solve_stop_and_the_rerun_agrees(tmp_path: Path) -> None:
    """`--jobs 2` SIGKILLed while its helper works: the helper stops on its own (its
    parent is gone), and a rerun on the store gives the published outcome."""
    store_dir = tmp_path / "killed"
    _, helpers = _kill_when(
        store_dir, 2, lambda committed, helpers: committed >= 20 and bool(helpers)
    )
    gone_by = time.monotonic() + 30
    while any(_alive(pid) for pid in helpers) and time.monotonic() < gone_by:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in helpers), "a helper outlived its killed parent"
    assert _solve(store_dir, "0*13", 1)["outcome"] == "L"  # A164950


def test_misere_jobs_2_on_a_server_and_the_fleet_give_the_lone_answers(tmp_path: Path) -> None:
    """`solve --misere --jobs 2 --server` (helpers as clients of the server), then `fleet
    solve --misere --options-of` on Ray: the outcomes of a lone search; the server's store
    checks clean afterwards."""
    pytest.importorskip("ray")
    game = SproutsGame()
    lone = MisereSolver(game, MemoryProofStore(), _rcts())
    store = tmp_path / "store"
    # the shipped S6 table served, the results library not seeded: its certificates of
    # 0*9 and 0*10 would answer for the helpers, and seeding it kept a core busy all along
    with ServerProcess(store, "--no-results") as server:
        done = run_cli(
            "solve", "0*9", "--misere", "--jobs", "2", "--server", server.address,
            "--json", "--quiet", timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["outcome"] == "L"
        fleet = run_cli(
            "fleet", "solve", "--misere", "--options-of", "0*10", "--server", server.address,
            "--ray", "--jobs", "2", "--json", "--quiet", timeout=300,
        )  # fmt: skip
        assert fleet.returncode == 0, fleet.stderr
        report = json.loads(fleet.stdout)
    assert report["play"] == "misere" and report["workers"] == 2
    got = {r["position"]: r["outcome"] for r in report["positions"]}
    assert got == {p: lone.outcome(p) for p in game.children(game.canonical("0*10"))}
    assert report["root"]["outcome"] == "W"  # A164950
    for root in ("0*9", "0*10"):
        checked = run_cli("check", "--misere", "--store", str(store), "--root", root, "--json")
        assert checked.returncode == 0, checked.stdout + checked.stderr
