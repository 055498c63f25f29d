"""The README's "From Python" section runs as written: its Python blocks, and its shell
commands that run Python (the `pip install` lines are what `.ci/run` itself runs)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from conftest import REPO


def section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("## From Python")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(), re.S)


def test_the_section_has_its_examples():
    assert len(blocks("python")) >= 5 and blocks("sh")


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_blocks_run(tmp_path, index):
    code = blocks("python")[index]
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr


def shell_commands() -> list[str]:
    commands = []
    for block in blocks("sh"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith("python ") and not command.startswith("python3 -m venv"):
                commands.append(command)
    return commands


@pytest.mark.parametrize("command", shell_commands())
def test_shell_commands_run(command):
    args = shlex.split(command)
    assert args[0] == "python"
    p = subprocess.run([sys.executable, *args[1:]], cwd=REPO, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    if args[1] == "-c":
        import aeroplane

        assert p.stdout.strip() == aeroplane.__version__
