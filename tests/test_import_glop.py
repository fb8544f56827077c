"""GLOP 2.2 RCT bases: `[Rct+Rcts_children]` + `[Position+Rct]` with lines sorted by bytes
(a parent line can precede its children's) import, agree with the shipped S6 table on every
position, and a real cycle is still refused in one line with nothing written."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.rcttable import RctTable, load_table
from sproutsdb.formats.spr import SprFormatError, translate_rcts
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore
from test_import_native import respell

S6 = Path(__file__).resolve().parent.parent / "data" / "s6.rcttable"


def glop_base(table: RctTable, positions: list[str], spell: Callable[[str], str] = str) -> bytes:
    """The RCT base of `positions` (and every tree below their RCTs) as GLOP writes it:
    each section's lines sorted by their bytes, RCTs named by short labels, positions
    written by `spell` (GLOP's spelling need not be this sproutsdb's canonical one)."""
    algebra = table.algebra
    wanted: set[int] = set()
    stack = [table.positions[p] for p in positions]
    while stack:
        handle = stack.pop()
        if handle not in wanted:
            wanted.add(handle)
            stack.extend(algebra.children(handle))

    def label(handle: int) -> str:
        return algebra.label(handle, "short")

    trees = [" ".join([label(h), *(label(k) for k in sorted(algebra.children(h)))]) for h in wanted]
    lines = [f"{spell(p)} {label(table.positions[p])}" for p in positions]
    body = [b"[Rct+Rcts_children]\n", *sorted(f"{t}\n".encode() for t in trees)]
    body += [b"[Position+Rct]\n", *sorted(f"{line}\n".encode() for line in lines)]
    return b"".join(body)


def stored(path: Path) -> tuple[dict[str, str], set[str], int]:
    """pos_rct facts, RCT ids, and how many facts are marked verified."""
    with LmdbProofStore.open(
        path, game="sprouts", canon_version=CANON_VERSION, create=False
    ) as store:
        return (
            dict(store.iter_facts(FactKind.POS_RCT)),
            {cid for cid, _ in store.iter_facts(FactKind.RCT)},
            sum(store.verified_count(kind) for kind in FactKind),
        )


@pytest.fixture(scope="module")
def s6() -> RctTable:
    return load_table(S6)


def test_parents_before_children_is_no_cycle() -> None:
    algebra = Algebra()
    children = {"2": ("0", "1"), "1": ("0",), "0": ()}
    handles = translate_rcts(children, ["2", "1", "0"], algebra)
    assert handles["2"] == algebra.nim(2)
    # a diamond met through a pending sibling and again below it
    children = {"3-1-L": ("2",), "3-1+1-W": ("3", "3-1-L"), "3": ("0", "1", "2"), **children}
    handles = translate_rcts(children, sorted(children), Algebra())
    assert set(handles) == set(children)


def test_a_real_cycle_is_refused() -> None:
    for children in (
        {"2": ("0", "1"), "1": ("2",), "0": ()},  # 2 -> 1 -> 2
        {"3-1-L": ("3-1-L",)},  # a tree its own child
        {"3-1-L": ("4-1-L",), "4-1-L": ("5-1-W",), "5-1-W": ("3-1-L", "0"), "0": ()},
    ):
        with pytest.raises(SprFormatError, match="lead back to itself"):
            translate_rcts(children, list(children), Algebra())


def test_a_long_chain_needs_no_recursion() -> None:
    """A 20 000-deep chain of labels (beyond Python's recursion limit) is walked; its
    trees do not match their labels, so it is refused, but without a RecursionError."""
    depth = 20_000
    children = {f"{n + 1}-1-W": (f"{n}-1-W",) for n in range(1, depth)}
    children["1-1-W"] = ("0",)
    with pytest.raises(SprFormatError, match="not what the label says"):
        translate_rcts(children, [f"{depth}-1-W"], Algebra())


def tree_of(root: str) -> list[str]:
    """Every position reachable from `root` (itself included)."""
    game = SproutsGame()
    seen: set[str] = set()
    stack = [root]
    while stack:
        position = stack.pop()
        if position not in seen:
            seen.add(position)
            stack.extend(game.children(position))
    return sorted(seen)


def test_a_small_base_in_glop_order_imports(tmp_path: Path, s6: RctTable) -> None:
    positions = tree_of("0*5")  # its base in byte order broke the old cycle test
    spr = tmp_path / "small.spr"
    spelled = {p: respell(p, check=False) for p in positions}  # the import re-canonicalises
    assert sum(spelled[p] != p for p in positions) > len(positions) // 2
    spr.write_bytes(glop_base(s6, positions, spelled.__getitem__))
    lines = spr.read_text().splitlines()
    trees = [line.split(" ") for line in lines[1 : lines.index("[Position+Rct]")]]
    at = {tree[0]: n for n, tree in enumerate(trees)}
    assert any(at[kid] > n for n, tree in enumerate(trees) for kid in tree[1:])  # GLOP's order
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rct_positions"] == len(positions)
    pos_rct, rcts, verified = stored(tmp_path / "s")
    assert pos_rct == {p: s6.rct_id_of(p) for p in positions}
    assert set(pos_rct.values()) <= rcts
    assert verified == 0  # imported facts are claims


def test_a_cycle_in_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    spr = tmp_path / "cycle.spr"
    spr.write_text("[Rct+Rcts_children]\n0 \n1 0\n2 0 3-1-L\n3-1-L 2\n[Position+Rct]\n0*2 2\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "lead back to itself" in done.stderr
    assert not (tmp_path / "s").exists()


def test_a_label_given_two_different_lines_is_refused(tmp_path: Path) -> None:
    spr = tmp_path / "twice.spr"
    spr.write_text("[Rct+Rcts_children]\n0\n1 0\n2 0 1\n2 0\n[Position+Rct]\n0*2 2\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"))
    assert done.returncode == 2 and "line 5" in done.stderr, done.stderr
    assert not (tmp_path / "s").exists()


def test_the_whole_s6_base_agrees_with_the_shipped_table(tmp_path: Path, s6: RctTable) -> None:
    spr = tmp_path / "s6.spr"
    spr.write_bytes(glop_base(s6, list(s6.positions)))
    started = time.perf_counter()
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rct_positions"] == len(s6.positions) and report["conflicts"] == 0
    print(f"S6 GLOP base: {len(s6.positions)} positions in {time.perf_counter() - started:.1f} s")
    pos_rct, rcts, verified = stored(tmp_path / "s")
    assert pos_rct == {p: s6.rct_id_of(p) for p in s6.positions}
    assert {cid for cid, _ in s6.records()} <= rcts
    assert verified == 0
