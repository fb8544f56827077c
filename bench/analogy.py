"""Guide a record run by the proof of a smaller position of the same shape (issue 75).

The df-pn search of `0*n` treats the options of a land alike, and spends its visits on the
one option whose proof is long: for normal `0*33` and `0*39` the option `0*(n-2).1a1a`,
which must be shown losing. The certificates of smaller `0*k` hold proofs of the same shape:
`0*31.1a1a` is a loss whose options are answered by replies such as
`0*15.1aAa|0*15.A.BC|BC`, and the option of `0*37.1a1a` of the same shape is answered by the
same reply with six more spots (`0*21.1aAa|0*15.A.BC|BC`). This bench tries those replies first.

For TARGET and LIKE, a smaller position of the same shape whose proof is in the results
library (or in --proof files):

- LIKE a loss: every option of TARGET not yet answered in the store (no child whose stored
  nimbers nim-sum to 0) is matched with the options of LIKE of the same shape (each run of
  empty spots `0*k` counted mod --mod); the replies the proof gives those options, grown by
  the spots TARGET has more than LIKE, are the candidates.
- LIKE a win: TARGET's options shaped like LIKE's losing options are the candidates.

Candidates are solved in the run's store (`sproutsdb solve CAND --outcome-only --jobs 1`,
interrupted after a time, its facts kept) until one is shown losing: every candidate of an
option for --quick seconds first; then each in depth, its own open options guided the same
way by the reply it grew from (to --depth levels), and last for --budget seconds. Nothing
here is a proof: the facts are the solver's, and the record run and `check` re-derive the
outcome from them and the rules. Each solve is one JSON line on stdout (and --log).

    .venv/bin/python bench/analogy.py '0*37.1a1a' --like '0*31.1a1a' --store /tmp/r39/store
    .venv/bin/python bench/analogy.py '0*42.1a1a' --like '0*36.1a1a' --store S --dry-run
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sproutsdb.games import get_game
from sproutsdb.ops.results import certificate_keys, read_manifest, shipped_library
from sproutsdb.ops.stores import open_local_store
from sproutsdb.solver.cgt.nimarith import nim_sum
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.notation import SPOT_RUN

SPROUTSDB = str(Path(sys.executable).with_name("sproutsdb"))
GAME = get_game("sprouts").engine()


def zero_runs(key: str) -> list[int]:
    """The sizes of the runs of empty spots of a position, in text order."""
    return [int(found.group(1) or 1) for found in SPOT_RUN.finditer(key)]


def shape(key: str, mod: int) -> str:
    """A position with each run of empty spots replaced by its size mod `mod` (lands sorted):
    positions of one shape differ only by multiples of `mod` spots in their runs."""
    marked = SPOT_RUN.sub(lambda found: f"Z{int(found.group(1) or 1) % mod}", key)
    return "+".join(sorted(marked.split("+")))


def library_proofs() -> list[Path]:
    """Every normal-play Sprouts certificate the results library's manifest lists."""
    library = shipped_library()
    return [
        library / entry.file
        for entry in read_manifest(library)
        if entry.game == "sprouts" and entry.play == "normal"
    ]


def read_nimbers(paths: Iterable[Path]) -> dict[str, int]:
    """The nimber facts of export files (each stream's checksums verified as it is read)."""
    return {
        key: int(value)
        for path in paths
        for kind, facts in certificate_keys(path)
        if kind is FactKind.NIMBER
        for key, value in facts
    }


Lookup = Callable[[list[str]], Mapping[str, int]]  # lands -> the nimbers known of them


def in_store(path: str) -> Lookup:
    """Look-ups in a store, opened afresh each time (a solve writes to it between)."""

    def lookup(keys: list[str]) -> dict[str, int]:
        if not Path(path).exists():  # no store yet: the first solve creates it
            return {}
        store = open_local_store(path, readonly=True)
        try:
            return {k: int(v) for k, v in store.get(FactKind.NIMBER, keys).items()}
        finally:
            store.close()

    return lookup


