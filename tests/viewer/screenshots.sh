#!/usr/bin/env bash
# The board viewer (`aeroplane replay --html`) in headless Chromium, checked as a picture and as
# a page: a game with a capture and stacks (classic rules) photographed at its first position,
# its first capture, its first stack and its end, each disc checked for its seat's colour where
# the engine's position puts a plane, with no console message and no script error; at those
# rolls and a launch, the move's from and to cells highlighted and tagged with their steps, and
# every cell titled with its steps (what hovering shows); every
# position of the whole game as the page draws it compared with `replay --json`; the page
# without JavaScript (the starting position and a note); and a viewer from a decision log and
# from a report. Installs Chromium from Debian packages when it is missing (needs root, as in CI).
# SCREENSHOT_DIR=DIR keeps the files and screenshots there (to look at them).
set -euo pipefail
cd "$(dirname "$0")/../.."

name="viewer screenshots"
# shellcheck source=tests/chromium.sh
source tests/chromium.sh
check="python3 tests/viewer/check_viewer.py"
width=1100
height=700

# Runs Chromium on a page; fails on any console message (the viewer logs nothing).
chrome() {
    local log="$work/chromium.log"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --enable-logging=stderr --v=0 --window-size="$width,$height" "$@" 2>"$log" || true
    if grep -q ':CONSOLE' "$log"; then
        echo "viewer screenshots: console messages from $*:" >&2
        grep ':CONSOLE' "$log" >&2
        exit 1
    fi
}

game=(--rules classic --bots greedy,greedy,random,random --seed 3 --game 1)
"$bin" replay "${game[@]}" --json >"$work/game.json"
"$bin" replay "${game[@]}" --html "$work/viewer.html" >/dev/null 2>&1
url="file://$(realpath "$work/viewer.html")"

# Every position of the game, as drawn.
chrome --dump-dom "$url#dump" >"$work/dump.html"
$check positions "$work/game.json" "$work/viewer.html" "$work/dump.html"

# The four pictures.
read -r first capture stack end < <($check steps "$work/game.json")
for step in "$first" "$capture" "$stack" "$end"; do
    png="$work/step-$step.png"
    rm -f "$png"
    chrome --dump-dom "$url#step=$step" >"$work/step-$step.html"
    chrome --screenshot="$png" "$url#step=$step" >/dev/null
    [[ -s "$png" ]] || { echo "viewer screenshots: no screenshot of roll $step" >&2; exit 1; }
    $check picture "$work/game.json" "$step" "$work/step-$step.html" "$png" "$width" "$height"
    $check marks "$work/game.json" "$step" "$work/step-$step.html"
done

# A launch: its from cell is the plane's hangar slot, its to cell the take-off cell.
launch=$($check launch "$work/game.json")
chrome --dump-dom "$url#step=$launch" >"$work/launch.html"
$check marks "$work/game.json" "$launch" "$work/launch.html"

# #turn=N opens the start of turn N: the position after the rolls before it.
turn_step=$(python3 -c 'import json,sys; log=json.load(open(sys.argv[1]))["log"]; print(next(k for k,l in enumerate(log) if l["turn"]>=40))' "$work/game.json")
chrome --dump-dom "$url#turn=40" >"$work/turn.html"
grep -q "Roll $turn_step of " "$work/turn.html" \
    || { echo "viewer screenshots: #turn=40 did not open roll $turn_step" >&2; exit 1; }

# Without JavaScript: the starting position drawn by the server, and the note.
$check noscript "$url" "$work/noscript.png" "$work/noscript.html" "$width" "$height"
$check picture "$work/game.json" 0 "$work/noscript.html" "$work/noscript.png" "$width" "$height" --no-script

# A viewer of a logged game (search-bot values beside the moves), and the report's viewers.
"$bin" run --bots expectimax:depth=1,greedy --games 6 --quiet --force --per-game --report \
    --log-games games.jsonl.zst --out "$work/run" >/dev/null
"$bin" replay --log "$work/run/games.jsonl.zst" --game 3 --html "$work/logged.html" >/dev/null 2>&1
"$bin" replay --log "$work/run/games.jsonl.zst" --game 3 --json >"$work/logged.json"
logged="file://$(realpath "$work/logged.html")"
chrome --dump-dom "$logged#dump" >"$work/logged-dump.html"
$check positions "$work/logged.json" "$work/logged.html" "$work/logged-dump.html"
chrome --dump-dom "$logged#step=40" >"$work/logged-40.html"
grep -q '<th class="num">value</th>' "$work/logged-40.html" || grep -q 'One legal move' "$work/logged-40.html" \
    || { echo "viewer screenshots: the logged game shows no bot values" >&2; exit 1; }
for page in game-longest game-shortest game-captures game-random; do
    [[ -s "$work/run/$page.html" ]] || { echo "viewer screenshots: the report wrote no $page.html" >&2; exit 1; }
    grep -q "href=\"$page.html\"" "$work/run/report.html" \
        || { echo "viewer screenshots: report.html does not link $page.html" >&2; exit 1; }
    chrome --dump-dom "file://$(realpath "$work/run/$page.html")#step=1" >"$work/$page.html"
    grep -q 'data-ready="1"' "$work/$page.html" \
        || { echo "viewer screenshots: $page.html did not load" >&2; exit 1; }
done
echo "viewer screenshots: all checks passed"
