#!/usr/bin/env python3
"""Read a decision log (`aeroplane run --log-games FILE`) into (observation, action) pairs.

    python3 docs/read_log.py games.jsonl.zst            # a summary: games, decisions, actions
    python3 docs/read_log.py games.jsonl --pairs 3      # also print the first 3 pairs

As a module (copy it, or put docs/ on sys.path):

    from read_log import read_log, load_pairs
    header, lines = read_log("games.jsonl.zst")     # header dict, then every line as a dict
    pairs = load_pairs("games.jsonl.zst")            # [(observation, action), ...]

The schema is docs/LOG.md. A log is JSON lines: a header, then per game one line per decision
(the seat, the roll, the legal action ids, the action chosen, the rolls played without a
choice, and on key lines the position) and a result line. `read_log` gives every line as a
dict with the same keys for both schema versions (version 2 writes decision lines as arrays;
version 1, the first, as objects with the position on every line). `.jsonl.zst` logs are read
with the `zstandard` package when it is installed (`pip install zstandard`), else through the
`zstd` command; `.jsonl` logs need neither.

An observation is the engine's observation vector (170 floats, the seat to move first) when the
`aeroplane` Python package is installed (`pip install ./python`): the reader replays each game
from its rolls and actions with the engine, which gives the position of every decision and
checks each logged one. Without the package, the observation is the logged position parsed
into plain numbers (see `parse_position`), which needs a position on every decision line: a
version 1 log, or a version 2 log written with `--log-positions 1`.
"""

import io
import json
import shutil
import subprocess
import sys

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
VERSIONS = (1, 2)
DECISION_FIELDS = ["game", "seat", "bot", "roll", "legal", "action", "forced", "values", "position"]


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

    A decision line has an "action" (and "game", "seat", "bot", "roll", "legal" and "forced" as
    lists of numbers, "values" when the bot reported them, "position" on key lines); a game's
    result line has a "result" (its "winner", "ranks", "turns", ...) and the final "position".
    """
    text = _open_text(path)
    first = text.readline()
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != "aeroplane-decisions":
        raise ValueError(f"{path}: not an aeroplane decision log (its first line is not the header)")
    version = header.get("version")
    if version not in VERSIONS:
        raise ValueError(f"{path}: a decision log of version {version}; this reads versions 1 and 2")
    if version == 2 and header.get("decision_fields") != DECISION_FIELDS:
        raise ValueError(f"{path}: its header's decision_fields are not version 2's {DECISION_FIELDS}")

    def lines():
        for number, line in enumerate(text, start=2):
            if not line.endswith("\n"):
                raise ValueError(f"{path}, line {number}: cut short (the log was truncated)")
            try:
                value = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}, line {number}: not JSON ({e})") from None
            if version == 1:
                yield value
            elif isinstance(value, list) and 7 <= len(value) <= 9:
                yield _decision(value)
            elif isinstance(value, dict) and "game" in value:
                yield _result(value)
            else:
                raise ValueError(f"{path}, line {number}: not a decision or result line")

    return header, lines()


def _digits(text):
    return [int(c) for c in text]


def _decision(fields):
    """A version 2 decision line (an array) as the dict version 1 wrote."""
    line = dict(zip(DECISION_FIELDS, fields))
    line["legal"] = _digits(line["legal"])
    line["forced"] = _digits(line["forced"])
    if line.get("values") is None:
        line.pop("values", None)
    return line


def _result(value):
    """A version 2 result line as the dict version 1 wrote (without the counters but turns)."""
    line = {key: value[key] for key in ("game", "deal", "rotation", "bots", "position")}
    line["forced"] = _digits(value["forced"])
    line["result"] = {key: value[key] for key in ("winner", "ranks", "turns")}
    line["result"]["unfinished"] = value.get("unfinished", False)
    if "forfeit" in value:
        line["result"]["forfeit"] = value["forfeit"]
    return line


def games(lines):
    """Groups the lines of `read_log` by game: (decision lines, result line) per game."""
    decisions = []
    for line in lines:
        if "result" in line:
            yield decisions, line
            decisions = []
        else:
            decisions.append(line)
    if decisions:
        raise ValueError(f"the log ends inside game {decisions[-1]['game']}: no result line (truncated)")


def replay(header, decisions, result, aeroplane):
    """The engine's position at each decision of a game, replayed from its rolls and actions
    (each logged position checked against the engine's)."""
    rules = aeroplane.Rules(**header["rules"])
    game = aeroplane.Game(rules, header["players"])

    def forced(rolls, where):
        for roll in rolls:
            game.apply_roll(roll)
            if game.current_player() >= 0:
                legal = game.legal_actions()
                if len(legal) != 1:
                    raise ValueError(f"game {result['game']}, {where}: roll {roll} offers a choice")
                game.apply_action(legal[0])

    for k, line in enumerate(decisions):
        where = f"decision {k + 1}"
        forced(line["forced"], where)
        game.apply_roll(line["roll"])
        if "position" in line and str(game) != line["position"]:
            raise ValueError(
                f"game {line['game']}, {where}: the log's position {line['position']} is not the "
                f"engine's {game}"
            )
        yield line, game
        game.apply_action(line["action"])
    forced(result["forced"], "result")
    if str(game) != result["position"]:
        raise ValueError(f"game {result['game']}: the final position is not the engine's {game}")


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


def load_pairs(path, engine=True):
    """Every decision of the log as an (observation, action) pair, in game order.

    With `engine` and the `aeroplane` package installed, observations are the engine's
    observation vectors (every game replayed, every logged position checked); otherwise the
    parsed positions of `parse_position`, which need a position on every line.
    """
    header, lines = read_log(path)
    centre = 51 + header["rules"]["home_lane_cells"]
    aeroplane = None
    if engine:
        try:
            import aeroplane
        except ImportError:
            aeroplane = None
    pairs = []
    if aeroplane is not None:
        for decisions, result in games(lines):
            for line, game in replay(header, decisions, result, aeroplane):
                pairs.append((game.observation(), line["action"]))
        return pairs
    if header["version"] >= 2 and header.get("log_positions") != 1:
        raise ValueError(
            f"{path} keeps the position on one decision line in {header.get('log_positions')}: "
            "the others come from replaying the engine (install the aeroplane package: "
            "pip install ./python), or write the log with --log-positions 1"
        )
    for line in lines:
        if "action" in line:
            pairs.append((parse_position(line["position"], centre), line["action"]))
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