def nim_sums(children: list[str], lookup: Lookup) -> dict[str, int]:
    """The nim-sum of each child whose lands all have a known nimber."""
    known = lookup(sorted({land for child in children for land in GAME.components(child)}))
    lands = {child: GAME.components(child) for child in children}
    return {
        child: nim_sum(known[land] for land in its)
        for child, its in lands.items()
        if all(land in known for land in its)
    }


def answered(option: str, store: Lookup) -> bool:
    """Whether the store shows `option` winning: a child whose lands nim-sum to 0."""
    return 0 in nim_sums(GAME.children(option), store).values()


def grown(reply: str, options: list[str], mod: int, shift: int) -> list[str]:
    """Those of `options` shaped like `reply` with `shift` more empty spots."""
    want, size = shape(reply, mod), sum(zero_runs(reply))
    return [o for o in options if shape(o, mod) == want and sum(zero_runs(o)) - size == shift]


Candidate = tuple[str, str]  # (a position to show losing, the reply of the proof it grew from)


def plan(
    target: str, like: str, proof: Lookup, store: Lookup, mod: int
) -> tuple[str, list[dict[str, Any]]]:
    """("refute" or "win", [{"option", "analogs", "candidates"}]) for TARGET after LIKE:
    each candidate a (position, the reply of LIKE's proof it grew from)."""
    shift = sum(zero_runs(target)) - sum(zero_runs(like))
    like_options = GAME.children(like)
    like_values = nim_sums(like_options, proof)
    target_options = GAME.children(target)
    if 0 in like_values.values():  # LIKE wins: find TARGET's losing option
        candidates: list[Candidate] = []
        for reply in (o for o, v in like_values.items() if v == 0):
            for new in grown(reply, target_options, mod, shift):
                if new not in (c for c, _ in candidates):
                    candidates.append((new, reply))
        return "win", [{"option": target, "analogs": [like], "candidates": candidates}]
    by_shape: dict[str, list[str]] = {}
    for option in like_options:
        by_shape.setdefault(shape(option, mod), []).append(option)
    steps = []
    for option in target_options:
        if answered(option, store):
            continue
        analogs = by_shape.get(shape(option, mod), [])
        replies = GAME.children(option)
        candidates = []
        for analog in analogs:
            for reply, value in nim_sums(GAME.children(analog), proof).items():
                if value != 0:
                    continue
                for new in grown(reply, replies, mod, shift):
                    if new not in (c for c, _ in candidates):
                        candidates.append((new, reply))
        steps.append({"option": option, "analogs": analogs, "candidates": candidates})
    return "refute", steps


