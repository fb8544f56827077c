"""Engine commands: `canon`, `children`, `tree-stats` — positions in, canonical facts out."""

from __future__ import annotations

import argparse
import json
import sys

from sproutsdb.games import get_game
from sproutsdb.progress import counter_bar
from sproutsdb.solver.extras.treestats import explore
from sproutsdb.solver.misere.rctsearch import count_rcts
from sproutsdb.tools.cli import positions_from
from sproutsdb.tools.game_option import add_game_option, game_of


def run_canon(args: argparse.Namespace) -> int:
    game = game_of(args).engine()
    out = sys.stdout
    for text in positions_from(args.positions):
        key = game.canonical(text)
        if args.json:
            out.write(
                json.dumps(
                    {
                        "input": text,
                        "position": key,
                        "lands": list(game.components(key)),
                        "lives": game.size(key),
                    }
                )
                + "\n"
            )
        else:
            out.write(key + "\n")
    return 0


def run_children(args: argparse.Namespace) -> int:
    game = game_of(args).engine()
    key = game.canonical(args.position)
    children = game.children(key)
    if args.json:
        print(json.dumps({"position": key, "children": children}))
    else:
        for child in children:
            print(child)
    return 0


def run_tree_stats(args: argparse.Namespace) -> int:
    game = get_game().engine()
    key = game.canonical(args.position)
    with counter_bar("positions", enabled=not args.quiet) as bar:
        stats, tree_of, trees = explore(game, key, progress=bar.update_to)
    with counter_bar("trees reduced to RCTs", enabled=not args.quiet, total=len(trees)) as bar:
        rcts = count_rcts(tree_of, trees, progress=bar.update_to)
    report = {
        "position": key,
        "positions": stats.positions,
        "lands": stats.lands,
        "canonical_trees": stats.canonical_trees,
        "rcts": rcts,  # distinct RCTs of the positions
        "max_lives": stats.max_lives,
        "seconds": round(stats.seconds, 3),
    }
    if args.json:
        print(json.dumps(report))
    else:
        for name, value in report.items():
            print(f"{name:16} {value}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the engine commands to the `sproutsdb` parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "canon",
        formatter_class=fmt,
        help="print the canonical form of positions",
        description=(
            "Print the canonical GLOP 2.x string of each position, one per line. The\n"
            "canonical form removes dead spots and regions, splits independent lands and\n"
            "is the same for every drawing of the same position (letters renamed,\n"
            "boundaries rotated or reordered, mirror image)."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb canon '0.AB.}AB.}]!'        # GLOP 1.x in, 2.x out: 0.AB|AB\n"
            "  sproutsdb canon 0*3 1a1a 'AB|AB'\n"
            "  sproutsdb canon '0*2+0.AB|AB' --json  # key, lands and lives\n"
            "  sproutsdb canon - < positions.txt     # one position per line"
        ),
    )
    p.add_argument(
        "positions",
        nargs="+",
        metavar="POS",
        help="a position in GLOP 2.x or 1.x notation, or - for stdin",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='one JSON object per line: {"input", "position", "lands", "lives"}',
    )
    add_game_option(p)
    p.set_defaults(handler=run_canon)

    p = subparsers.add_parser(
        "children",
        formatter_class=fmt,
        help="list the distinct canonical children of a position",
        description="Print every position reachable in one move, canonical and deduplicated.",
        epilog="examples:\n  sproutsdb children 0*3\n  sproutsdb children 0.AB|AB --json",
    )
    p.add_argument(
        "position",
        metavar="POS",
        help="position in GLOP notation: 2.x (0*3, 0.AB|AB, lands joined by +) or 1.x",
    )
    p.add_argument("--json", action="store_true", help='print {"position": P, "children": [...]}')
    add_game_option(p)
    p.set_defaults(handler=run_children)

    p = subparsers.add_parser(
        "tree-stats",
        formatter_class=fmt,
        help="explore a whole game tree and count its positions and canonical trees",
        description=(
            "Explore every position of the game tree of POS and count the distinct\n"
            "canonical positions, the distinct lands, and the distinct canonical game\n"
            "trees (duplicate children merged; the misère paper's Figure 9 counts\n"
            "10, 55, 713, 10 461, 150 147 for 0*2 .. 0*6), and the distinct reduced\n"
            "canonical trees (RCTs) of its positions: 5, 7, 35, 1 203, 25 458."
        ),
        epilog="examples:\n  sproutsdb tree-stats 0*4\n  sproutsdb tree-stats 0*5 --json",
    )
    p.add_argument(
        "position",
        metavar="POS",
        help="position in GLOP notation: 2.x (0*3, 0.AB|AB, lands joined by +) or 1.x",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.set_defaults(handler=run_tree_stats)
