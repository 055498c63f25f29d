"""Shared fixtures: the repository, the command-line binary the jobs are compared with."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli_binary() -> Path:
    """The `aeroplane` binary: $AEROPLANE, else the one `cargo build` / `cargo test` made."""
    if "AEROPLANE" in os.environ:
        return Path(os.environ["AEROPLANE"]).resolve()
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "aeroplane"
        if p.exists():
            return p
    raise RuntimeError(
        "no aeroplane binary: run `cargo build` at the repository root first (or set AEROPLANE=path)"
    )


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> Path:
    return cli_binary()


@pytest.fixture
def in_repo(monkeypatch):
    """Runs the test from the repository root (where `bots/` and `configs/` are)."""
    monkeypatch.chdir(REPO)
    return REPO


def run_cli(cli: Path, *args: str) -> subprocess.CompletedProcess:
    """Runs the command line from the repository root; fails the test on a non-zero exit."""
    p = subprocess.run([str(cli), *args], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"aeroplane {' '.join(args)} failed:\n{p.stderr}"
    return p


def same_folders(a: Path, b: Path) -> None:
    """Asserts two output folders hold the same files, byte for byte (report.html names its
    own folder: that path aside)."""
    names_a = sorted(p.name for p in a.iterdir())
    names_b = sorted(p.name for p in b.iterdir())
    assert names_a == names_b
    for name in names_a:
        bytes_a, bytes_b = (a / name).read_bytes(), (b / name).read_bytes()
        if name == "report.html":
            bytes_a = bytes_a.replace(str(a).encode(), str(b).encode())
        assert bytes_a == bytes_b, f"{name} differs"
