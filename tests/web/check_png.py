"""Checks a screenshot of the play page: every plane disc the page drew is in its seat's colour
where the page says it is. `python3 tests/web/check_png.py SHOT.png DISCS.json`, DISCS a list of
{"seat": s, "x": px, "y": py} (the top disc of each pile, in screenshot pixels; with "r", its
radius in pixels, the samples are taken inside it on a small screen)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import png  # noqa: E402  (tests/png.py)

COLOURS = {0: (0xD1, 0x23, 0x2F), 1: (0xF0, 0xB4, 0x00), 2: (0x1F, 0x5F, 0xBF), 3: (0x1B, 0x9A, 0x45)}


def main(shot, discs_path):
    w, h, pixel = png.read_png(shot)
    discs = json.load(open(discs_path))
    if not discs:
        sys.exit(f"{shot}: no plane discs on the page")
    for d in discs:
        want = COLOURS[d["seat"]]
        o = min(8, d["r"] * 0.7) if "r" in d else 8
        samples = [pixel(round(d["x"] + dx), round(d["y"] + dy)) for dx, dy in ((o, 0), (-o, 0), (0, o), (0, -o))]
        near = [s for s in samples if all(abs(a - b) <= 40 for a, b in zip(s, want))]
        if len(near) < 3:
            sys.exit(f"{shot}: seat {d['seat']} disc at ({d['x']:.0f}, {d['y']:.0f}) shows {samples}, not {want}")
    print(f"check_png: {os.path.basename(shot)}: {len(discs)} discs in their seats' colours ({w}x{h})")


if __name__ == "__main__":
    main(*sys.argv[1:])
