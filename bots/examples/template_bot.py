#!/usr/bin/env python3
"""A template bot for aeroplane: copy this file, write `choose`, and point a profile at it:

    # bots/mybot.toml
    kind = "external"
    command = ["python3", "path/to/my_bot.py"]
    [params]            # optional: handed to the bot in `hello`
    aggression = 2

    aeroplane run --bots bots/mybot.toml,greedy --rotate-seats --games 1000

The protocol (docs/PROTOCOL.md): the harness writes one JSON object per line on stdin, the
bot answers on stdout, one line per answer. Print nothing else on stdout (use stderr for
logs: it goes to --out DIR/logs/). The harness rolls the dice; every message carries the
whole position, so a bot may keep no state at all.
"""

import json
import random
import sys

PROTOCOL = 1
NAME = "template_bot.py"
AUTHOR = "you"


class Bot:
    def __init__(self, hello):
        self.rules = hello["rules"]        # every rule option, as `aeroplane rules` prints
        self.players = hello["players"]
        self.params = hello["params"]      # the profile's [params]
        self.rng = random.Random(0)

    def new_game(self, msg):
        self.seat = msg["seat"]
        self.rng = random.Random(msg["seed"])   # the harness's seed: reproducible games

    def choose(self, state, roll, moves):
        """Return the `id` of one of `moves` (there are always two or more).

        state: to_move, steps[seat][plane] (-1 = hangar, state["centre"] = home), ranks,
        sixes, moved_this_turn, moved_last, turns. Each move: id, from, to, planes,
        captures ([seat, plane] pairs), launch, jump, flight, bounce, stay, finish.
        """
        for m in moves:
            if m["captures"]:
                return m["id"]
        return self.rng.choice(moves)["id"]

    def game_over(self, msg):
        pass


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main():
    bot = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            if msg["protocol"] != PROTOCOL:
                send({"type": "error", "message": "%s speaks protocol %d only" % (NAME, PROTOCOL)})
                return
            bot = Bot(msg)
            send({"type": "ready", "protocol": PROTOCOL, "name": NAME, "author": AUTHOR})
        elif kind == "new_game":
            bot.new_game(msg)
        elif kind == "choose":
            send({"type": "move", "id": bot.choose(msg["state"], msg["roll"], msg["moves"])})
        elif kind == "game_over":
            bot.game_over(msg)
        elif kind == "ping":
            send({"type": "pong", "id": msg["id"]})
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
