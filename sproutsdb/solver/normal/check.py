"""Normal-play proof checker: re-derive a position's nimber from stored facts only.

A stored fact is a losing couple (land, n), i.e. "nimber(land) = n". It is accepted only
when its own justification holds (docs/architecture.md §3, "Nimbers are inevitable" §5):

- every child couple (C, n), C a child of the land (a sum of lands), is shown winning, and
- every nim-part option (land, k), k < n, is shown winning without using the land's own fact.

A couple (C, m) is shown winning either by nim arithmetic (every land of C has a checked
nimber and their nim-sum is not m) or by a losing option: a move in one land of C giving a
sum whose lands all have checked nimbers with nim-sum m. Nothing is searched: children are
recomputed by the game engine, values come only from the store (through `FactSource`), and
the root's stored value is re-derived like any other. The recursion runs on an explicit
stack of coroutines and every land is checked at most once per run (memoised).

A root is checked for the strongest statement the store supports: its nimber when every
land of it has a stored fact, otherwise its outcome (a win is one option of value 0).
With `derive_lives` K > 0, a land with no stored fact and at most K lives takes its
nimber from the rules (`rules_nimber.SmallLands`): such lands are reported apart
(`derived`) and are never verified, used or written as stored facts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Container, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from sproutsdb.solver.cgt.nimarith import cancel_pairs, mex, nim_sum
from sproutsdb.solver.normal.rules_nimber import SmallLands
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import FactKind

MAX_NAMED = 20  # missing lands named per hole
PROGRESS_EVERY = 16  # facts checked between two calls of a progress callback

# How far a root check is: (cycle, 1-based; facts checked so far in that cycle).
CheckProgress = Callable[[int, int], None]


class FactSource(Protocol):
    """Read-only access to stored facts (a ProofStore, or any view of one)."""

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]: ...


class Verdict(str, Enum):
    """What checking one stored fact concluded."""

    OK = "ok"  # its justification holds on checked facts
    INCONSISTENT = "inconsistent"  # checked facts contradict its value
    UNPROVEN = "unproven"  # a hole below it, or it depends on a bad fact


@dataclass(frozen=True)
class Hole:
    """A couple that no stored fact shows winning, and the lands whose nimbers would help."""

    couple: str  # "C + *m"
    needed_by: str  # the land whose fact needs it
    missing: tuple[str, ...]


@dataclass(frozen=True)
class Inconsistency:
    """A stored nimber that checked facts contradict."""

    land: str
    stored: int
    reason: str


@dataclass
class CheckReport:
    """The outcome of one check run of a root position."""

    root: str
    nimber: int | None = None  # of the root (a sum: nim-sum), when re-derived
    outcome: str | None = None  # "W" / "L" when re-derived
    used: dict[str, int] = field(default_factory=dict)  # facts of the proof tree
    derived: dict[str, int] = field(default_factory=dict)  # small lands taken from the rules
    verified: dict[str, int] = field(default_factory=dict)  # every fact checked OK
    missing: list[Hole] = field(default_factory=list)
    inconsistent: list[Inconsistency] = field(default_factory=list)
    unproven: int = 0  # facts rejected because of a hole or bad fact below
    trusted: int = 0  # facts skipped as verified by an earlier check

    @property
    def ok(self) -> bool:
        """True for a complete, consistent proof of the root."""
        return self.outcome is not None and not self.missing and not self.inconsistent

    @property
    def proved(self) -> str | None:
        """Which statement the check proved: "nimber", "outcome", or None (no proof)."""
        if not self.ok:
            return None
        return "outcome" if self.nimber is None else "nimber"


# A coroutine yields the land whose verdict it needs and is sent that verdict.
Task = Generator[str, Verdict, Any]


@dataclass
class _Candidate:
    deps: tuple[str, ...]
    score: tuple[float, ...]


def _itself(want: Any) -> str:
    return str(want)


def nothing_settled(key: str) -> Verdict | None:
    return None


def drive_checks(
    task: Generator[Any, Verdict, Any],
    verdicts: dict[str, Verdict],
    *,
    key_of: Callable[[Any], str],
    start: Callable[[Any], Generator[Any, Verdict, Any]],
    settled: Callable[[str], Verdict | None] = nothing_settled,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Run a check coroutine and every check it asks for on one explicit stack, memoised.

    A coroutine yields what it needs checked and is sent its verdict. A key already on
    the stack is UNPROVEN (a cycle, impossible when moves shrink positions, so never
    trusted). `settled` may decide a key without checking it (facts verified earlier).
    `progress`, when given, is told the number of verdicts every PROGRESS_EVERY of them.
    """
    stack: list[tuple[str, Generator[Any, Verdict, Any]]] = [("", task)]
    on_stack: set[str] = set()
    value: Verdict | None = None
    while stack:
        try:
            # the first send to a fresh coroutine is None, as Python requires
            want = stack[-1][1].send(value)  # type: ignore[arg-type]
        except StopIteration as stop:
            key, _ = stack.pop()
            if key:
                on_stack.discard(key)
                verdicts[key] = stop.value
                value = stop.value
                if progress is not None and len(verdicts) % PROGRESS_EVERY == 0:
                    progress(len(verdicts))
            continue
        key = key_of(want)
        known = verdicts.get(key)
        if known is None:
            known = settled(key)
        if known is not None:
            value = known
        elif key in on_stack:
            value = Verdict.UNPROVEN
        else:
            on_stack.add(key)
            stack.append((key, start(want)))
            value = None


