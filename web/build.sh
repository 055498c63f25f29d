#!/usr/bin/env bash
# Builds the browser page: the engine and the bots as WebAssembly (the `aeroplane-web` crate,
# wasm32-unknown-unknown), bound by wasm-bindgen-cli 0.2.130 (the version Cargo.lock pins the
# `wasm-bindgen` crate to; installed into target/tools once, never fetched when the page runs),
# and put together with the page's script and the viewer's stylesheet into one self-contained
# HTML file that works from file:// with no network: target/web/aeroplane.html (the module
# inlined as base64). Also writes the Node.js module the tests load, target/web/node/.
#
#     bash web/build.sh           # then open target/web/aeroplane.html
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.2.130
target_dir="${CARGO_TARGET_DIR:-target}"
tools="$target_dir/tools"
out="$target_dir/web"
bindgen="$tools/bin/wasm-bindgen"

if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "web/build.sh: adding the wasm32-unknown-unknown target" >&2
    rustup target add wasm32-unknown-unknown
fi
if ! { [[ -x "$bindgen" ]] && "$bindgen" --version | grep -qF " $version"; }; then
    echo "web/build.sh: installing wasm-bindgen-cli $version into $tools" >&2
    # --locked: the versions wasm-bindgen-cli was released with. A registry mirror that lacks
    # one of them (seen: webpki-roots 1.0.11) falls back to the newest that match.
    cargo install --locked wasm-bindgen-cli --version "$version" --root "$tools" ||
        cargo install wasm-bindgen-cli --version "$version" --root "$tools"
fi

cargo build -p aeroplane-web --lib --target wasm32-unknown-unknown --profile wasm --locked
wasm="$target_dir/wasm32-unknown-unknown/wasm/aeroplane_web.wasm"
rm -rf "$out/pkg" "$out/node"
"$bindgen" --target no-modules --no-typescript --out-dir "$out/pkg" "$wasm"
"$bindgen" --target nodejs --no-typescript --out-dir "$out/node" "$wasm"

python3 - "$out" <<'PY'
import base64, pathlib, sys
out = pathlib.Path(sys.argv[1])
page = pathlib.Path("web/page")
parts = {
    "@@VIEWER_CSS@@": pathlib.Path("src/viewer/viewer.css").read_text(),
    "@@PAGE_CSS@@": (page / "page.css").read_text(),
    "@@BINDGEN_JS@@": (out / "pkg/aeroplane_web.js").read_text(),
    "@@WASM_BASE64@@": base64.b64encode((out / "pkg/aeroplane_web_bg.wasm").read_bytes()).decode(),
    "@@PAGE_JS@@": (page / "page.js").read_text(),
}
html = (page / "index.html").read_text()
for key, text in parts.items():
    if html.count(key) != 1:
        sys.exit(f"web/build.sh: web/page/index.html must hold {key} once")
    if key.endswith("JS@@") and "</script" in text.lower():
        sys.exit(f"web/build.sh: {key} holds </script")
    html = html.replace(key, text)
(out / "aeroplane.html").write_text(html)
PY
echo "web/build.sh: wrote $out/aeroplane.html ($(wc -c <"$out/aeroplane.html") bytes; module $(wc -c <"$out/pkg/aeroplane_web_bg.wasm") bytes)" >&2
