"""Build of the compiled Sprouts core; everything else is declared in pyproject.toml.

`pip install -e .` compiles solver/sprouts/_core.c into sproutsdb.solver.sprouts._core.
The engine falls back to pure Python when the extension is missing (see game.py).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sproutsdb.solver.sprouts._core",
            sources=["solver/sprouts/_core.c"],
            extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra"],
        )
    ]
)