def first_child(
    game: Game,
    land: str,
    accept: Callable[[tuple[str, ...]], bool],
    *,
    memoised_first: bool = False,
) -> tuple[str, ...] | None:
    """The first child of `land`, in `component_children` order, that `accept` takes; None
    if none. A game that can stop making children there (`first_component_child`, the
    Sprouts engine's C core) is asked to; with `memoised_first` it may offer first the
    children it can make cheaply, so the child taken may be a later acceptable one."""
    first = getattr(game, "first_component_child", None)
    if first is not None:
        # an optional capability of the game, so untyped
        return first(land, accept, memoised_first=memoised_first)  # type: ignore[no-any-return]
    for child in game.component_children(land):
        if accept(child):
            return child
    return None


# What `_win` gives for one obligation: the facts used, an Inconsistency, or None (unproven).
WinResult = tuple[str, ...] | Inconsistency | None


def all_options_win(
    wins: Iterable[Generator[Any, Verdict, WinResult]], report: CheckReport
) -> Generator[Any, Verdict, tuple[Verdict, tuple[str, ...]]]:
    """A stored loss holds when every obligation (each option, shown winning) holds: the
    verdict and the facts used. The first Inconsistency is reported and ends the check."""
    deps: set[str] = set()
    verdict = Verdict.OK
    for win in wins:
        result = yield from win
        if isinstance(result, Inconsistency):
            report.inconsistent.append(result)
            return Verdict.INCONSISTENT, ()
        if result is None:
            verdict = Verdict.UNPROVEN
        else:
            deps.update(result)
    return verdict, tuple(sorted(deps))


def proof_closure(
    roots: Iterable[str],
    deps: Mapping[str, tuple[str, ...]],
    value: Callable[[str], int],
    skip: Container[str] = (),
) -> dict[str, int]:
    """The facts reachable from `roots` through the chosen justifications `deps`, each with
    its `value` (keys in `skip`, values derived from the rules, are not facts)."""
    used: dict[str, int] = {}
    todo = list(roots)
    while todo:
        key = todo.pop()
        if key in used or key in skip:
            continue
        used[key] = value(key)
        todo.extend(deps.get(key, ()))
    return used


def cycle_ticker(progress: CheckProgress | None, cycle: int) -> Callable[[int], None] | None:
    """The `drive_checks` progress callback of one cycle: `progress` told the cycle too."""
    if progress is None:
        return None
    return lambda checked: progress(cycle, checked)


