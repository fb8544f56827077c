"""The README's results table, made from the results library's manifest (never by hand).

    .venv/bin/python docs/gen_results_table.py           # print the block
    .venv/bin/python docs/gen_results_table.py --write   # rewrite it in README.md
    .venv/bin/python docs/gen_results_table.py --check   # exit 1 when README.md is stale

The block sits between the marker comments BEGIN and END of README.md: each position's
normal-play and misère statements side by side, with the size of each certificate (facts; for
misère, the losing nodes beyond the S6 table), the positions in two halves side by side; the
Cram boards (`Cram 4x7`, normal play only) after the Sprouts positions.
tests/test_readme_results_table.py keeps the README's block equal to what this prints.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sproutsdb.ops.results import (
    ManifestEntry,
    board_of,
    read_manifest,
    shipped_library,
    spots_of,
)

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"


def _statement(entry: ManifestEntry) -> str:
    """`L (nimber 0)`, `W (nimber 1)` or `W`: the outcome, and the nimber when proved."""
    statement = entry.statement
    if "nimber" in statement:
        nimber = int(statement["nimber"])
        return f"{'L' if nimber == 0 else 'W'} (nimber {nimber})"
    return str(statement["outcome"])


def _order(position: str) -> tuple[int, tuple[int, ...], str]:
    spots, board = spots_of(position), board_of(position)
    if spots is not None:
        return (0, (spots,), position)
    return (1, board or (), position)  # a Cram board RxC: by cells, then rows


def _cells(position: str, by_play: dict[str, dict[str, ManifestEntry]]) -> list[str]:
    entry = by_play["normal"].get(position) or by_play["misere"].get(position)
    game = "" if entry is None or entry.game == "sprouts" else f"{entry.game.capitalize()} "
    cells = [f"{game}`{position}`"]
    for play in ("normal", "misere"):
        entry = by_play[play].get(position)
        cells += ["", ""] if entry is None else [_statement(entry), f"{entry.facts:,}"]
    return cells


def table_lines(entries: list[ManifestEntry]) -> list[str]:
    """The markdown table: a position's normal-play and misère statements side by side, the
    positions in two halves side by side too (the first half down the left)."""
    by_play: dict[str, dict[str, ManifestEntry]] = {"normal": {}, "misere": {}}
    for entry in entries:
        by_play.setdefault(entry.play, {})[entry.position] = entry
    positions = sorted({entry.position for entry in entries}, key=_order)
    half = (len(positions) + 1) // 2
    left, right = positions[:half], positions[half:]
    head = ["position", "normal play", "facts", "misère play", "nodes"]
    lines = [
        "| " + " | ".join(head + head) + " |",
        "|" + "---|---|--:|---|--:|" * 2,
    ]
    for i, position in enumerate(left):
        cells = _cells(position, by_play)
        cells += _cells(right[i], by_play) if i < len(right) else [""] * len(head)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def block(entries: list[ManifestEntry] | None = None) -> str:
    """The whole block, markers included, as it stands in README.md."""
    if entries is None:
        entries = read_manifest(shipped_library())
    return "\n".join([BEGIN, *table_lines(entries), END])


def readme_block(text: str) -> str:
    """The block as README.md has it now (markers included)."""
    start, end = text.index(BEGIN), text.index(END)
    if end < start:
        raise ValueError(f"README.md: {END} comes before {BEGIN}")
    return text[start : end + len(END)]


def rewritten(text: str) -> str:
    """README.md's text with its block replaced by a fresh one."""
    return text.replace(readme_block(text), block(), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="rewrite the block in README.md")
    what.add_argument("--check", action="store_true", help="exit 1 when README.md is stale")
    args = parser.parse_args(argv)
    if args.write:
        text = README.read_text()
        new = rewritten(text)
        if new != text:
            README.write_text(new)
        print(f"{README.name}: results table {'rewritten' if new != text else 'up to date'}")
        return 0
    if args.check:
        stale = readme_block(README.read_text()) != block()
        if stale:
            print(f"{README.name}: results table is stale: run {sys.argv[0]} --write")
        return 1 if stale else 0
    print(block())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
