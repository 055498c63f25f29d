#!/usr/bin/env bash
# Builds the browser page: the engine and the bots as WebAssembly (the `aeroplane-web` crate,
# wasm32-unknown-unknown), bound by `aeroplane-bindgen` (web/bindgen/: wasm-bindgen-cli
# 0.2.130's library, the version Cargo.lock pins the `wasm-bindgen` crate to, built --locked
# from its own Cargo.lock into target/tools once), and put together with the page's script and
# the viewer's stylesheet into one self-contained HTML file that works from file:// with no
# network: target/web/aeroplane.html (the module inlined as base64). Also writes the Node.js
# module the tests load, target/web/node/.
#
# The module is reproducible: the same bytes from any checkout path, target folder or
# $CARGO_HOME (their prefixes are remapped), given the same Rust. web/dist/ holds the bound
# module the `aeroplane` binary builds its page from (`aeroplane play --page FILE`), built
# by Rust $rust below:
#
#     bash web/build.sh           # then open target/web/aeroplane.html
#     bash web/build.sh --dist    # ... and refresh web/dist/ (commit it with the sources)
#     bash web/build.sh --check   # ... and fail if web/dist/ is not what the sources build
set -euo pipefail
cd "$(dirname "$0")/.."

mode=build
case "${1:-}" in
    "") ;;
    --dist) mode=dist ;;
    --check) mode=check ;;
    *) echo "web/build.sh: unknown option '$1' (the options are --dist and --check)" >&2; exit 2 ;;
esac

version=0.2.130
# The Rust that builds web/dist: the module's bytes depend on the compiler.
rust=1.95.0
refresh="bash web/build.sh --dist"
root=$(pwd -P)
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target_dir"
target_dir=$(cd "$target_dir" && pwd -P)
tools="$target_dir/tools"
out="$target_dir/web"
dist=web/dist

if [[ $mode != build ]] && ! rustc -V | grep -qF "rustc $rust "; then
    # web/dist is compared with (or replaced by) this build: it must be Rust $rust's.
    if ! command -v rustup >/dev/null 2>&1; then
        echo "web/build.sh: web/dist is built by Rust $rust, but rustc here is $(rustc -V) and rustup is missing to run $rust" >&2
        exit 1
    fi
    if ! rustup toolchain list | grep -q "^$rust-"; then
        echo "web/build.sh: installing Rust $rust (web/dist is built by it)" >&2
        rustup toolchain install "$rust" --profile minimal
    fi
    export RUSTUP_TOOLCHAIN=$rust
fi
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "web/build.sh: adding the wasm32-unknown-unknown target" >&2
    rustup target add wasm32-unknown-unknown
fi

# The bind step: our own tool crate, built from its committed Cargo.lock (never re-resolved).
cargo build --quiet --release --locked --manifest-path web/bindgen/Cargo.toml --target-dir "$tools/bindgen"
bindgen="$tools/bindgen/release/aeroplane-bindgen"

# Paths rustc writes into the module (panic locations) are relative for the workspace's
# crates; those of the registry's crates and of build scripts' output are absolute, so they
# are remapped (the last matching prefix wins, so the target folder beats the workspace).
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
[[ -d $cargo_home ]] && cargo_home=$(cd "$cargo_home" && pwd -P)
flags=("--remap-path-prefix=$cargo_home=/cargo")
# A registry's folder is named after its source (a mirror's differs from crates.io's).
for registry in "$cargo_home"/registry/src/*/; do
    [[ -d $registry ]] && flags+=("--remap-path-prefix=${registry%/}=/crates")
done
flags+=("--remap-path-prefix=$root=/aeroplane" "--remap-path-prefix=$target_dir=/target")
rustflags=$(IFS=$'\x1f'; echo "${flags[*]}")
CARGO_ENCODED_RUSTFLAGS="$rustflags" CARGO_TARGET_DIR="$target_dir" \
    cargo build -p aeroplane-web --lib --target wasm32-unknown-unknown --profile wasm --locked
wasm="$target_dir/wasm32-unknown-unknown/wasm/aeroplane_web.wasm"
rm -rf "$out/pkg" "$out/node"
"$bindgen" --target no-modules --out-dir "$out/pkg" "$wasm"
"$bindgen" --target nodejs --out-dir "$out/node" "$wasm"

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

case $mode in
    dist)
        mkdir -p "$dist"
        cp "$out/pkg/aeroplane_web.js" "$out/pkg/aeroplane_web_bg.wasm" "$dist/"
        echo "web/build.sh: refreshed $dist (commit it with the sources it was built from)" >&2
        ;;
    check)
        stale=()
        for f in aeroplane_web.js aeroplane_web_bg.wasm; do
            cmp -s "$out/pkg/$f" "$dist/$f" || stale+=("$dist/$f")
        done
        if ((${#stale[@]})); then
            echo "web/build.sh: web/dist is stale: ${stale[*]} is not what the sources build (core/, ai/ or web/src changed since it was built): run '$refresh' and commit web/dist" >&2
            exit 1
        fi
        echo "web/build.sh: $dist is what the sources build" >&2
        ;;
esac
