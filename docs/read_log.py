#!/usr/bin/env python3
"""Read a decision log (`aeroplane run --log-games FILE`) into (observation, action) pairs.

    python3 docs/read_log.py games.jsonl.zst            # a summary: games, decisions, actions
    python3 docs/read_log.py games.jsonl --pairs 3      # also print the first 3 pairs

As a module (copy it, or put docs/ on sys.path):

    from read_log import read_log, load_pairs
    header, lines = read_log("games.jsonl.zst")     # header dict, then every line as a dict
    pairs = load_pairs("games.jsonl.zst")            # [(observation, action), ...]

The schema is docs/LOG.md. A log is JSON lines: a header, then per game one line per decision
(the position in the position notation, the legal action ids, the action chosen, ...) and a
result line. `.jsonl.zst` logs are read with the `zstandard` package when it is installed
(`pip install zstandard`), else through the `zstd` command; `.jsonl` logs need neither.

An observation is the engine's observation vector (170 floats, the seat to move first) when the
`aeroplane` Python package is installed (`pip install ./python`), and otherwise the position
parsed from its notation into plain numbers (see `parse_position`). Only the standard library
is needed for the second.
"""

import io
import json
import shutil
import subprocess
import sys

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def _open_text(path):
    """The log's lines as text, decompressing a zstd log (every frame: one per game)."""
    raw = open(path, "rb")
    magic = raw.read(4)
    raw.seek(0)
    if magic != ZSTD_MAGIC:
        return io.TextIOWrapper(raw, encoding="utf-8")
    try:
        import zstandard
    except ImportError:
        zstandard = None
    if zstandard is not None:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        return io.TextIOWrapper(reader, encoding="utf-8")
    if shutil.which("zstd") is None:
        raise RuntimeError(
            f"{path} is zstd-compressed: install the zstandard package (pip install zstandard) "
            "or the zstd command"
        )
    raw.close()
    proc = subprocess.Popen(["zstd", "-dc", "--", path], stdout=subprocess.PIPE)
    return io.TextIOWrapper(proc.stdout, encoding="utf-8")


def read_log(path):
    """(header, lines): the header as a dict and an iterator over the other lines as dicts.

    A decision line has an "action"; a game's result line has a "result".
    """
    text = _open_text(path)
    first = text.readline()
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != "aeroplane-decisions":
        raise ValueError(f"{path}: not an aeroplane decision log (its first line is not the header)")
    if header.get("version") != 1:
        raise ValueError(f"{path}: a decision log of version {header.get('version')}; this reads 1")

    def lines():
        for number, line in enumerate(text, start=2):
            if not line.endswith("\n"):
                raise ValueError(f"{path}, line {number}: cut short (the log was truncated)")
            try:
                yield json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}, line {number}: not JSON ({e})") from None

    return header, lines()


def parse_position(notation, centre):
    """The position notation as plain numbers (docs/RULES.md, "Positions in writing").

    Returns a dict: `steps` (per seat a list of steps, -1 for the hangar, None for a seat not
    in play), `progress` (each step over the centre's step: 0 in the hangar or on the take-off
    cell, 1 home), `to_move`, `roll` (None when the die is to be rolled), `sixes`,
    `moved_this_turn` and `moved_last` (plane numbers), `finished` (seats in finishing order)
    and `turns`.
    """
    fields = notation.split(" ")
    planes, to_move, roll, sixes, moved, last, finished, turns = fields
    steps = []
    for seat in planes.split("/"):
        if seat == "-":
            steps.append(None)
        else:
            steps.append([-1 if s == "h" else int(s) for s in seat.split(",")])
    return {
        "steps": steps,
        "progress": [
            None if s is None else [max(x, 0) / centre for x in s] for s in steps
        ],
        "to_move": int(to_move),
        "roll": None if roll == "-" else int(roll),
        "sixes": int(sixes),
        "moved_this_turn": [] if moved == "-" else [int(p) for p in moved],
        "moved_last": [] if last == "-" else [int(p) for p in last],
        "finished": [] if finished == "-" else [int(s) for s in finished.split(",")],
        "turns": int(turns),
    }


def _engine_observer(header):
    """A function from a decision line to the engine's observation, if the package is here."""
    try:
        import aeroplane
    except ImportError:
        return None
    rules = aeroplane.Rules(**header["rules"])

    def observe(line):
        game = aeroplane.Game.from_notation(line["position"], rules)
        return game.observation()

    return observe


def load_pairs(path, engine=True):
    """Every decision of the log as an (observation, action) pair, in game order.

    With `engine` and the `aeroplane` package installed, observations are the engine's
    observation vectors; otherwise the parsed positions of `parse_position`.
    """
    header, lines = read_log(path)
    centre = 51 + header["rules"]["home_lane_cells"]
    observe = _engine_observer(header) if engine else None
    pairs = []
    for line in lines:
        if "action" not in line:
            continue
        if observe is not None:
            observation = observe(line)
        else:
            observation = parse_position(line["position"], centre)
        pairs.append((observation, line["action"]))
    return pairs


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0])
        print("usage: read_log.py LOG [--pairs N] [--plain]")
        return 0 if len(argv) > 1 else 2
    path = argv[1]
    show = int(argv[argv.index("--pairs") + 1]) if "--pairs" in argv else 0
    try:
        return summarise(path, show, engine="--plain" not in argv)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def summarise(path, show, engine):
    """Prints what the log holds, and its first `show` pairs."""
    header, lines = read_log(path)
    games = decisions = 0
    actions = [0] * 8
    for line in lines:
        if "result" in line:
            games += 1
        elif "action" in line:
            decisions += 1
            actions[line["action"]] += 1
    bots = ", ".join(b["name"] for b in header["bots"])
    print(f"{path}: {games} games, {decisions} decisions ({bots}; seed {header['seed']})")
    print("actions chosen, by id 0..7:", " ".join(str(n) for n in actions))
    if show:
        pairs = load_pairs(path, engine=engine)
        for observation, action in pairs[:show]:
            if isinstance(observation, dict):
                shown = json.dumps(observation["steps"])
            else:
                shown = f"{len(observation)} floats"
            print(f"action {action}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
