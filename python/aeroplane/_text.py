"""Positions as text for the environments' ``render()``."""

from __future__ import annotations

from ._native import Game

_COLOURS = ("red", "yellow", "blue", "green")


def describe(game: Game) -> str:
    """A position as a few lines of text: each player's planes, whose turn, the roll."""
    centre = game.rules.centre
    lines = [f"position {game}"]
    for k, seat in enumerate(game.seats):
        steps = []
        for s in game.steps(seat):
            steps.append("hangar" if s < 0 else "home" if s == centre else str(s))
        rank = game.rank(seat)
        tail = f"  (rank {rank})" if rank else ""
        lines.append(f"player_{k} ({_COLOURS[seat]}, seat {seat}): {', '.join(steps)}{tail}")
    if game.is_terminal():
        lines.append(f"game over ({game.status}) after {game.turns} turns")
    else:
        who = f"player_{game.player_of(game.to_move)}"
        roll = game.pending_roll
        lines.append(f"{who} to move" + (f", rolled {roll}" if roll else ""))
    return "\n".join(lines)
