#!/usr/bin/env bash
# The browser page's tests: the module's Rust tests natively (`cargo test -p aeroplane-web`: the
# page's game session, the bot factory), then builds the page and the Node.js module with the
# locked tools and checks that the committed module, web/dist/, is what the sources build
# (`web/build.sh --check`: the wasm32 target added and web/bindgen built when missing; it fails
# naming `bash web/build.sh --dist` when web/dist is stale), then
#  - the page the binary writes (`aeroplane play --page FILE`, from web/dist and the page's sources
#    compiled in) must equal web/build.sh's, byte for byte;
#  - tests/web/node_test.js: seeded bot games through the module equal the CLI's records;
#  - tests/web/page_test.js: headless Chromium (the system's; tests/chromium.sh installs it from
#    Debian packages when missing) plays a whole game on the binary's page with clicks and keys;
#  - tests/web/play_test.js: the binary's page as a player meets it: phone and desktop layouts,
#    the coach, a reload mid-game, a cancelled think, keys, a run's log, bot-only records.
# Needs node and npm (puppeteer-core from tests/web/package-lock.json, `npm ci`; it downloads no
# browser). AEROPLANE=BIN uses that aeroplane binary (CI passes the tests' debug build).
# SCREENSHOT_DIR=DIR keeps the screenshots there.
set -euo pipefail
cd "$(dirname "$0")/../.."

name="web tests"
# shellcheck source=tests/chromium.sh
source tests/chromium.sh
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "$name: installing node and npm" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi

cargo test --locked -q -p aeroplane-web
bash web/build.sh --check
target_dir="${CARGO_TARGET_DIR:-target}"
"$bin" play --page "$work/aeroplane.html"
if ! cmp "$work/aeroplane.html" "$target_dir/web/aeroplane.html"; then
    echo "$name: the page $bin writes differs from web/build.sh's ($target_dir/web/aeroplane.html)" >&2
    exit 1
fi
(cd tests/web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
node tests/web/node_test.js "$target_dir/web/node" "$bin" "$work/node"
node tests/web/page_test.js "$work/aeroplane.html" "$bin" "$work/page"
node tests/web/play_test.js "$work/aeroplane.html" "$bin" "$work/play"
