"""Generate the Python gRPC stubs of proto/sproutsdb/v1/*.proto into sproutsdb/_proto/.

Run at build time by setup.py (grpcio-tools is a build requirement, so `pip install -e .`
from a clean clone produces the stubs); by hand with `python sproutsdb/codegen.py`. The
generated files are never committed (.gitignore) and never edited.

protoc names the modules after the proto package (`from sproutsdb.v1 import x_pb2`); they
are installed as `sproutsdb._proto`, so that one import line is rewritten to a
relative one. This module imports nothing from sproutsdb: setup.py loads it by path
before the package is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = "proto"
PROTO_PACKAGE_DIR = Path("sproutsdb") / "v1"
OUT_DIR = Path("sproutsdb") / "_proto"

_INIT = '''"""Generated gRPC stubs of proto/sproutsdb/v1 (sproutsdb/codegen.py); do not edit."""
'''
_ABSOLUTE_IMPORT = re.compile(r"^from sproutsdb\.v1 import (\w+_pb2)", re.MULTILINE)


def proto_files(root: Path = ROOT) -> list[Path]:
    """The .proto sources, relative to the proto root (as protoc wants them)."""
    base = root / PROTO_ROOT
    return sorted(p.relative_to(base) for p in (base / PROTO_PACKAGE_DIR).glob("*.proto"))


def outputs(root: Path = ROOT) -> list[Path]:
    """The files generation produces."""
    out = root / OUT_DIR
    files = [out / "__init__.py"]
    for proto in proto_files(root):
        stem = proto.stem
        files += [out / f"{stem}_pb2.py", out / f"{stem}_pb2.pyi", out / f"{stem}_pb2_grpc.py"]
    return files


def up_to_date(root: Path = ROOT) -> bool:
    """True when every output exists and is newer than every proto and this generator."""
    sources = [root / PROTO_ROOT / p for p in proto_files(root)] + [Path(__file__).resolve()]
    newest = max(p.stat().st_mtime for p in sources)
    try:
        return all(o.stat().st_mtime >= newest for o in outputs(root))
    except FileNotFoundError:
        return False


def generate(root: Path = ROOT, *, force: bool = False, quiet: bool = False) -> Path:
    """(Re)generate the stubs into root/sproutsdb/_proto unless they are up to date."""
    out = root / OUT_DIR
    protos = proto_files(root)
    if not protos:
        raise RuntimeError(f"no .proto files under {root / PROTO_ROOT / PROTO_PACKAGE_DIR}")
    if not force and up_to_date(root):
        return out
    try:
        from grpc_tools import protoc
    except ImportError:
        raise RuntimeError(
            "generating the gRPC stubs needs grpcio-tools (a build requirement of sproutsdb): "
            "pip install grpcio-tools, or reinstall with `pip install -e .`"
        ) from None
    import importlib.resources

    well_known = str(importlib.resources.files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory(prefix="sproutsdb-protoc-") as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{root / PROTO_ROOT}",
            f"-I{well_known}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            *[str(p) for p in protos],
        ]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {', '.join(map(str, protos))}")
        generated = Path(tmp) / PROTO_PACKAGE_DIR
        staging = Path(tempfile.mkdtemp(prefix="._proto.", dir=out.parent))
        try:
            (staging / "__init__.py").write_text(_INIT)
            for path in sorted(generated.iterdir()):
                text = _ABSOLUTE_IMPORT.sub(r"from . import \1", path.read_text())
                (staging / path.name).write_text(text)
            staging.chmod(0o755)  # mkdtemp's 0700 would hide the stubs from other users
            if out.exists():
                shutil.rmtree(out)
            os.replace(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    if not quiet:
        print(f"sproutsdb: generated gRPC stubs in {out}", file=sys.stderr)
    return out


if __name__ == "__main__":
    generate(force="--force" in sys.argv[1:])
