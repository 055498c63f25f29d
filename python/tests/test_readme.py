"""The documentation's Python runs as written: the Python blocks of the README's "From Python"
section and of the guide's Python page (docs/guide/python.md), and the shell commands of those
and of the cookbook that run Python (the `pip install` lines are what `.ci/run` itself runs)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from conftest import REPO


def readme_section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("## From Python")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def guide_page() -> str:
    return (REPO / "docs" / "guide" / "python.md").read_text()


def cookbook_page() -> str:
    return (REPO / "docs" / "guide" / "cookbook.md").read_text()


SOURCES = {"README.md": readme_section, "docs/guide/python.md": guide_page}
# The cookbook repeats some of the guide's commands; they are run once.
SHELL_SOURCES = {**SOURCES, "docs/guide/cookbook.md": cookbook_page}


def blocks(language: str, source: str | None = None) -> list[str]:
    texts = [SOURCES[source]()] if source else [read() for read in SOURCES.values()]
    return [b for text in texts for b in re.findall(rf"```{language}\n(.*?)```", text, re.S)]


def test_the_pages_have_their_examples():
    assert len(blocks("python", "docs/guide/python.md")) >= 6 and blocks("sh", "docs/guide/python.md")
    assert blocks("python", "README.md") and blocks("sh", "README.md")


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_blocks_run(tmp_path, index):
    code = blocks("python")[index]
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr


def shell_commands() -> list[str]:
    commands = []
    for read in SHELL_SOURCES.values():
        for block in re.findall(r"```sh\n(.*?)```", read(), re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command.startswith("python ") and command not in commands:
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
