"""Engine benchmark: star lands, children and canon throughput, whole-tree exploration.

Run on demand (not part of the test suite):
    .venv/bin/python bench/engine.py                         # all sections, 0*4 and 0*5 trees
    .venv/bin/python bench/engine.py --six                   # also the whole tree of 0*6 (minutes)
    .venv/bin/python bench/engine.py --save out.json         # keep the figures
    .venv/bin/python bench/engine.py --baseline bench/baselines/engine-canon-v1.json
Figures are CPU seconds (time.process_time) so a busy machine distorts them less; the
pure-Python reference runs in the same process as the baseline of the C/Python ratios, and
--baseline prints each figure's ratio to a saved run (e.g. the release with canon v1: run
this file with that release's interpreter and --save). Star lands `2A|2B|...|AB...` (k
letters) run in a child process stopped at --star-cap seconds, since v1 was factorial.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sproutsdb.solver.extras.treestats import explore
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.canon import CANON_VERSION, canonical_lands
from sproutsdb.solver.sprouts.game import SproutsGame, python_land_children
from sproutsdb.solver.sprouts.notation import parse

LANDS_FILE = Path(__file__).with_name("engine_lands.txt")
STAR_KS = (8, 10, 12, 14)


class PythonSprouts(SproutsGame):
    """Sprouts with the pure-Python reference forced, as the baseline."""

    def component_children(self, component: str):  # type: ignore[override]
        cached = self._land_children.get(component)
        if cached is None:
            cached = self._land_children[component] = python_land_children(component)
        return cached


def sample_lands() -> list[str]:
    """The fixed sample of lands (seeded random games of 0*5..0*9), one per line."""
    lines = LANDS_FILE.read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def star_land(k: int) -> str:
    """`2A|2B|...|AB...`: k regions holding one letter and a spot, around one region."""
    letters = [chr(65 + i) for i in range(k)]
    return "|".join([f"2{x}" for x in letters] + ["".join(letters)])


def python_canon(land: str) -> list[str]:
    return canonical_lands(parse(land))


def c_canon(land: str) -> list[str]:
    core = sprouts_game.compiled_core()
    assert core is not None
    core.clear_memo()
    return list(core.canonical_lands(land))


def _time_star(implementation: str, k: int, out: Any) -> None:
    canon = c_canon if implementation == "c" else python_canon
    start = time.process_time()
    canon(star_land(k))
    out.put(time.process_time() - start)


def star_seconds(implementation: str, k: int, cap: float) -> float | None:
    """CPU seconds to canonicalise the star land of k letters, None past the cap."""
    queue: Any = multiprocessing.Queue()
    child = multiprocessing.Process(target=_time_star, args=(implementation, k, queue))
    child.start()
    child.join(cap)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return float(queue.get())


def rate(function: Callable[[str], Any], lands: list[str], passes: int = 1) -> float:
    """Lands per CPU second of function over the sample, best of `passes`."""
    best = float("inf")
    for _ in range(passes):
        start = time.process_time()
        for land in lands:
            function(land)
        best = min(best, time.process_time() - start)
    return len(lands) / best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--six", action="store_true", help="also explore the tree of 0*6")
    parser.add_argument("--no-trees", action="store_true", help="skip the tree explorations")
    parser.add_argument(
        "--star-cap",
        type=float,
        default=60.0,
        help="CPU seconds allowed per star land (default 60)",
    )
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--baseline", type=Path, help="a saved run to print ratios against")
    args = parser.parse_args()
    have_c = sprouts_game.compiled_core() is not None
    figures: dict[str, Any] = {
        "canon_version": CANON_VERSION,
        "implementation": sprouts_game.IMPLEMENTATION,
    }
    print(f"implementation: {sprouts_game.IMPLEMENTATION}, canon_version {CANON_VERSION}")

    for implementation in (["c"] if have_c else []) + ["python"]:
        cells = []
        for k in STAR_KS:
            seconds = star_seconds(implementation, k, args.star_cap)
            figures[f"star_{implementation}_k{k}_ms"] = None if seconds is None else seconds * 1e3
            cells.append(
                f"k={k} "
                + (f">{args.star_cap:.0f} s" if seconds is None else f"{seconds * 1e3:.3f} ms")
            )
        print(f"star lands, {implementation}: " + ", ".join(cells), flush=True)

    lands = sample_lands()
    distinct = sorted(set(lands))
    figures["children_python_lands_per_s"] = rate(python_land_children, lands)
    figures["canon_python_lands_per_s"] = rate(python_canon, distinct)
    if have_c:
        core = sprouts_game.compiled_core()
        assert core is not None
        figures["children_c_lands_per_s"] = rate(core.land_children, lands, passes=5)
        figures["canon_c_lands_per_s"] = rate(c_canon, distinct, passes=5)
    for what, count in (("children", len(lands)), ("canon", len(distinct))):
        line = f"{what}: {count} lands, python {figures[f'{what}_python_lands_per_s']:,.0f}/s"
        if have_c:
            c_rate = figures[f"{what}_c_lands_per_s"]
            line += (
                f", c {c_rate:,.0f}/s "
                f"(x{c_rate / figures[f'{what}_python_lands_per_s']:.0f} vs python)"
            )
        print(line, flush=True)

    roots = [] if args.no_trees else ["0*4", "0*5"] + (["0*6"] if args.six else [])
    for root in roots:
        stats, _, _ = explore(SproutsGame(), root)
        figures[f"tree_{root}_positions"] = stats.positions
        figures[f"tree_{root}_seconds"] = stats.seconds
        line = (
            f"tree-stats {root}: {stats.positions} positions, {stats.lands} lands, "
            f"{stats.canonical_trees} canonical trees, {stats.seconds:.2f} s wall"
        )
        if root == "0*4":
            start = time.process_time()
            explore(PythonSprouts(), root)
            line += f" (python reference: {time.process_time() - start:.2f} s CPU)"
        print(line, flush=True)
    if roots:
        print(
            "paper (GLOP 2.2): 24 784 positions stored for 0*5 (22 902 distinct keys once "
            "re-canonicalised by GLOP); 393 103 for 0*6; the whole 0*6 table ~1 740 s CPU"
        )

    if args.save:
        args.save.write_text(json.dumps(figures, indent=1) + "\n")
    if args.baseline:
        print_ratios(figures, json.loads(args.baseline.read_text()), args.baseline)


def print_ratios(figures: dict[str, Any], baseline: dict[str, Any], where: Path) -> None:
    """Each figure next to the saved one: >1 means faster now (rates) or slower (ms, counts)."""
    print(f"against {where} (canon_version {baseline.get('canon_version')}):")
    for name, now in figures.items():
        before = baseline.get(name)
        if not isinstance(now, (int, float)) or name == "canon_version":
            continue
        if before is None:
            print(f"  {name}: {now:,.3f} now, not measured or past the cap before")
        else:
            print(f"  {name}: {before:,.3f} before, {now:,.3f} now, now/before {now / before:.4g}")


if __name__ == "__main__":
    main()
