#!/usr/bin/env bash
# Renders the report of a small run, SPRT, sweep, league, grade and tune in headless Chromium and checks
# each screenshot: a PNG of the window's size that is not blank and shows the charts' blue.
# Installs Chromium from Debian packages when it is missing (needs root, as in CI).
# SCREENSHOT_DIR=DIR keeps the folders and screenshots there (to look at them).
set -euo pipefail
cd "$(dirname "$0")/../.."

name="screenshots"
# shellcheck source=tests/chromium.sh
source tests/chromium.sh

q=(--quiet --force --report --out)
"$bin" run --games 2000 --rotate-seats "${q[@]}" "$work/run" >/dev/null
"$bin" run --bots greedy,random --sprt elo0=0,elo1=50 --max-games 5000 --chunk-size 4 \
    "${q[@]}" "$work/sprt" >/dev/null
"$bin" sweep --vary overshoot=illegal,bounce --vary 'launch_rolls=[6];[5,6];[2,4,6]' \
    --bots greedy,greedy,greedy,greedy --games 2000 --compare 1,2 "${q[@]}" "$work/sweep" >/dev/null
"$bin" league --bots random,greedy,expectimax:depth=1 --players 2 --games 300 --bootstrap 100 \
    "${q[@]}" "$work/league" >/dev/null
"$bin" solve --rules classic --planes 1 --quiet --force --out "$work/table" >/dev/null
"$bin" grade --table "$work/table" --bots random,greedy,expectimax:depth=1,expectimax:depth=2 \
    --games 300 "${q[@]}" "$work/grade" >/dev/null
"$bin" tune --bot expectimax:depth=1 --param hangar=0..60 --param exposure=0..4 --rules classic \
    --iterations 60 --pairs-per-iteration 16 --confirm-pairs 2000 "${q[@]}" "$work/tune" >/dev/null

width=1100
height=2400
for job in run sprt sweep league grade tune; do
    png="$work/$job.png"
    rm -f "$png"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --window-size="$width,$height" --screenshot="$png" "file://$(realpath "$work/$job/report.html")" \
        >/dev/null 2>&1 || true
    if [[ ! -s "$png" ]]; then
        echo "screenshots: chromium wrote no screenshot of $job/report.html" >&2
        exit 1
    fi
    python3 - "$png" "$width" "$height" <<'PY'
import sys

sys.path.insert(0, "tests")
from png import PngError, read_png

path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    w, h, pixel = read_png(path)
except PngError as e:
    sys.exit(f"screenshots: {e}")
assert (w, h) == (want_w, want_h), f"{path}: {w}x{h}, expected {want_w}x{want_h}"
ink = blue = 0
colours = set()
for y in range(0, h, 2):
    for x in range(0, w, 2):
        r, g, bl = pixel(x, y)
        if r + g + bl < 600:
            ink += 1
        if bl > r + 60 and bl > 120:
            blue += 1
        if len(colours) < 64:
            colours.add((r, g, bl))
sampled = (h // 2) * (w // 2)
assert ink > sampled * 0.01, f"{path}: nearly blank ({ink} of {sampled} sampled pixels are not white)"
assert blue > 500, f"{path}: no chart colour found ({blue} blue pixels)"
assert len(colours) >= 8, f"{path}: only {len(colours)} colours"
print(f"screenshots: {path}: {w}x{h}, {100 * ink / sampled:.1f}% ink, {blue} blue pixels")
PY
done
