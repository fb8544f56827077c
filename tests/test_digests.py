"""sproutsdb.digests gives hashlib's digests, without importing hashlib where CPython's
builtin modules are present."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from sproutsdb.digests import blake2b, sha256_hex


def test_the_digests_are_hashlibs() -> None:
    for data in (b"", b"0*12", bytes(range(256)) * 9):
        for size in (16, 20, 32):
            assert blake2b(data, size) == hashlib.blake2b(data, digest_size=size).digest()
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_hashlib_is_not_imported() -> None:
    program = (
        "import sys\n"
        "from sproutsdb.digests import blake2b, sha256_hex\n"
        "blake2b(b'x', 20), sha256_hex(b'x')\n"
        "print('hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
