#!/usr/bin/env python3
"""A random bot over the aeroplane line protocol (docs/PROTOCOL.md): uniform among the legal
moves, from a generator seeded by each `new_game`, so its games are reproducible.

Python standard library only.
"""

import json
import random
import sys

PROTOCOL = 1


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "choose":
            moves = msg["moves"]
            send({"type": "move", "id": moves[rng.randrange(len(moves))]["id"]})
        elif kind == "new_game":
            rng = random.Random(msg["seed"])
        elif kind == "hello":
            if msg["protocol"] != PROTOCOL:
                send({"type": "error", "message": "random_bot.py speaks protocol %d only" % PROTOCOL})
                return
            send({"type": "ready", "protocol": PROTOCOL, "name": "random_bot.py", "author": "aeroplane examples"})
        elif kind == "ping":
            send({"type": "pong", "id": msg["id"]})
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
