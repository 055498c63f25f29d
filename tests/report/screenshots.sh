#!/usr/bin/env bash
# Renders the report of a small run, SPRT, sweep, league, grade and tune in headless Chromium and checks
# each screenshot: a PNG of the window's size that is not blank and shows the charts' blue.
# Installs Chromium from Debian packages when it is missing (needs root, as in CI).
# SCREENSHOT_DIR=DIR keeps the folders and screenshots there (to look at them).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1; then
    echo "screenshots: installing chromium" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v python3 >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-minimal >/dev/null
fi

# The binary: $AEROPLANE (CI passes the one the tests built), else a release build.
if [[ -n "${AEROPLANE:-}" ]]; then
    bin="$AEROPLANE"
else
    cargo build --release --locked -q
    bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
fi

if [[ -n "${SCREENSHOT_DIR:-}" ]]; then
    work="$SCREENSHOT_DIR"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
fi

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
import struct, sys, zlib

path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, colour, _, _, interlace = ihdr
assert (w, h) == (want_w, want_h), f"{path}: {w}x{h}, expected {want_w}x{want_h}"
assert depth == 8 and colour in (2, 6) and interlace == 0, f"{path}: unexpected PNG format {ihdr}"
bpp = 3 if colour == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
ink = blue = 0
colours = set()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pr) & 255
    prev = line
    if y % 2:
        continue
    for x in range(0, w, 2):
        r, g, bl = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
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
