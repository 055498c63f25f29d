#!/usr/bin/env python3
"""Checks the board viewer in headless Chromium, as tests/viewer/screenshots.sh runs it.

    check_viewer.py positions GAME.json VIEWER.html DRAWN_DOM.html
        Every position the viewer draws (its #dump of the whole game) is the engine's position
        of `aeroplane replay --json` (every plane's step), each drawn where the page's layout
        puts that step.
    check_viewer.py steps GAME.json
        Prints the roll numbers to photograph: the first position, the first capture, the first
        position with a stack (two or more planes of one seat on one cell), the end.
    check_viewer.py noscript URL SHOT.png DOM.html WIDTH HEIGHT
        Opens URL in headless Chromium with JavaScript switched off (through the DevTools
        protocol on a pipe: the command line has no working switch for it), and saves a
        screenshot and the DOM.
    check_viewer.py marks GAME.json STEP DOM.html
        The DOM after the script ran at #step=STEP highlights the cells the roll's move went from
        and to (classes move-from, move-to on the cell whose data-at holds the seat's step, or on
        the hangar slot) and tags them with their step numbers, and nothing else; every board
        cell has a title naming each seat's step there (hover), and the cells cover every step.
    check_viewer.py launch GAME.json
        Prints the first roll whose move launches a plane (its from cell is a hangar slot).
    check_viewer.py picture GAME.json STEP DOM.html SHOT.png WIDTH HEIGHT [--no-script]
        The DOM after the script ran at #step=STEP shows the engine's position (and no script
        error); in the screenshot each plane's disc has its seat's colour; at a stack its badge
        counts its planes. With --no-script: the page without JavaScript shows the starting
        position drawn by the server and the note.
"""

import base64
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import png  # noqa: E402 (tests/png.py)

COLOURS = {0: (0xD1, 0x23, 0x2F), 1: (0xF0, 0xB4, 0x00), 2: (0x1F, 0x5F, 0xBF), 3: (0x1B, 0x9A, 0x45)}
BOARD_LEFT, BOARD_TOP = 16, 16  # where the page puts the 640 x 640 board (viewer.css)
PILE = re.compile(r'<g class="pile" data-seat="(\d)" data-planes="([\d,]+)" data-step="(-?\d+)">(.*?)</g>')
CIRCLE = re.compile(r'<circle class="plane" cx="([\d.]+)" cy="([\d.]+)"')


def fail(message):
    print(f"check_viewer: {message}", file=sys.stderr)
    sys.exit(1)


def positions(game):
    """The engine's planes at every state: 0 is the start, k is after roll k."""
    log = game["log"]
    states = [log[0]["before"]["steps"]] if log else []
    states += [line["after"]["steps"] for line in log]
    return states


def planes_of(steps):
    """{(seat, plane): step} of a position's steps."""
    return {
        (seat, p): s
        for seat, planes in enumerate(steps)
        if planes is not None
        for p, s in enumerate(planes)
    }


def drawn_piles(dom):
    """[(seat, planes, step, x, y, badge)] of the planes layer of a DOM dump."""
    layer = dom[dom.index('<g id="planes">'):]
    layer = layer[: layer.index('<g id="preview">')]
    out = []
    for seat, planes, step, body in PILE.findall(layer):
        circles = CIRCLE.findall(body)
        if not circles:
            fail(f"a pile without a disc: seat {seat} step {step}")
        x, y = map(float, circles[-1])  # the disc drawn last is on top
        badge = re.search(r'class="badge-label"[^>]*>(\d+)<', body)
        out.append((int(seat), [int(p) for p in planes.split(",")], int(step), x, y,
                    int(badge.group(1)) if badge else None))
    return out


def same_planes(piles, steps, where):
    want = planes_of(steps)
    got = {}
    for seat, planes, step, _, _, badge in piles:
        for p in planes:
            if (seat, p) in got:
                fail(f"{where}: seat {seat} plane {p} drawn twice")
            got[(seat, p)] = step
        if len(planes) > 1 and badge != len(planes):
            fail(f"{where}: a stack of {len(planes)} planes with badge {badge}")
    if got != want:
        diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        fail(f"{where}: drawn {[(k, got.get(k)) for k in diff]}, the engine has "
             f"{[(k, want.get(k)) for k in diff]}")


def layout_of(html):
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))["layout"]


def check_positions(game_path, viewer_path, dom_path):
    game = json.load(open(game_path))
    layout = layout_of(open(viewer_path).read())
    dom = open(dom_path).read()
    m = re.search(r'<script type="application/json" id="drawn">(.*?)</script>', dom, re.S)
    if not m:
        fail("the #dump page wrote no drawn positions (did its script run?)")
    drawn = json.loads(m.group(1))
    states = positions(game)
    if len(drawn) != len(states):
        fail(f"{len(drawn)} positions drawn, the game has {len(states)}")
    for i, (piles, steps) in enumerate(zip(drawn, states)):
        same_planes([(s, ps, st, x, y, len(ps) if len(ps) > 1 else None)
                     for s, ps, st, x, y in piles], steps, f"roll {i}")
        for seat, planes, step, x, y in piles:
            spot = layout["hangar"][seat][planes[0]] if step < 0 else layout["spots"][seat][step]
            if abs(spot["x"] - x) > 0.11 or abs(spot["y"] - y) > 0.11:
                fail(f"roll {i}: seat {seat} plane {planes} at step {step} drawn at ({x}, {y}), "
                     f"the layout puts it at ({spot['x']}, {spot['y']})")
    print(f"check_viewer: {len(states)} positions drawn as the engine has them")