def best_of_cycles(
    run: Callable[[CheckReport | None, random.Random | None, int], CheckReport],
    *,
    cycles: int,
    seed: int,
) -> tuple[CheckReport, list[int]]:
    """The paper's random check cycles: `run(None, None, 1)` checks the store, then
    `run(best, rng, cycle)` checks again `cycles - 1` times with random choices among the
    facts of the smallest proof found so far, so the proof never grows. Returns the best
    report (its `verified` holds every fact any cycle verified) and every cycle's proof
    size."""
    best = run(None, None, 1)
    sizes = [len(best.used)]
    rng = random.Random(seed)
    for cycle in range(2, max(1, cycles) + 1):
        if not best.ok:
            break
        report = run(best, random.Random(rng.getrandbits(64)), cycle)
        sizes.append(len(report.used))
        if report.ok and len(report.used) < len(best.used):
            report.verified = {**best.verified, **report.verified}
            best = report
    return best, sizes


READ_LIMIT = 1 << 20  # lands whose stored values a Checker may keep between runs (~200 MB)


class Checker:
    """Checks stored nimber facts of `game` read from `source`; one instance, many runs.

    `rng`, when given, randomises the choice among equally cheap justifications (the
    paper's random check cycles); otherwise choices are deterministic. `trusted`, when
    given, returns which of some stored lands an earlier check already verified: those are
    accepted without re-checking by `check_facts` (how a whole-store check resumes), never
    by `check`, which re-derives a root's proof from claimed values only. `derive_lives`
    K > 0 takes lands with no stored fact and at most K lives from the rules (see above).
    """

    def __init__(
        self,
        game: Game,
        source: FactSource,
        *,
        rng: random.Random | None = None,
        fetch_batch: int = 512,
        trusted: Callable[[Sequence[str]], Iterable[str]] | None = None,
        derive_lives: int = 0,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.game = game
        self._progress = progress
        self._source = source
        self._small = SmallLands(game, derive_lives)
        self._derived: dict[str, int] = {}  # lands of `_stored` whose value is the rules'
        self._trusted_lookup = trusted
        self._trusted: set[str] = set()
        self._rng = rng
        self._stored: dict[str, int | None] = {}
        self._verdicts: dict[str, Verdict] = {}
        self._deps: dict[str, tuple[str, ...]] = {}
        self._win_memo: dict[tuple[tuple[str, ...], int, str], tuple[str, ...] | None] = {}
        self._option_memo: dict[tuple[tuple[str, ...], int], tuple[str, ...]] = {}
        self._report = CheckReport(root="")
        self._fetch_batch = fetch_batch
        self._minimise = True
        self._use_trust = False
        self.lands_checked = 0

    # ----------------------------------------------------------------- public API

    def check(self, position: str, *, outcome_only: bool = False) -> CheckReport:
        """Re-derive the strongest result on a canonical position the store supports: its
        nimber when every land has a stored fact, otherwise its outcome (a win needs one
        losing option, as in the paper). `outcome_only` proves only the outcome even when
        the nimber of a single-land winning root is stored (a smaller proof)."""
        self._start_run(minimise=True, use_trust=False)
        report = self._report = CheckReport(root=position)
        lands = cancel_pairs(list(self.game.components(position)))
        self._fetch(lands)
        root_task = self._root(position, lands, outcome_only)
        self._drive(root_task)
        self._collect_verdicts(report)
        if report.outcome is not None:
            report.used = self._closure(self._root_deps)
            report.derived = self._derived_among(self._root_deps, *report.used)
        return report

    def check_facts(self, lands: Iterable[str]) -> CheckReport:
        """Check stored facts of many lands with one memo (a whole-database check): the
        report's `verified` holds those that checked OK, `derived` the small lands their
        justifications took from the rules, `used` stays empty."""
        self._start_run(minimise=False, use_trust=True)
        report = self._report = CheckReport(root="")

        def ask(land: str) -> Task:
            yield land

        lands = list(lands)
        self._fetch(lands)  # one read per `fetch_batch` lands, not one per land
        stored, trusted, verdicts = self._stored, self._trusted, self._verdicts
        for land in lands:
            if stored.get(land) is None:
                report.missing.append(Hole(f"{land} + *?", land, (land,)))
            elif land in trusted:
                report.trusted += 1
            elif land not in verdicts and not self._quick_check(land):
                self._drive(ask(land))
        self._collect_verdicts(report)
        report.derived = self._derived_among((), *report.verified)
        return report

    def _start_run(self, *, minimise: bool, use_trust: bool) -> None:
        """Forget the previous run's verdicts and choices (stored values stay cached)."""
        self._verdicts.clear()
        self._deps.clear()
        self._win_memo.clear()
        self._option_memo.clear()
        self._verdicts.update(dict.fromkeys(self._derived, Verdict.OK))
        self._minimise = minimise
        self._use_trust = use_trust
        self.lands_checked = 0

    def _collect_verdicts(self, report: CheckReport) -> None:
        """Fill `verified` and `unproven` from the run's verdicts; derived lands are
        never stored facts, so never verified."""
        for land, verdict in self._verdicts.items():
            if land in self._derived:
                continue
            if verdict is Verdict.OK:
                report.verified[land] = self._value(land)
            elif verdict is Verdict.UNPROVEN:
                report.unproven += 1

    def _derived_among(self, roots: Iterable[str], *lands: str) -> dict[str, int]:
        """The derived lands among `roots` and the justifications of `lands`, sorted."""
        derived = self._derived
        found = {x for x in roots if x in derived}
        for land in lands:
            found.update(x for x in self._deps.get(land, ()) if x in derived)
        return {x: derived[x] for x in sorted(found)}

    def reset_choices(self, rng: random.Random | None) -> None:
        """Use another random generator (or none) for the next run."""
        self._rng = rng

    # ----------------------------------------------------------------- driver

    def _drive(self, task: Task) -> None:
        """Run a task and the land checks it asks for on an explicit stack."""
        drive_checks(
            task,
            self._verdicts,
            key_of=_itself,
            start=self._start_land,
            settled=self._settled_by_trust,
            progress=self._progress,
        )

    def _start_land(self, land: str) -> Task:
        self.lands_checked += 1
        return self._check_land(land)

    def _settled_by_trust(self, land: str) -> Verdict | None:
        """OK for a land derived from the rules, or one an earlier check verified
        (whole-store checks only)."""
        if land in self._derived or (self._use_trust and land in self._trusted):
            return Verdict.OK
        return None

    # ----------------------------------------------------------------- the checks

    def _root(self, position: str, lands: list[str], outcome_only: bool) -> Task:
        """The nimber of the root when all its lands have values, else its outcome: a win
        is one option shown losing (for a single land, its own fact is not used); a loss
        needs the stored couple (root, 0), so an unstored single land that is no win is a
        hole named after it."""
        report = self._report
        self._root_deps: tuple[str, ...] = ()
        missing = [land for land in lands if self._stored.get(land) is None]
        claimed = None if missing else nim_sum(self._value(x) for x in lands)
        if len(lands) == 1 and (missing or (outcome_only and claimed != 0)):
            deps = yield from self._win(tuple(lands), 0, exclude=lands[0], needed_by=position)
            if isinstance(deps, tuple):
                report.outcome = "W"
                self._root_deps = deps
            elif missing:
                self._name_root_hole(position)
            return None
        if not missing:
            good = True
            for land in lands:
                if (yield land) is not Verdict.OK:
                    good = False
            if good:
                total = 0
                for land in lands:
                    total ^= self._value(land)
                report.nimber = total
                report.outcome = "L" if total == 0 else "W"
                self._root_deps = tuple(lands)
            return None
        # a sum with unknown lands: it can still be shown winning
        deps = yield from self._win(tuple(lands), 0, exclude="", needed_by=position)
        if isinstance(deps, tuple):
            report.outcome = "W"
            self._root_deps = deps
        return None

    def _name_root_hole(self, position: str) -> None:
        """A root with no stored fact that is not shown winning: its hole names the root
        first (a stored loss would settle it), then the lands that would show a win."""
        holes = self._report.missing
        couple = f"{position} + *0"
        for index, hole in enumerate(holes):
            if hole.couple == couple and hole.needed_by == position:
                others = tuple(x for x in hole.missing if x != position)
                holes[index] = Hole(couple, position, ((position, *others))[:MAX_NAMED])
                return
        holes.append(Hole(couple, position, (position,)))

    def _check_land(self, land: str) -> Task:
        """The justification of the stored fact nimber(land) = n."""
        n = self._value(land)
        children = self.game.component_children(land)
        self._fetch(part for child in children for part in child)
        obligations: list[tuple[tuple[str, ...], int]] = [(child, n) for child in children]
        obligations += [((land,), k) for k in range(n)]
        verdict, deps = yield from all_options_win(
            (self._win(parts, m, exclude=land, needed_by=land) for parts, m in obligations),
            self._report,
        )
        if verdict is Verdict.OK:
            self._deps[land] = deps
        return verdict

    # ------------------------------------------------------- the quick path (check_facts)

    def _quick_check(self, land: str) -> bool:
        """Verify the stored fact of `land` without coroutines when each obligation has a
        justification of facts already settled OK, tried as the full check tries them
        (`_quick_option` may take another option of the same kind): the common case of a
        whole-store check in lives order. False, with nothing decided, otherwise: the
        full check then runs from scratch. Only for check_facts (minimise off), where each
        land's obligations are its own (exclude=land), so skipping `_win_memo` is unseen."""
        n = self._value(land)
        children = self.game.component_children(land)
        self._fetch(part for child in children for part in child)
        stored = self._stored
        settled = self._settled_ok
        deps: set[str] = set()
        own: list[tuple[tuple[str, ...], int]] = []  # the land's known options, in order
        for child in children:
            lands = child if len(child) == 1 else _cancelled(child)
            total = 0
            for x in lands:
                value = stored.get(x)
                if value is None:
                    total = -1
                    break
                total ^= value
            if total >= 0:
                own.append((lands, total))
                if total != n:  # nim arithmetic: the full check asks every land's verdict
                    states = [settled(x) for x in lands]
                    if None in states:
                        return False
                    if all(states):
                        deps.update(lands)
                        continue
            found = self._quick_win(lands, n, land)
            if found is None:
                return False
            deps.update(found)
        for k in range(n):  # (land, k): the first option of value k whose facts are OK
            for option, total in own:
                if total != k:
                    continue
                states = [settled(x) for x in option]
                if None in states[: states.index(False) if False in states else None]:
                    return False
                if False not in states:
                    deps.update(option)
                    break
            else:
                return False
        self.lands_checked += 1
        self._verdicts[land] = Verdict.OK
        self._deps[land] = tuple(sorted(deps))
        return True

    def _quick_win(self, lands: tuple[str, ...], m: int, exclude: str) -> tuple[str, ...] | None:
        """`_win`'s answer (minimise off) on cancelled `lands` when it needs no check of an
        unsettled fact: the facts used; None when it would check one, or would find no
        justification."""
        stored = self._stored
        values = [stored.get(x) for x in lands]
        if lands != (exclude,) and None not in values:
            total = 0
            for value in values:
                total ^= value  # type: ignore[operator]  # no None: tested just above
            if total != m:  # nim arithmetic: the full check asks for every land's verdict
                states = [self._settled_ok(x) for x in lands]
                if None in states:
                    return None
                if all(states):
                    return lands
        return self._quick_option(lands, m)

    def _quick_option(self, lands: tuple[str, ...], m: int) -> tuple[str, ...] | None:
        """An option of `_options(lands, m)` whose lands are all settled OK; None when there
        is none, or when an option offered before it has a land not settled yet.
        lands has each land at most once (cancelled), so a move in one land leaves every
        unstored land of the others in the option unless the child holds it; the children
        that cannot cancel them give unknown options and are not looked up. Children are
        made only up to the option found (`first_child`: about a third of them, measured on
        check --all of a 0*12 store). An option found is remembered for the run (a third of
        the calls of check --all of a 0*12 store ask again): the options before it were
        refused for stored values or settled facts, which stay as they are in a run.

        Which option is taken does not change a verdict (a land is OK when each obligation
        has some option of OK facts), only the justification kept in `_deps`, which a
        whole-store check shows only through the small lands it derived. So with nothing
        derived, the C core offers first the children whose lands it has canonical strings
        for (`memoised_first`): most children refused here are lands never stored, and
        their canonical search was 30 % of check --all (9.2 -> 6.8 CPU s on the 30 959
        facts of solve 0*11 and 0*12 --search dfs).
        With `derive_lives`, options stay in move order, so the derived lands reported do
        not depend on what the memo of this process has met."""
        known = self._option_memo.get((lands, m))
        if known is not None:
            return known
        any_order = self._small.max_lives == 0
        for index, land in enumerate(lands):
            if land in lands[:index]:
                continue
            found: list[tuple[str, ...] | None] = []
            accept = self._option_accepter(lands[:index] + lands[index + 1 :], m, found)
            if first_child(self.game, land, accept, memoised_first=any_order) is not None:
                if found[0] is not None:
                    self._option_memo[(lands, m)] = found[0]
                return found[0]
        return None

    def _option_accepter(
        self, rest: tuple[str, ...], m: int, found: list[tuple[str, ...] | None]
    ) -> Callable[[tuple[str, ...]], bool]:
        """`first_child`'s test of a child of one land of an option whose other lands are
        `rest`: true at the first option of value m whose lands are settled OK (appended
        to `found`), or at one with a land not settled yet (None appended: give up)."""
        stored = self._stored
        settled = self._settled_ok
        unknown = [x for x in rest if stored.get(x) is None]

        def accept(child: tuple[str, ...]) -> bool:
            if unknown and not all(x in child for x in unknown):
                return False
            for x in child:
                if x not in stored:
                    self._fetch(child)
                    break
            if rest:
                option = tuple(cancel_pairs([*rest, *child]))
            else:  # most options: one unstored land, and the child as it comes
                option = child if len(child) == 1 else _cancelled(child)
            if self._stored_value(option) != m:
                return False
            for x in option:
                state = settled(x)
                if state is None:
                    found.append(None)  # the full check would check it first: give up
                    return True
                if not state:
                    return False
            found.append(option)
            return True

        return accept

    def _settled_ok(self, land: str) -> bool | None:
        """Whether the verdict of `land` is OK, when it is already known; None otherwise."""
        verdict = self._verdicts.get(land)
        if verdict is not None:
            return verdict is Verdict.OK
        if land in self._derived or (self._use_trust and land in self._trusted):
            return True
        return None

    def _win(
        self, parts: tuple[str, ...], m: int, *, exclude: str, needed_by: str
    ) -> Generator[str, Verdict, tuple[str, ...] | Inconsistency | None]:
        """Show the couple (parts, m) winning: the facts used, an Inconsistency when checked
        facts show it losing (so `needed_by`'s value is wrong), or None when it cannot be."""
        lands = tuple(cancel_pairs(list(parts)))
        key = (lands, m, exclude)
        if key in self._win_memo:
            return self._win_memo[key]
        self._fetch(lands)
        stored = self._stored
        known = lands != (exclude,) and all(stored.get(x) is not None for x in lands)
        if known and nim_sum(self._value(x) for x in lands) != m:
            # nim arithmetic: taken at once when it costs no new fact (or when not
            # minimising), before enumerating the options of every land
            verdicts = self._verdicts
            if not self._minimise or all(verdicts.get(x) is Verdict.OK for x in lands):
                good = True
                for x in lands:
                    if (yield x) is not Verdict.OK:
                        good = False
                if good:
                    self._win_memo[key] = lands
                    return lands
        if not self._minimise:  # first justification that holds, options made lazily
            for option in self._options(lands, m):
                good = True
                for x in option:
                    if (yield x) is not Verdict.OK:
                        good = False
                        break
                if good:
                    self._win_memo[key] = option
                    return option
        candidates, missing = self._losing_options(lands, m)
        if not self._minimise:
            candidates = []  # all tried above
        if known and nim_sum(self._value(x) for x in lands) != m:
            candidates.append(_Candidate(lands, self._score(lands)))  # nim arithmetic
            candidates.sort(key=lambda c: c.score)
        for candidate in candidates:
            good = True
            for x in candidate.deps:
                if (yield x) is not Verdict.OK:
                    good = False
                    break
            if good:
                self._win_memo[key] = candidate.deps
                return candidate.deps
        if known and nim_sum(self._value(x) for x in lands) == m:
            good = True
            for x in lands:
                if (yield x) is not Verdict.OK:
                    good = False
            if good:  # checked facts say this option of needed_by's couple is losing
                return self._contradiction(needed_by, lands, m)
        if not candidates and not known:
            if lands == (exclude,):
                found = yield from self._mex_contradiction(exclude, m)
                if found is not None:
                    return found
            couple = f"{self.game.join(lands)} + *{m}"
            named = tuple(x for x in lands if x != exclude and stored.get(x) is None)
            named += tuple(x for x in missing if x not in named)
            self._report.missing.append(Hole(couple, needed_by, named[:MAX_NAMED]))
        self._win_memo[key] = None
        return None

    def _each_option(self, lands: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        """Every option of the sum ``lands`` (a move in one land, equal lands cancelled) in
        move order, the stored facts of each land's children fetched in one read."""
        for index, land in enumerate(lands):
            if land in lands[:index]:
                continue
            rest = lands[:index] + lands[index + 1 :]
            children = self.game.component_children(land)
            self._fetch(part for child in children for part in child)
            for child in children:
                yield tuple(cancel_pairs([*rest, *child]))

    def _options(self, lands: tuple[str, ...], m: int) -> Iterator[tuple[str, ...]]:
        """Options of (lands, m) that stored facts claim losing, in move order."""
        for option in self._each_option(lands):
            if self._stored_value(option) == m:
                yield option

    def _stored_value(self, option: tuple[str, ...]) -> int | None:
        """The nim-sum of the stored nimbers of an option's lands; None if one is unknown."""
        stored = self._stored
        total = 0
        for x in option:
            value = stored.get(x)
            if value is None:
                return None
            total ^= value
        return total

    def _losing_options(self, lands: tuple[str, ...], m: int) -> tuple[list[_Candidate], list[str]]:
        """Options of (lands, m) that stored facts claim losing, cheapest first; and the
        lands whose single missing fact keeps an option unknown (for naming holes)."""
        stored = self._stored
        candidates: list[_Candidate] = []
        seen: set[tuple[str, ...]] = set()
        missing: dict[str, None] = {}
        for option in self._each_option(lands):
            if option in seen:
                continue
            seen.add(option)
            unknown = [x for x in option if stored.get(x) is None]
            if unknown:
                if len(unknown) == 1:
                    missing.setdefault(unknown[0], None)
                continue
            if nim_sum(self._value(x) for x in option) != m:
                continue
            candidates.append(_Candidate(option, self._score(option)))
        candidates.sort(key=lambda c: c.score)
        return candidates, list(missing)

    def _score(self, deps: tuple[str, ...]) -> tuple[float, ...]:
        """Cheapest justification first: fewest facts not yet checked OK, then fewest
        facts, then (deterministic) shortest keys or (random cycles) a random draw."""
        verdicts = self._verdicts
        new = sum(1 for x in deps if verdicts.get(x) is not Verdict.OK)
        bad = sum(1 for x in deps if verdicts.get(x) not in (None, Verdict.OK))
        tie = self._rng.random() if self._rng is not None else float(sum(map(len, deps)))
        return (bad, new, len(deps), tie)

    def _contradiction(self, land: str, lands: tuple[str, ...], m: int) -> Inconsistency:
        couple = f"{self.game.join(lands)} + *{m}"
        if lands == (land,):
            reason = f"({couple}) is losing by its own stored value"
        else:
            reason = f"its option ({couple}) is losing by checked facts"
        return Inconsistency(land, self._value(land), reason)

    def _mex_contradiction(
        self, land: str, k: int
    ) -> Generator[str, Verdict, Inconsistency | None]:
        """When every child of `land` has checked nimbers and none is k < n, the mex of
        the children is not the stored n: an inconsistency of `land`. Nothing when
        `land` has no stored value (an unstored root: its loss is not claimed)."""
        if self._stored.get(land) is None:
            return None
        values: set[int] = set()
        for child in self.game.component_children(land):
            parts = cancel_pairs(list(child))
            if any(self._stored.get(x) is None for x in parts):
                return None
            for x in parts:
                if (yield x) is not Verdict.OK:
                    return None
            values.add(nim_sum(self._value(x) for x in parts))
        return Inconsistency(
            land,
            self._value(land),
            f"no option has nimber {k}: the mex of its checked options is {mex(values)}",
        )

    # ----------------------------------------------------------------- helpers

    def _closure(self, roots: Iterable[str]) -> dict[str, int]:
        """The stored facts reachable from the root through the chosen justifications
        (lands derived from the rules are not facts: they are left out)."""
        return proof_closure(roots, self._deps, self._value, self._derived)

    def _value(self, land: str) -> int:
        value = self._stored.get(land)
        if value is None:
            raise KeyError(land)
        return value

    def _fetch(self, keys: Iterable[str]) -> None:
        """Read the stored nimbers of lands not read yet, in batches (`trusted` is asked
        right after each read, about the keys it found)."""
        stored = self._stored
        wanted = list(dict.fromkeys(k for k in keys if k not in stored))
        if not wanted:
            return
        for start in range(0, len(wanted), self._fetch_batch):
            batch = wanted[start : start + self._fetch_batch]
            found = self._source.get(FactKind.NIMBER, batch)
            for key in batch:
                value = found.get(key)
                if isinstance(value, int) and value >= 0:
                    stored[key] = value
                    continue
                derived = stored[key] = self._small.nimber(key)
                if derived is not None:  # no stored fact, few lives: the rules' value
                    self._derived[key] = derived
                    self._verdicts[key] = Verdict.OK
            if self._trusted_lookup is not None and found:
                self._trusted.update(self._trusted_lookup([k for k in batch if k in found]))

    def forget(self, *, keep_read: bool = False) -> None:
        """Drop the stored values and trust marks read (bounds memory between batches; the
        run's memos are dropped when the next run starts); the rules' values of small
        lands stay memoised in `SmallLands`.

        `keep_read` keeps what was read, up to READ_LIMIT lands, for a caller that knows it
        is still true: facts are write-once, and a whole-store check in lives order reads
        only lands of fewer lives than its batch, all settled and marked before the batch
        started (`trust` adds the marks the caller makes). On a store of solve 0*13, 45 %
        of the reads were of lands an earlier batch had read."""
        if keep_read and len(self._stored) <= READ_LIMIT:
            return
        self._stored.clear()
        self._derived.clear()
        self._trusted.clear()

    def trust(self, lands: Iterable[str]) -> None:
        """Note lands the caller has marked verified, as if read so (see `forget`)."""
        self._trusted.update(lands)


def _cancelled(parts: tuple[str, ...]) -> tuple[str, ...]:
    """`cancel_pairs` of parts, as a tuple: the parts themselves when they are sorted and
    distinct (children come sorted, and rarely with equal lands)."""
    for index in range(1, len(parts)):
        if parts[index] <= parts[index - 1]:
            return tuple(cancel_pairs(list(parts)))
    return parts


class _ProofView:
    """The facts of one proof as a FactSource: later cycles choose only among them."""

    def __init__(self, facts: Mapping[str, int]) -> None:
        self._facts = facts

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        facts = self._facts if kind is FactKind.NIMBER else {}
        return {key: facts[key] for key in keys if key in facts}


def check_with_cycles(
    game: Game,
    source: FactSource,
    position: str,
    *,
    cycles: int = 1,
    seed: int = 0,
    outcome_only: bool = False,
    derive_lives: int = 0,
    progress: CheckProgress | None = None,
) -> tuple[CheckReport, list[int]]:
    """The paper's random check cycles: a first deterministic check of the store, then
    `cycles - 1` checks with random choices restricted to the smallest proof found so far,
    so the proof never grows. Returns the best report (its `verified` holds every fact
    any cycle verified) and every cycle's proof size; `progress` hears how far each is."""

    def run(best: CheckReport | None, rng: random.Random | None, cycle: int) -> CheckReport:
        facts = source if best is None else _ProofView(best.used)
        tick = cycle_ticker(progress, cycle)
        checker = Checker(game, facts, rng=rng, derive_lives=derive_lives, progress=tick)
        return checker.check(position, outcome_only=outcome_only)

    return best_of_cycles(run, cycles=cycles, seed=seed)
