"""Misère proof checker: re-derive a position's misère outcome from stored losing nodes.

A stored misère fact is a losing node (position part, 0/1 part, RCT multiset; see
solver/misere/solver.py). It is accepted only when every child of the node (recomputed by the
engine) is shown winning: decided without search (terminal, a lone RCT, misère Nim, with
RCT outcomes from re-derived records), or by a losing option one move below that is itself
a checked stored fact. A stored fact for a node that its checked options show winning, or
whose child is a checked loss, is an inconsistency. Explicit stack, memoised, no trust in
the root's stored value, as in solver/normal/check.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from typing import Any, Protocol

from sproutsdb.solver.normal.check import (
    CheckProgress,
    CheckReport,
    FactSource,
    Hole,
    Inconsistency,
    Verdict,
    all_options_win,
    best_of_cycles,
    cycle_ticker,
    drive_checks,
    nothing_settled,
    proof_closure,
)
from sproutsdb.solver.ports.proofstore import FactKind

MAX_NAMED = 10
# keys the source was asked about and does not hold as losing, kept until there are this
# many: a whole-root check of 0*21 kept ~15 M of them (5.44 GB peak then, 2.76 GB now)
ABSENT_CAP = 1 << 21


class MisereEngine(Protocol):
    """What the checker needs from the misère solver: nodes, keys, children, static
    outcomes (a MisereSolver used only for these, never to search)."""

    def node(self, key: str) -> Any: ...
    def key(self, node: Any) -> str: ...
    def children(self, node: Any) -> list[Any]: ...
    def known_outcome(self, node: Any) -> str | None: ...


Task = Generator[tuple[str, Any], Verdict, Any]


class MisereChecker:
    """Checks stored losing misère nodes read from `source`; one instance per root."""

    def __init__(
        self,
        engine: MisereEngine,
        source: FactSource,
        *,
        rng: random.Random | None = None,
        settled: Callable[[str], Verdict | None] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """``settled`` may give a node's verdict without checking it (e.g. the server's
        verifier takes its verified losing nodes as checked); None: check everything.
        ``progress`` is told how many nodes were checked, now and then."""
        self.engine = engine
        self._progress = progress
        self._source = source
        self._rng = rng
        self._settled = settled if settled is not None else nothing_settled
        self._losing: set[str] = set()  # keys the source holds as losing (all asked so far)
        self._absent: set[str] = set()  # keys it does not hold (a cache, cleared at ABSENT_CAP)
        self._verdicts: dict[str, Verdict] = {}
        self._deps: dict[str, tuple[str, ...]] = {}
        # nodes shown winning in this run and the facts that showed it: a node is the
        # option of many losing nodes (0*17: 136,337 asks of 88,687 nodes)
        self._wins: dict[str, tuple[str, ...]] = {}
        self._report = CheckReport(root="")
        self._root_deps: tuple[str, ...] = ()

    def check(self, position: str) -> CheckReport:
        """Re-derive the misère outcome of a position (the key of its root node)."""
        engine = self.engine
        root = engine.node(position)
        key = engine.key(root)
        report = self._report = CheckReport(root=key)
        self._verdicts.clear()
        self._deps.clear()
        self._wins.clear()
        self._drive(self._root(root, key))
        for node_key, verdict in self._verdicts.items():
            if verdict is Verdict.OK:
                report.verified[node_key] = 0
            elif verdict is Verdict.UNPROVEN:
                report.unproven += 1
        if report.outcome is not None:
            report.used = self._closure(self._root_deps)
        return report

    # ----------------------------------------------------------------- driver

    def _drive(self, task: Task) -> None:
        drive_checks(
            task,
            self._verdicts,
            key_of=lambda want: want[0],
            start=lambda want: self._check_node(want[1], want[0]),
            settled=self._settled,
            progress=self._progress,
        )

    # ----------------------------------------------------------------- the checks

    def _root(self, root: Any, key: str) -> Task:
        report = self._report
        static = self.engine.known_outcome(root)
        if static is not None:
            report.outcome = static
            return None
        self._fetch([key])
        if key in self._losing:
            if (yield key, root) is Verdict.OK:
                report.outcome = "L"
                self._root_deps = (key,)
            return None
        deps = yield from self._win(root, key, needed_by=key)
        if isinstance(deps, tuple):
            report.outcome = "W"
            self._root_deps = deps
        return None

    def _check_node(self, node: Any, key: str) -> Task:
        """The justification of the stored fact "node is a misère loss"."""
        engine = self.engine
        verdict, deps = yield from all_options_win(
            (self._win(child, engine.key(child), needed_by=key) for child in engine.children(node)),
            self._report,
        )
        if verdict is Verdict.OK:
            self._deps[key] = deps
        return verdict

    def _win(
        self, node: Any, key: str, *, needed_by: str
    ) -> Generator[tuple[str, Any], Verdict, tuple[str, ...] | Inconsistency | None]:
        """Show `node` winning: the facts used, an Inconsistency (`needed_by` is wrong), or
        None when the stored facts cannot."""
        shown = self._wins.get(key)
        if shown is not None:  # its losing option's verdict is this run's, and final
            return shown
        result = yield from self._show_win(node, key, needed_by=needed_by)
        if isinstance(result, tuple):
            self._wins[key] = result
        return result

    def _show_win(
        self, node: Any, key: str, *, needed_by: str
    ) -> Generator[tuple[str, Any], Verdict, tuple[str, ...] | Inconsistency | None]:
        engine = self.engine
        static = engine.known_outcome(node)
        if static == "W":
            return ()
        if static == "L":
            return Inconsistency(needed_by, 0, f"its option {key} is a misère loss by rule")
        grandchildren = [(engine.key(g), g) for g in engine.children(node)]
        self._fetch([key, *(k for k, _ in grandchildren)])
        candidates: list[tuple[tuple[float, ...], str, Any]] = []
        for gkey, grand in grandchildren:
            outcome = engine.known_outcome(grand)
            if outcome == "L":
                return ()
            if outcome is None and gkey in self._losing:
                candidates.append((self._score(gkey), gkey, grand))
        candidates.sort(key=lambda c: c[0])
        for _, gkey, grand in candidates:
            if (yield gkey, grand) is Verdict.OK:
                return (gkey,)
        if key in self._losing and (yield key, node) is Verdict.OK:
            return Inconsistency(needed_by, 0, f"its option {key} is a checked misère loss")
        if not candidates:
            named = tuple(k for k, _ in grandchildren[:MAX_NAMED])
            self._report.missing.append(Hole(key, needed_by, named))
        return None

    def _score(self, key: str) -> tuple[float, ...]:
        new = 0 if self._verdicts.get(key) is Verdict.OK else 1
        tie = self._rng.random() if self._rng is not None else float(len(key))
        return (new, tie)

    # ----------------------------------------------------------------- helpers

    def _closure(self, roots: Iterable[str]) -> dict[str, int]:
        return proof_closure(roots, self._deps, lambda _key: 0)

    def _fetch(self, keys: Sequence[str]) -> None:
        losing, absent = self._losing, self._absent
        wanted = list(dict.fromkeys(k for k in keys if k not in losing and k not in absent))
        if not wanted:
            return
        found: Mapping[str, Any] = self._source.get(FactKind.MISERE, wanted)
        if len(absent) + len(wanted) > ABSENT_CAP:
            absent.clear()
        for key in wanted:
            (losing if found.get(key) == "L" else absent).add(key)


class NodeKeyEngine:
    """A misère engine as the checker sees it when its roots are node keys as the store
    holds them (a sum of RCTs and nimbers is not a position), not only positions."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver  # a MisereSolver, used only as the engine

    def node(self, key: str) -> Any:
        return self.solver.parse_node(key)

    def key(self, node: Any) -> str:
        return str(self.solver.key(node))

    def children(self, node: Any) -> list[Any]:
        return list(self.solver.children(node))

    def known_outcome(self, node: Any) -> str | None:
        outcome: str | None = self.solver.known_outcome(node)
        return outcome


class _MisereProofView:
    """The losing nodes of one proof as a FactSource for the next cycle."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._keys = set(keys)

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        if kind is not FactKind.MISERE:
            return {}
        return {key: "L" for key in keys if key in self._keys}


def check_misere_with_cycles(
    engine: MisereEngine,
    source: FactSource,
    position: str,
    *,
    cycles: int = 1,
    seed: int = 0,
    progress: CheckProgress | None = None,
) -> tuple[CheckReport, list[int]]:
    """Random check cycles as for normal play: later cycles choose among the best proof's
    facts only, so the proof never grows; `progress` hears how far each cycle is."""

    def run(best: CheckReport | None, rng: random.Random | None, cycle: int) -> CheckReport:
        facts = source if best is None else _MisereProofView(best.used)
        tick = cycle_ticker(progress, cycle)
        return MisereChecker(engine, facts, rng=rng, progress=tick).check(position)

    return best_of_cycles(run, cycles=cycles, seed=seed)
