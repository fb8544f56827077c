"""The import rules of the layout, read from the source with `ast` (nothing is imported).

Dependencies run one way: tools → client, server → solver (docs/architecture.md,
"Dependency rules"). `python tests/test_imports.py` prints the graph between the top-level
folders with edge counts and every edge that breaks a rule.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The package's sub-packages that are layers of their own (each module is read once, under its
# one path in sproutsdb/: the package has no symbolic links).
PACKAGES = {
    "solver": "sproutsdb.solver",
    "server": "sproutsdb.server",
    "client": "sproutsdb.client",
    "tools": "sproutsdb.tools",
    "sproutsdb": "sproutsdb",
}
SCANNED = ["sproutsdb", "bench", "tests"]
# Two layers of their own inside the root package: the store (sproutsdb/store/, the LMDB floor
# every door stands on) and the library (sproutsdb/ops/, the verbs every door calls). The
# library may import the store and solver/, never a door (server/, tools/); the store may
# import solver/ and the root modules only.
LAYERS = {"ops": "sproutsdb.ops", "store": "sproutsdb.store"}
SKIPPED = {"_proto"}  # generated gRPC stubs

# Which folder may not import which (a name of a folder, or the top-level third-party module).
FORBIDDEN = {
    "solver": {"server", "client", "tools", "ops", "grpc", "lmdb"},
    "server": {"tools", "client"},
    "client": {"tools", "server"},
    "sproutsdb": {"server", "client", "tools", "ops", "store"},
    "store": {"server", "client", "tools", "ops"},
    "ops": {"tools", "server"},
}
# The root module `sproutsdb/__main__.py` is the command's entry point and may call tools/.
ENTRY_POINTS = {"sproutsdb.__main__"}

# A game's engine is named only by the games registry (sproutsdb/games.py): every layer above
# solver/ asks the registry for its game. solver/ itself, bench/ and tests/ may name it.
GAME_PACKAGES = {"sproutsdb.solver.sprouts": "sproutsdb.games"}
GAME_CLIENTS = {"server", "client", "tools", "sproutsdb", "ops", "store"}

# The commands (tools/cmd_*) are the command line's: only its entry point imports them; every
# other door calls the library verbs they call.
COMMAND_MODULES = "sproutsdb.tools.cmd_"
COMMAND_ENTRY = {"sproutsdb.tools.cli", "sproutsdb.__main__"}

# A store is opened by one verb (sproutsdb.ops.stores.open_proof_store): in tools/, only the
# command line's store options (tools/stores.py) name a store class or an opener of its own.
STORE_OPENERS = {
    ("sproutsdb.store", "LmdbProofStore"),
    ("sproutsdb.store", "open_store"),
    ("sproutsdb.store.lmdb_store", "LmdbProofStore"),
    ("sproutsdb.store.lmdb_store", "open_store"),
    ("sproutsdb.client", "RemoteProofStore"),
    ("sproutsdb.client.remote", "RemoteProofStore"),
}
STORE_DOORS = {"tools"}
STORE_OPENER_MODULES = {"sproutsdb.tools.stores"}

# A private module may be imported only by the public module that wraps it (`wrapper`).
WRAPPED = {
    "sproutsdb.solver.sprouts._core": {"sproutsdb.solver.sprouts.game"},
    "sproutsdb._proto": {"sproutsdb.wire"},
}


@dataclass(frozen=True)
class Edge:
    """One import: `source` (a module) names `target` (a module) at `line`."""

    source: str
    path: str
    line: int
    target: str
    name: str | None = None  # the imported name or attribute read (`from target import name`)


def folder_of(module: str) -> str:
    """The top-level folder (or third-party root) of a dotted module name."""
    parts = module.split(".")
    if parts[0] != "sproutsdb":
        return parts[0]
    if len(parts) > 1 and parts[1] in PACKAGES and parts[1] != "sproutsdb":
        return parts[1]
    for layer, package in LAYERS.items():
        if module == package or module.startswith(package + "."):
            return layer
    return "sproutsdb"


def module_files() -> dict[str, Path]:
    """Every scanned source file by module name (bench/ and tests/ by bare file name)."""
    found: dict[str, Path] = {}
    for folder in SCANNED:
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base)
            if SKIPPED & set(rel.parts) or "fixtures" in rel.parts:
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            prefix = "sproutsdb" if folder == "sproutsdb" else folder
            found[".".join([prefix, *parts])] = path
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _resolve(known: set[str], module: str, name: str) -> tuple[str, str | None]:
    """`from module import name`: the module meant and the name read in it (None if a module)."""
    sub = f"{module}.{name}"
    if sub in known or sub in WRAPPED:
        return sub, None
    return module, name


def edges_of(module: str, path: Path, known: set[str]) -> list[Edge]:
    """The imports of one file, its reads of another module's private attributes included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    rel = str(path.relative_to(ROOT))
    found: list[Edge] = []
    aliases: dict[str, str] = {}  # local name → module it is bound to
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Edge(module, rel, node.lineno, alias.name))
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                target, name = _resolve(known, base, alias.name)
                found.append(Edge(module, rel, node.lineno, target, name))
                # a module, or a class/function of one: `Name._x` reads another module's _x
                aliases[alias.asname or alias.name] = target
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _is_private(node.attr)
        ):
            found.append(Edge(module, rel, node.lineno, aliases[node.value.id], node.attr))
    return found