def pick_steps(game_path):
    game = json.load(open(game_path))
    log = game["log"]
    capture = next((k + 1 for k, line in enumerate(log) if line["captured"]), None)
    stack = None
    for i, steps in enumerate(positions(game)):
        for planes in steps:
            board = [s for s in (planes or []) if s >= 0]
            if len(board) != len(set(board)):
                stack = i
                break
        if stack is not None:
            break
    if capture is None or stack is None:
        fail(f"the game has no capture ({capture}) or no stack ({stack}): choose another")
    print(0, capture, stack, len(log))


MARKED = re.compile(r'<(g|circle|polygon) class="([^"]*)" (data-at|data-hangar)="([^"]*)"')
TAG = re.compile(r'<g class="step-tag tag-move" data-end="(from|to)" data-step="(-?\d+)">'
                 r'<rect[^>]*></rect><text[^>]*>([^<]*)</text><title>([^<]*)</title></g>')
CELL = re.compile(r'<g class="cell[^"]*" data-at="([^"]*)">.*?<title>ring cell (\d+) \(\w+\): ([^<]*)</title></g>')
LANE = re.compile(r'<g class="lane[^"]*" data-at="(\d):(\d+)">.*?<title>(\w+) home lane, step (\d+)</title></g>')
NAMES = ["red", "yellow", "blue", "green"]


def check_titles(dom, game):
    """Every ring cell's title names the seats' steps its data-at holds; every seat's steps
    1..50 are on exactly one cell; every lane cell's title has its step."""
    cells = CELL.findall(dom)
    if len(cells) != 52:
        fail(f"{len(cells)} ring cells with a title, not 52")
    seen = {}
    for data_at, cell, title in cells:
        want = ", ".join(f"{NAMES[int(t.split(':')[0])]} step {t.split(':')[1]}" for t in data_at.split())
        if title != want:
            fail(f"ring cell {cell}: title {title!r}, its data-at {data_at!r} says {want!r}")
        for t in data_at.split():
            if t in seen:
                fail(f"step {t} on ring cells {seen[t]} and {cell}")
            seen[t] = cell
    for seat in range(4):
        missing = [st for st in range(1, 51) if f"{seat}:{st}" not in seen]
        if missing:
            fail(f"seat {seat}: no ring cell has steps {missing}")
    lanes = LANE.findall(dom)
    cells_per_lane = game["rules"]["home_lane_cells"]
    if len(lanes) != 4 * cells_per_lane:
        fail(f"{len(lanes)} lane cells with a title, not {4 * cells_per_lane}")
    for seat, step, colour, title_step in lanes:
        if colour != NAMES[int(seat)] or step != title_step:
            fail(f"lane cell {seat}:{step} titled {colour} step {title_step}")
    return len(cells) + len(lanes)


def check_marks(game_path, step, dom_path):
    game = json.load(open(game_path))
    dom = open(dom_path).read()
    if 'data-ready="1"' not in dom:
        fail(f"roll {step}: the page's script did not finish")
    board = dom[dom.index('<svg id="board"'):dom.index('</svg>')]
    titled = check_titles(board, game)
    marked = {}
    for _, classes, attr, value in MARKED.findall(board):
        for c in classes.split():
            if c in ("move-from", "move-to", "option-from", "option-to"):
                marked.setdefault(c, []).append((attr, value))
    tags = {end: (int(st), label, title) for end, st, label, title in TAG.findall(board)}
    line = game["log"][step - 1] if step > 0 else None
    if line is None or line["chosen"] is None:
        if marked or tags:
            fail(f"roll {step}: no move, yet cells are marked {marked} and tagged {tags}")
        print(f"check_viewer: roll {step}: no move, no cell marked; {titled} cells titled")
        return
    seat = line["seat"]
    mv = line["legal"][line["chosen"]]
    for end in ("from", "to"):
        st = mv[end]
        want = [("data-hangar", f"{seat}:{mv['planes'][0]}")] if st < 0 else None
        got = marked.get(f"move-{end}", [])
        if len(got) != 1:
            fail(f"roll {step}: {len(got)} cells marked move-{end}: {got}")
        attr, value = got[0]
        if want is not None:
            ok = got == want
        else:
            ok = attr == "data-at" and any(
                t.split(":")[0] == str(seat) and int(t.split(":")[1]) == st for t in value.split())
        if not ok:
            fail(f"roll {step}: {NAMES[seat]} moved {mv['from']} -> {mv['to']}, but the cell marked "
                 f"move-{end} is {attr}={value!r}")
        if end not in tags:
            fail(f"roll {step}: no step tag on the {end} cell")
        tag_step, label, title = tags[end]
        want_label = "H" if st < 0 else str(st)
        if tag_step != st or label != want_label:
            fail(f"roll {step}: the {end} tag says {label!r} (data-step {tag_step}), the move's "
                 f"{end} is {st}")
    if set(marked) - {"move-from", "move-to"} or len(tags) != 2:
        fail(f"roll {step}: more marked than the move: {marked}, tags {tags}")
    print(f"check_viewer: roll {step}: {NAMES[seat]} {mv['from']} -> {mv['to']} marked and tagged "
          f"on the board; {titled} cells titled")


