"""The type stubs (aeroplane/_native.pyi) match the native module (mypy's stubtest), and the
package, the examples and the benchmark type-check against them."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def mypy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def test_stubs_match_the_native_module():
    p = mypy("mypy.stubtest", "aeroplane._native")
    assert p.returncode == 0, p.stdout + p.stderr


def test_package_and_examples_type_check():
    p = mypy("mypy", "--ignore-missing-imports", "--no-incremental", "--cache-dir=/dev/null",
             "python/aeroplane", "python/examples", "python/bench")
    assert p.returncode == 0, p.stdout + p.stderr