def all_edges() -> list[Edge]:
    files = module_files()
    known = set(files)
    return [edge for module, path in files.items() for edge in edges_of(module, path, known)]


def _own(edge: Edge) -> bool:
    """The module itself, or its own package's private parts (a package reads its own)."""
    return edge.target == edge.source or edge.source.startswith(edge.target + ".")


def violations(edges: list[Edge]) -> list[str]:
    """Every edge that breaks a rule, one line each. tests/ may read private names (white-box
    tests of the module under test); every other folder may not."""
    bad: dict[str, None] = {}  # ordered, one line per statement
    for edge in edges:
        where = f"{edge.path}:{edge.line}: {edge.source} imports {edge.target}"
        src, dst = folder_of(edge.source), folder_of(edge.target)
        if dst in FORBIDDEN.get(src, ()) and edge.source not in ENTRY_POINTS:
            bad[f"{where} ({src} → {dst} is not allowed)"] = None
        if not edge.target.startswith("sproutsdb") or edge.source.startswith("tests."):
            continue
        if edge.target in WRAPPED or any(edge.target.startswith(w + ".") for w in WRAPPED):
            wrapped = next(
                w for w in WRAPPED if edge.target == w or edge.target.startswith(w + ".")
            )
            if edge.source not in WRAPPED[wrapped]:
                bad[f"{where} (only {', '.join(sorted(WRAPPED[wrapped]))} may)"] = None
            continue
        private_module = any(_is_private(p) for p in edge.target.split("."))
        if ((edge.name and _is_private(edge.name)) or private_module) and not _own(edge):
            name = f".{edge.name}" if edge.name else ""
            bad[f"{where}{name} (a private name of another module)"] = None
    return list(bad)


def game_namers(edges: list[Edge]) -> list[str]:
    """Imports of a game's engine from above solver/ other than the registry's."""
    bad: dict[str, None] = {}
    for edge in edges:
        for package, registry in GAME_PACKAGES.items():
            names = edge.target == package or edge.target.startswith(package + ".")
            if names and folder_of(edge.source) in GAME_CLIENTS and edge.source != registry:
                bad[f"{edge.path}:{edge.line}: {edge.source} imports {edge.target}"] = None
    return list(bad)


def command_importers(edges: list[Edge]) -> list[str]:
    """Imports of a `tools/cmd_*` module by anything but the command line's entry (printed by
    `python tests/test_imports.py`; `LIBRARY_COMMANDS` have none left)."""
    bad: dict[str, None] = {}
    for edge in edges:
        command = edge.target.startswith(COMMAND_MODULES) and edge.target != edge.source
        if command and edge.source not in COMMAND_ENTRY:
            bad[f"{edge.path}:{edge.line}: {edge.source} imports {edge.target}"] = None
    return list(bad)


def store_openers(edges: list[Edge]) -> list[str]:
    """Imports of a store class or opener by a module of tools/ other than tools/stores.py
    (the doors open stores through the store verb)."""
    bad: dict[str, None] = {}
    for edge in edges:
        opener = (edge.target, edge.name) in STORE_OPENERS
        door = folder_of(edge.source) in STORE_DOORS
        if opener and door and edge.source not in STORE_OPENER_MODULES:
            bad[f"{edge.path}:{edge.line}: {edge.source} imports {edge.target}.{edge.name}"] = None
    return list(bad)


