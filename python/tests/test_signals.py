"""Ctrl-C during a long job: a real SIGINT to a real Python process running aeroplane.run stops
the job (its folder says `interrupted`, ready for `aeroplane resume`) and raises
KeyboardInterrupt; other Python threads run while the job plays (the GIL is released)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent(
    """
    import os, signal, sys, threading
    import aeroplane

    # Python leaves SIGINT ignored when it starts with it ignored (as a job started in the
    # background by a non-interactive shell does): give the child Ctrl-C's usual handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    out, mode = sys.argv[1], sys.argv[2]
    counter = [0]
    running = [True]

    def spin():
        while running[0]:
            counter[0] += 1

    threading.Thread(target=spin, daemon=True).start()

    def say_ready():
        print("ready", counter[0], flush=True)

    class Ready:
        # A Python bot that says when the job is playing (copies share the class attribute).
        name = "ready"
        said = False

        def choose(self, game):
            if not Ready.said:
                Ready.said = True
                say_ready()
            return game.legal_actions()[-1]

    def watch_checkpoint():
        # The job is playing once its checkpoint has grown past its header.
        path = os.path.join(out, "checkpoint")
        first = None
        while True:
            try:
                size = os.path.getsize(path)
            except OSError:
                continue
            if first is None:
                first = size
            elif size > first:
                say_ready()
                return

    release = threading.Event()

    class Stuck:
        # A Python bot whose first move waits until the caller has had its KeyboardInterrupt:
        # a game in flight that cannot end within the grace period, whatever the machine's speed.
        name = "stuck"
        said = False

        def choose(self, game):
            if not Stuck.said:
                Stuck.said = True
                say_ready()
                release.wait()
            return game.legal_actions()[-1]

    if mode == "python-bot":
        bots = [Ready(), "random"]
    elif mode == "slow-games":
        bots = [Stuck(), "random"]
    else:
        bots = "greedy,random,random,random"
        threading.Thread(target=watch_checkpoint, daemon=True).start()
    before = counter[0]
    try:
        aeroplane.run(bots, games=50_000_000, out=out, chunk_size=64)
    except KeyboardInterrupt as e:
        running[0] = False
        release.set()
        print("KeyboardInterrupt", counter[0] - before, json.dumps(getattr(e, "__notes__", [])), flush=True)
        sys.exit(3)
    print("finished", flush=True)
    """
).replace("import os, signal, sys, threading", "import json, os, signal, sys, threading")


@pytest.mark.parametrize("mode", ["python-bot", "rust-bots", "slow-games"])
def test_sigint_interrupts_a_long_run(tmp_path, mode):
    """With a game in flight that cannot end in the grace period (its bot waits for the
    KeyboardInterrupt), KeyboardInterrupt comes first: the game finishes in the background, and
    the interpreter waits for it at exit, so the folder is still marked `interrupted`."""
    out = tmp_path / "run"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(out), mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        ready = child.stdout.readline()
        assert ready.startswith("ready"), ready + child.stderr.read()
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 3, stdout + stderr
    word, spins, notes = stdout.split(" ", 2)
    assert word == "KeyboardInterrupt"
    assert int(spins) > 1000, "another Python thread ran while the job played"
    assert "aeroplane resume" in notes and str(out) in notes
    assert ("finish in the background" in notes) == (mode == "slow-games"), notes
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted"
    # The job stopped long before its end; every game it finished is counted.
    assert manifest["games_played"] < 50_000_000
    if mode == "rust-bots":
        assert manifest["games_played"] > 0
    assert (out / "checkpoint").exists() and not (out / "summary.json").exists()