def solve(candidate: str, store: str, budget: float) -> dict[str, Any]:
    """One candidate solved in the store for at most `budget` seconds (then interrupted)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    command = [SPROUTSDB, "solve", candidate, "--outcome-only", "--jobs", "1"]
    process = subprocess.Popen(
        [*command, "--store", store, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = process.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)  # the solve stores what it proved and stops
        out, err = process.communicate()
    except KeyboardInterrupt:  # this bench stopped: the solve keeps what it proved, then ends
        process.send_signal(signal.SIGINT)
        process.communicate()
        raise
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    lines = out.strip().splitlines()
    report = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return {
        "outcome": report.get("outcome"),
        "visits": report.get("nodes"),
        "cpu_s": round(cpu, 1),
        "wall_s": round(time.monotonic() - started, 1),
        "error": None if report else (err.strip().splitlines() or ["no report"])[-1],
    }


class Guide:
    """Settles positions in one store: each by a short solve, then (to --depth) by the
    candidates its smaller twin's proof suggests, then by a solve of --budget seconds."""

    def __init__(self, args: argparse.Namespace, proof: Lookup) -> None:
        self.args, self.proof, self.store = args, proof, in_store(args.store)
        self.tried: dict[str, str | None] = {}  # position -> outcome of its last solve

    def known(self, position: str) -> str | None:
        """The outcome the store shows for a position ("L", "W") or None."""
        found = nim_sums([position], self.store)
        if position in found:
            return "L" if found[position] == 0 else "W"
        return "W" if answered(position, self.store) else None

    def settle(self, position: str, like: str, depth: int) -> str | None:
        """The outcome of `position` once settled here, None when it stays open."""
        outcome = self.quick(position, like, depth)
        if outcome is None and depth < self.args.depth:
            _, steps = plan(position, like, self.proof, self.store, self.args.mod)
            self.refute(steps, depth + 1)
            outcome = self.known(position)
        if outcome is None:
            outcome = self.attempt(position, like, depth, self.args.budget)
        return outcome

    def refute(self, steps: list[dict[str, Any]], depth: int) -> None:
        """Answer each step's option by one of its candidates: first every candidate of
        every option by a short solve (a cheap reply is often not the first, and one hard
        option must not hold up the others), then each option's candidates in depth."""
        hard = []
        for step in steps:
            if self.known(step["option"]) is not None:  # answered meanwhile
                continue
            if not any(self.quick(c, like, depth) == "L" for c, like in step["candidates"]):
                hard.append(step)
        for step in hard:
            if self.known(step["option"]) is not None:
                continue
            for candidate, its_like in step["candidates"]:
                if self.settle(candidate, its_like, depth) == "L":
                    break

    def quick(self, position: str, like: str, depth: int) -> str | None:
        """The outcome the store shows, else that of one short solve (once per position)."""
        outcome = self.known(position)
        if outcome is None and position not in self.tried:
            outcome = self.attempt(position, like, depth, self.args.quick)
        return outcome

    def attempt(self, position: str, like: str, depth: int, seconds: float) -> str | None:
        """One solve of `position` in the store, reported as a JSON line."""
        report: dict[str, Any] = {"position": position, "like": like, "depth": depth}
        report["budget_s"] = seconds
        report.update(solve(position, self.args.store, seconds))
        outcome: str | None = report["outcome"]
        self.tried[position] = outcome
        line = json.dumps(report)
        print(line, flush=True)
        if self.args.log is not None:
            with open(self.args.log, "a") as log:
                print(line, file=log)
        return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("target", help="the position to settle, e.g. 0*37.1a1a")
    parser.add_argument("--like", required=True, help="a smaller position of the same shape")
    parser.add_argument("--store", required=True, help="the record run's store")
    parser.add_argument("--proof", action="append", type=Path, help="export files proving LIKE")
    parser.add_argument("--mod", type=int, default=6, help="runs of empty spots count mod this")
    parser.add_argument("--quick", type=float, default=60.0, help="seconds of a first solve")
    parser.add_argument("--budget", type=float, default=900.0, help="seconds of a last solve")
    parser.add_argument("--depth", type=int, default=2, help="levels of guided candidates")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, solve nothing")
    parser.add_argument("--log", type=Path, help="also append each attempt here")
    args = parser.parse_args(argv)
    for stop in (signal.SIGINT, signal.SIGTERM):  # also when started in the background
        signal.signal(stop, signal.default_int_handler)
    target, like = GAME.canonical(args.target), GAME.canonical(args.like)
    proven = read_nimbers(args.proof or library_proofs())
    guide = Guide(args, lambda keys: {k: proven[k] for k in keys if k in proven})
    mode, steps = plan(target, like, guide.proof, guide.store, args.mod)
    print(f"{target} after {like}: {mode}, {len(steps)} to settle", file=sys.stderr)
    for step in steps:
        print(json.dumps(step), file=sys.stderr)
    if args.dry_run:
        return 0
    try:
        guide.refute(steps, 1)
    except KeyboardInterrupt:
        print(f"stopped: what the solves proved is kept in {args.store}", file=sys.stderr)
        return 130
    outcome = guide.known(target)
    print(json.dumps({"position": target, "outcome": outcome}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
