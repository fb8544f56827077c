"""How far a position travels from the `solve` command to the store, and how often it climbs back
up the layers on the way.

Runs `sproutsdb solve ROOT --store TMP` in this process under a profile hook, keeps every call
stack that reaches a function of the LMDB store, and counts the distinct caller → callee steps
between package functions on those stacks: the files they pass through, and the steps whose
callee sits in a higher layer than its caller (a library verb calling back into the command
folder, the store calling the service, ...). Also prints the import graph by folder and the ten
largest modules and classes. `python bench/layer_walk.py [--root 0*5] [--json]`.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import itertools
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_imports import all_edges, folder_of

# Layers from the floor up; a step whose callee ranks higher than its caller climbs back up.
LAYER_RANK = {"solver": 0, "sproutsdb": 1, "store": 2, "ops": 3, "server": 4, "client": 4}
LAYER_RANK["tools"] = 5
PACKAGE = ROOT / "sproutsdb"


def layer_of(path: str) -> str:
    """The layer of a source file of the package, by its folder."""
    rel = Path(path).absolute().relative_to(PACKAGE)
    head = rel.parts[0] if len(rel.parts) > 1 else ""
    if head in ("solver", "store", "ops", "server", "client", "tools"):
        return head
    return "sproutsdb"


def _package_file(path: str) -> bool:
    try:
        Path(path).absolute().relative_to(PACKAGE)
    except ValueError:
        return False
    return True


def _is_store(path: str) -> bool:
    rel = Path(path).absolute().relative_to(PACKAGE).as_posix()
    return rel.startswith(("store/", "server/store/"))


def _climbs(caller: str, callee: str) -> bool:
    """A step into a higher layer; the solver's calls of a store's methods go through its
    ProofStore port (the store implements the solver's interface) and are not climbs."""
    low, high = (layer_of(str(PACKAGE / name.split(":")[0])) for name in (caller, callee))
    if low == "solver" and _is_store(str(PACKAGE / callee.split(":")[0])):
        return False
    return LAYER_RANK[high] > LAYER_RANK[low]


def walk(root: str) -> dict[str, Any]:
    """The steps from `solve` to the store, their files and their climbs back up."""
    from sproutsdb.tools.cli import main

    steps: set[tuple[str, str]] = set()

    def frame_name(frame: FrameType) -> str:
        code = frame.f_code
        rel = Path(code.co_filename).absolute().relative_to(PACKAGE).as_posix()
        return f"{rel}:{code.co_qualname}"

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call" or not _package_file(frame.f_code.co_filename):
            return
        if not _is_store(frame.f_code.co_filename):
            return
        chain: list[str] = []
        cursor: FrameType | None = frame
        while cursor is not None:
            if _package_file(cursor.f_code.co_filename):
                chain.append(frame_name(cursor))
            cursor = cursor.f_back
        chain.reverse()
        # keep the part below the command's own function: cli's dispatch is not the walk
        for caller, callee in itertools.pairwise(chain):
            if caller != callee:
                steps.add((caller, callee))

    with tempfile.TemporaryDirectory() as tmp:
        sys.setprofile(hook)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                main(["solve", root, "--store", str(Path(tmp) / "store"), "--json"])
        except SystemExit:
            pass
        finally:
            sys.setprofile(None)
    files = sorted({name.split(":")[0] for step in steps for name in step})
    back_up = sorted(step for step in steps if _climbs(*step))
    return {
        "root": root,
        "steps": len(steps),
        "files": len(files),
        "steps_back_up": len(back_up),
        "back_up": [f"{a} -> {b}" for a, b in back_up],
        "file_list": files,
    }


def import_graph() -> dict[str, int]:
    """Edges between folders of the package (tests/ and bench/ left out), with their counts."""
    counts: Counter[str] = Counter()
    for edge in all_edges():
        src, dst = folder_of(edge.source), folder_of(edge.target)
        if src in ("tests", "bench") or not edge.target.startswith("sproutsdb") or src == dst:
            continue
        counts[f"{src} -> {dst}"] += 1
    return dict(sorted(counts.items()))


def largest(limit: int = 10) -> dict[str, list[tuple[str, int]]]:
    """The largest modules (lines) and classes (lines, methods) of the package."""
    modules: list[tuple[str, int]] = []
    classes: list[tuple[str, int]] = []
    folders = [PACKAGE, *(ROOT / name for name in ("solver", "server", "client", "tools"))]
    real = [folder for folder in folders if folder.is_dir() and not folder.is_symlink()]
    paths = (path for folder in real for path in sorted(folder.rglob("*.py")))
    for path in paths:
        if "_proto" in path.parts or any(p.is_symlink() for p in path.parents):
            continue
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        modules.append((rel, text.count("\n")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                methods = sum(isinstance(n, ast.FunctionDef) for n in node.body)
                classes.append(
                    (f"{rel}:{node.name} ({methods} methods)", node.end_lineno - node.lineno + 1)
                )
    modules.sort(key=lambda item: -item[1])
    classes.sort(key=lambda item: -item[1])
    return {"modules": modules[:limit], "classes": classes[:limit]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="0*5", help="the position solved (default: 0*5)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=ROOT / "bench" / "baselines" / "layer-walk-before-71.json",
        help="a saved --json run to print beside this one (default: the layout before #71)",
    )
    args = parser.parse_args()
    report = {"walk": walk(args.root), "imports": import_graph(), **largest()}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    w = report["walk"]
    print(
        f"solve {w['root']} -> store: {w['steps']} steps through {w['files']} files, "
        f"{w['steps_back_up']} back up the layers"
    )
    if args.baseline.exists():
        b = json.loads(args.baseline.read_text(encoding="utf-8"))["walk"]
        print(
            f"  baseline ({args.baseline.name}): {b['steps']} steps through {b['files']} "
            f"files, {b['steps_back_up']} back up"
        )
    for line in w["back_up"]:
        print(f"  up: {line}")
    print("import graph by folder:")
    for edge, count in report["imports"].items():
        print(f"  {edge}: {count}")
    print("largest modules:")
    for name, lines in report["modules"]:
        print(f"  {lines:5d}  {name}")
    print("largest classes:")
    for name, lines in report["classes"]:
        print(f"  {lines:5d}  {name}")


if __name__ == "__main__":
    main()
