#!/usr/bin/env bash
# The browser page's tests: the module's Rust tests natively (`cargo test -p aeroplane-web`: the
# page's game session, the bot factory), then builds the page and the Node.js module
# (web/build.sh: the wasm32 target and wasm-bindgen-cli 0.2.130 installed when missing), then
#  - tests/web/node_test.js: seeded bot games through the module equal the CLI's records;
#  - tests/web/page_test.js: headless Chromium (the system's; tests/chromium.sh installs it from
#    Debian packages when missing) plays a whole game on the page with clicks and keys;
#  - tests/web/play_test.js: the page as a player meets it: phone and desktop layouts, the
#    coach, a reload mid-game, a cancelled think, keys, a run's log, bot-only records.
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
bash web/build.sh
target_dir="${CARGO_TARGET_DIR:-target}"
(cd tests/web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
node tests/web/node_test.js "$target_dir/web/node" "$bin" "$work/node"
node tests/web/page_test.js "$target_dir/web/aeroplane.html" "$bin" "$work/page"
node tests/web/play_test.js "$target_dir/web/aeroplane.html" "$bin" "$work/play"