def tool_cycles(edges: list[Edge]) -> list[list[str]]:
    """Import cycles among the modules of tools/ (strongly connected parts of 2+ modules)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        within_tools = folder_of(edge.source) == "tools" and folder_of(edge.target) == "tools"
        if within_tools and edge.target not in (edge.source, "sproutsdb.tools"):
            graph.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; tools/ is small, recursion is fine
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part: list[str] = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def folder_graph(edges: list[Edge]) -> Counter[tuple[str, str]]:
    """How many import statements of each folder name each other folder of the project."""
    ours = {*PACKAGES, *LAYERS, "bench", "tests"}
    statements = {
        (folder_of(e.source), e.source, e.line, folder_of(e.target))
        for e in edges
        if e.target.startswith("sproutsdb")
    }
    return Counter((src, dst) for src, _module, _line, dst in statements if dst in ours)


def test_dependencies_run_one_way() -> None:
    assert [v for v in violations(all_edges()) if "not allowed" in v] == []


def test_no_module_imports_another_modules_private_names() -> None:
    assert [v for v in violations(all_edges()) if "not allowed" not in v] == []


def test_only_the_games_registry_names_a_game() -> None:
    assert game_namers(all_edges()) == []


def test_only_the_command_line_imports_a_command() -> None:
    """bench/, tests/ and the other doors call the library (sproutsdb.ops) and the shared
    helpers of tools/cli.py, never a `tools/cmd_*` module."""
    assert command_importers(all_edges()) == []


def test_the_commands_open_stores_through_the_store_verb() -> None:
    """tools/ opens a local or remote store only through tools/stores.py, which calls
    sproutsdb.ops.stores (one ProofStore either way)."""
    edges = all_edges()
    assert store_openers(edges) == []
    assert any(
        e.source == "sproutsdb.tools.stores" and e.target == "sproutsdb.ops.stores" for e in edges
    )


def test_the_library_layer_is_scanned_as_a_layer() -> None:
    """A guard for the rule above and the ops rule: the verbs are found under ops/."""
    edges = all_edges()
    assert any(e.source == "sproutsdb.ops.check" for e in edges)
    assert folder_of("sproutsdb.ops.check") == "ops" and folder_of("sproutsdb.games") == "sproutsdb"
    assert folder_graph(edges)[("tools", "ops")] > 0


def test_the_package_has_no_symbolic_links() -> None:
    """Every module has one path: sproutsdb/ holds real folders and files, never a link to a
    folder outside it (two paths per module confuse mypy, coverage and tracebacks)."""
    package = ROOT / "sproutsdb"
    links = [p.relative_to(ROOT).as_posix() for p in package.rglob("*") if p.is_symlink()]
    assert links == []


def test_the_doors_stand_on_the_library_never_the_reverse() -> None:
    """server/ (the gRPC and web doors) imports the library, and neither the library nor the
    store imports server/: the floor is below every door."""
    graph = folder_graph(all_edges())
    assert graph[("server", "ops")] > 0 and graph[("ops", "store")] > 0
    assert graph[("ops", "server")] == 0 and graph[("store", "server")] == 0


# tools/ is the command line only: its entry, one module a command group, and the helpers of
# its flags; parallel and Ray solving, stores and seeding are the library's (sproutsdb.ops).
TOOLS_FLAG_HELPERS = {"__init__.py", "cli.py", "game_option.py", "server_options.py", "stores.py"}


def test_tools_holds_only_the_command_line() -> None:
    tools = ROOT / "sproutsdb" / "tools"
    others = sorted(
        path.name
        for path in tools.glob("*.py")
        if not path.name.startswith("cmd_") and path.name not in TOOLS_FLAG_HELPERS
    )
    assert others == []
    assert not [p for p in tools.iterdir() if p.is_dir() and p.name != "__pycache__"]


def test_no_import_cycles_in_tools() -> None:
    assert tool_cycles(all_edges()) == []


def test_the_check_sees_every_package() -> None:
    """A guard for the check itself: an empty scan would pass every rule above."""
    graph = folder_graph(all_edges())
    assert graph[("server", "solver")] > 0 and graph[("tools", "client")] > 0


def main() -> int:
    edges = all_edges()
    graph = folder_graph(edges)
    order = ["solver", "sproutsdb", "store", "ops", "server", "client", "tools", "bench", "tests"]
    print("importer \\ imported " + " ".join(f"{o:>9}" for o in order))
    for src in order:
        print(f"{src:<19} " + " ".join(f"{graph[(src, dst)] or '':>9}" for dst in order))
    print()
    for line in violations(edges):
        print(line)
    for cycle in tool_cycles(edges):
        print("cycle in tools/:", " ↔ ".join(cycle))
    for line in game_namers(edges):
        print(line, "(only the games registry names a game's engine)")
    for line in command_importers(edges):
        print(line, "(only the command line imports a command)")
    for line in store_openers(edges):
        print(line, "(tools/ opens stores through tools/stores.py and the store verb)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
