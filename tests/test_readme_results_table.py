"""The README's results table is what docs/gen_results_table.py makes of the shipped results
manifest, so the two never drift apart (rerun it with --write after the library changes)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from sproutsdb.ops.results import read_manifest, shipped_library

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "gen_results_table.py"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_results_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_block_is_what_the_generator_prints() -> None:
    gen = generator()
    readme = (ROOT / "README.md").read_text()
    assert readme.count(gen.BEGIN) == 1 and readme.count(gen.END) == 1
    assert gen.readme_block(readme) == gen.block(), "run docs/gen_results_table.py --write"
    printed = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert printed == gen.block() + "\n"
    check = subprocess.run([sys.executable, str(SCRIPT), "--check"], timeout=60, check=False)
    assert check.returncode == 0


def test_every_manifest_statement_is_in_the_table() -> None:
    gen = generator()
    entries = read_manifest(shipped_library())
    assert len(entries) > 50
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in gen.table_lines(entries)]
    assert all(len(row) == 10 for row in rows)  # two halves of five columns
    cells = {  # (position, play): (statement, facts)
        (row[i].split("`")[1], play): (row[i + shift], row[i + shift + 1])
        for row in rows[2:]
        for i in (0, 5)
        for play, shift in (("normal", 1), ("misere", 3))
        if row[i]
    }
    for entry in entries:
        statement, facts = cells[(entry.position, entry.play)]
        outcome = "L" if entry.statement.get("nimber", 1) == 0 else "W"
        outcome = entry.statement.get("outcome", outcome)
        assert statement.startswith(outcome), (entry.position, entry.play, statement)
        if "nimber" in entry.statement:
            assert f"nimber {entry.statement['nimber']})" in statement
        assert facts == f"{entry.facts:,}"
    positions = {position for position, _ in cells}
    assert len(positions) == len({entry.position for entry in entries})
    for row in rows[2:]:  # a Cram board says so: `Cram `4x7``, never a bare `4x7`
        for i in (0, 5):
            if row[i] and "x" in row[i].split("`")[1]:
                assert row[i].startswith("Cram `"), row[i]


def test_write_rewrites_only_the_block(tmp_path: Path) -> None:
    gen = generator()
    stale = f"# title\n\nbefore\n\n{gen.BEGIN}\n| old |\n{gen.END}\n\nafter\n"
    new = gen.rewritten(stale)
    assert new.startswith("# title\n\nbefore\n\n") and new.endswith("\n\nafter\n")
    assert gen.readme_block(new) == gen.block() and "| old |" not in new
