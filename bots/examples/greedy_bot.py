#!/usr/bin/env python3
"""The greedy bot of aeroplane, as a bot program over the line protocol (docs/PROTOCOL.md).

Python standard library only. Plays exactly like the built-in `greedy` bot (src/bots/greedy.rs):
a capture first, then a jump or the flight, then a launch, then any other move; within a
category the plane furthest along (the largest starting step); flying before staying.
"""

import json
import sys

PROTOCOL = 1


def key(move):
    """Smaller is better: (category, furthest plane first, fly before stay)."""
    if move["captures"]:
        category = 0
    elif move["jump"] or move["flight"]:
        category = 1
    elif move["launch"]:
        category = 2
    else:
        category = 3
    return (category, -move["from"], move["stay"])


def main():
    out = sys.stdout
    loads = json.loads
    for line in sys.stdin:
        msg = loads(line)
        kind = msg["type"]
        if kind == "choose":
            best = min(msg["moves"], key=key)
            # Move ids are notation (launch, 14, 18:fly): no characters to escape.
            out.write('{"type":"move","id":"%s"}\n' % best["id"])
            out.flush()
        elif kind == "hello":
            if msg["protocol"] != PROTOCOL:
                out.write(json.dumps({"type": "error", "message": "greedy_bot.py speaks protocol %d only" % PROTOCOL}) + "\n")
                out.flush()
                return
            out.write(json.dumps({"type": "ready", "protocol": PROTOCOL, "name": "greedy_bot.py", "author": "aeroplane examples"}) + "\n")
            out.flush()
        elif kind == "ping":
            out.write('{"type":"pong","id":%d}\n' % msg["id"])
            out.flush()
        elif kind == "quit":
            return
        # new_game and game_over need no answer.


if __name__ == "__main__":
    main()