def first_launch(game_path):
    game = json.load(open(game_path))
    for k, line in enumerate(game["log"]):
        if line["chosen"] is not None and line["legal"][line["chosen"]]["from"] < 0:
            print(k + 1)
            return
    fail("the game has no launch")


def read_png(path):
    try:
        return png.read_png(path)
    except png.PngError as e:
        fail(str(e))


def check_picture(game_path, step, dom_path, png_path, width, height, script=True):
    game = json.load(open(game_path))
    dom = open(dom_path).read()
    if script:
        if 'data-ready="1"' not in dom:
            fail(f"roll {step}: the page's script did not finish")
        errors = re.search(r'data-errors="([^"]*)"', dom)
        if errors:
            fail(f"roll {step}: script errors: {errors.group(1)}")
    else:
        if "JavaScript is off" not in dom:
            fail("without JavaScript the page does not say so")
    piles = drawn_piles(dom)
    same_planes(piles, positions(game)[step], f"roll {step}")
    w, h, pixel = read_png(png_path)
    if (w, h) != (width, height):
        fail(f"{png_path}: {w}x{h}, expected {width}x{height}")
    for seat, planes, st, x, y, _ in piles:
        px, py = BOARD_LEFT + x, BOARD_TOP + y
        samples = [pixel(round(px + dx), round(py + dy)) for dx, dy in ((8, 0), (-8, 0), (0, 8), (0, -8))]
        want = COLOURS[seat]
        near = [s for s in samples if all(abs(a - b) <= 40 for a, b in zip(s, want))]
        if len(near) < 3:
            fail(f"roll {step}: seat {seat} planes {planes} (step {st}) at ({px}, {py}): the "
                 f"screenshot shows {samples}, not the seat's colour {want}")
    stacks = sum(1 for p in piles if len(p[1]) > 1)
    print(f"check_viewer: roll {step}{'' if script else ' (no script)'}: {len(piles)} discs in "
          f"their seats' colours, {stacks} stacks")


def no_script(url, png, dom_path, width, height):
    """Chromium with page scripts disabled, driven over --remote-debugging-pipe (the browser
    reads commands on fd 3 and answers on fd 4, each JSON message ended by a NUL)."""
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()

    def fds():
        os.dup2(to_chrome_r, 3)
        os.dup2(from_chrome_w, 4)

    proc = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-pipe", f"--window-size={width},{height}"],
        pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    pending = b""
    events = []
    counter = [0]

    def call(method, params=None, session=None):
        nonlocal pending
        counter[0] += 1
        message = {"id": counter[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(to_chrome_w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in pending:
                chunk = os.read(from_chrome_r, 1 << 16)
                if not chunk:
                    fail(f"chromium closed the DevTools pipe during {method}")
                pending += chunk
            raw, pending = pending.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == counter[0]:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply["result"]
            events.append(reply)

    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Runtime.enable", session=s)
        call("Emulation.setScriptExecutionDisabled", {"value": True}, session=s)
        call("Emulation.setDeviceMetricsOverride",
             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=s)
        call("Page.enable", session=s)
        call("Page.navigate", {"url": url}, session=s)
        while not any(e.get("method") == "Page.loadEventFired" for e in events):
            call("Runtime.evaluate", {"expression": "1"}, session=s)
        shot = call("Page.captureScreenshot", {"format": "png"}, session=s)["data"]
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot))
        root = call("DOM.getDocument", {"depth": -1}, session=s)["root"]["nodeId"]
        with open(dom_path, "w") as f:
            f.write(call("DOM.getOuterHTML", {"nodeId": root}, session=s)["outerHTML"])
        noise = [e for e in events if e.get("method") in ("Runtime.consoleAPICalled", "Runtime.exceptionThrown")]
        if noise:
            fail(f"console messages without JavaScript: {noise}")
        call("Browser.close")
    finally:
        os.close(to_chrome_w)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def main(argv):
    if argv[1] == "positions":
        check_positions(argv[2], argv[3], argv[4])
    elif argv[1] == "noscript":
        no_script(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]))
    elif argv[1] == "steps":
        pick_steps(argv[2])
    elif argv[1] == "marks":
        check_marks(argv[2], int(argv[3]), argv[4])
    elif argv[1] == "launch":
        first_launch(argv[2])
    elif argv[1] == "picture":
        check_picture(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]), int(argv[7]),
                      script="--no-script" not in argv)
    else:
        fail(f"unknown command {argv[1]}")


if __name__ == "__main__":
    main(sys.argv)
