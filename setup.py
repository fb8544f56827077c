"""Build steps that pyproject.toml cannot declare: the gRPC stubs and the compiled core.

Every build (wheel or editable) first generates the gRPC stubs of proto/sproutsdb/v1/*.proto
into sproutsdb/_proto/ (the package sproutsdb._proto) with grpcio-tools, a build
requirement; the stubs are never committed (sproutsdb/codegen.py). They are generated when
this file is loaded, before setuptools looks for the package directories.

`pip install -e .` compiles solver/sprouts/_core.c into sproutsdb.solver.sprouts._core.
The engine falls back to pure Python when the extension is missing (see game.py).
"""

import importlib.util
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent


def generate_stubs() -> None:
    spec = importlib.util.spec_from_file_location(
        "_sproutsdb_codegen", HERE / "sproutsdb" / "codegen.py"
    )
    assert spec is not None and spec.loader is not None
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    codegen.generate(HERE)


generate_stubs()

setup(
    ext_modules=[
        Extension(
            "sproutsdb.solver.sprouts._core",
            sources=[
                "solver/sprouts/_core.c",
                "solver/sprouts/core_arena.c",
                "solver/sprouts/core_position.c",
                "solver/sprouts/core_land.c",
                "solver/sprouts/core_boundary.c",
                "solver/sprouts/core_search.c",
            ],
            depends=["solver/sprouts/core.h"],
            extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra"],
        )
    ],
)
