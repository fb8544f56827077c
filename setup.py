"""Build steps that pyproject.toml cannot declare: the gRPC stubs and the compiled core.

Every build (wheel or editable) first generates the gRPC stubs of proto/sproutsdb/v1/*.proto
into sproutsdb/_proto/ (the package sproutsdb._proto) with grpcio-tools, a build
requirement; the stubs are never committed (sproutsdb/codegen.py). They are generated when
this file is run, before setuptools looks for the package directories.

`pip install .` compiles sproutsdb/solver/sprouts/_core.c into sproutsdb.solver.sprouts._core (and
sproutsdb/solver/misere/_assemble.c, the misère search's children of a node and df-pn's pass over them,
and sproutsdb/solver/cram/_cram.c, Cram's bitboards, canonical form, children and lands)
when a C compiler works.
Without one the install still succeeds, with the pure-Python engine (see game.py): the build
says so, and so does every `sproutsdb` command (about 50x slower).
"""

import importlib.util
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent

CORE = Extension(
    "sproutsdb.solver.sprouts._core",
    sources=[
        "sproutsdb/solver/sprouts/_core.c",
        "sproutsdb/solver/sprouts/core_arena.c",
        "sproutsdb/solver/sprouts/core_position.c",
        "sproutsdb/solver/sprouts/core_land.c",
        "sproutsdb/solver/sprouts/core_boundary.c",
        "sproutsdb/solver/sprouts/core_search.c",
        "sproutsdb/solver/sprouts/core_memo.c",
    ],
    depends=["sproutsdb/solver/sprouts/core.h"],
    extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra"],
    optional=True,  # a failed compile installs the pure-Python engine
)

# The misère search's children of a node from one land's moves, their move order and df-pn's
# pass over them (sproutsdb/solver/misere/assemble.py holds the Python definitions it is tested
# against and falls back to).
ASSEMBLE = Extension(
    "sproutsdb.solver.misere._assemble",
    sources=["sproutsdb/solver/misere/_assemble.c"],
    extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra"],
    optional=True,
)

# Cram's hot path on 64-bit grid masks: canonical form, a land's children, its lands
# (sproutsdb/solver/cram/canon.py and game.py hold the Python definitions it is tested against
# and falls back to).
CRAM = Extension(
    "sproutsdb.solver.cram._cram",
    sources=["sproutsdb/solver/cram/_cram.c"],
    extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra"],
    optional=True,
)

NO_CORE = (
    "sproutsdb: the C core could not be compiled ({error}); installing the pure-Python "
    "engine, which gives the same answers about 50x slower. Install a C compiler (e.g. "
    "gcc) and reinstall for full speed."
)
NO_ASSEMBLE = (
    "sproutsdb: the misère assembler could not be compiled ({error}); installing its "
    "Python definition, which gives the same answers with a slower misère search."
)
NO_CRAM = (
    "sproutsdb: the Cram core could not be compiled ({error}); installing the Python Cram "
    "engine, which gives the same answers more slowly."
)
# what a failed build of each says
NOTES = {CORE.name: NO_CORE, ASSEMBLE.name: NO_ASSEMBLE, CRAM.name: NO_CRAM}


class OptionalBuildExt(build_ext):
    """build_ext that installs without the compiled core when it cannot be built (no
    compiler, or a compiler that fails), saying so in one line."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - no compiler at all: setuptools' own errors
            print(NO_CORE.format(error=error), file=sys.stderr)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001 - CompileError, LinkError, exec errors
            print(NOTES.get(ext.name, NO_CORE).format(error=error), file=sys.stderr)


def generate_stubs() -> None:
    spec = importlib.util.spec_from_file_location(
        "_sproutsdb_codegen", HERE / "sproutsdb" / "codegen.py"
    )
    assert spec is not None and spec.loader is not None
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    codegen.generate(HERE)


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import it
    generate_stubs()
    setup(ext_modules=[CORE, ASSEMBLE, CRAM], cmdclass={"build_ext": OptionalBuildExt})
