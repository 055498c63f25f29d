#!/usr/bin/env python3
"""Replays games drawn at random from a decision log and checks every position.

    python3 scripts/replay_log_sample.py target/release/aeroplane DIR [N]

DIR is the output folder of a run with `--log-games` (its run.json names the log). For each of N
games (default 100) drawn with Python's `random.Random(25).sample`, `aeroplane replay --log LOG
--game G --json` must succeed (it replays the game from the log's rolls and choices and checks
every logged position against the engine), and its every roll, position before and after,
legal move list, choice and record must equal the seeded game's (`replay --manifest
DIR/run.json --game G --json`). Prints the time `replay --log` took (docs/LOG.md quotes it).
"""

import json
import random
import subprocess
import sys
import time
from pathlib import Path


def replay(binary, *args):
    out = subprocess.run([binary, "replay", *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"replay {' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip().splitlines()[0] + "\nusage: replay_log_sample.py AEROPLANE DIR [N]")
    binary, folder = argv[1], Path(argv[2])
    count = int(argv[3]) if len(argv) > 3 else 100
    manifest = json.loads((folder / "run.json").read_text())
    log = folder / manifest["log_games"]
    games = manifest["games_played"]
    picks = random.Random(25).sample(range(games), min(count, games))
    spent = 0.0
    rolls = 0
    for game in picks:
        start = time.perf_counter()
        logged = replay(binary, "--log", str(log), "--game", str(game))
        spent += time.perf_counter() - start
        seeded = replay(binary, "--manifest", str(folder / "run.json"), "--game", str(game))
        if logged["log"] != seeded["log"] or logged["record"] != seeded["record"]:
            sys.exit(f"game {game}: the log's replay is not the seeded game's")
        rolls += len(logged["log"])
    print(
        f"{log}: {len(picks)} games ({min(picks)}..{max(picks)}), {rolls} rolls: every position "
        f"equals the seeded game's; replay --log took {spent:.2f} s ({spent / len(picks) * 1000:.0f} ms per game)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
