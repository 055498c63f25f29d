# The set-up the headless Chromium checks share (tests/report/screenshots.sh,
# tests/viewer/screenshots.sh), sourced from the repository's root with `name` set to the
# script's name for its messages. Installs Chromium (and python3) from Debian packages when
# missing (needs root, as in CI). Sets `bin`, the binary: $AEROPLANE (CI passes the one the
# tests built), else a release build; and `work`, the folder for the files: SCREENSHOT_DIR
# (kept, to look at them), else a temporary one removed at the end.

if ! command -v chromium >/dev/null 2>&1; then
    echo "$name: installing chromium" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v python3 >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-minimal >/dev/null
fi

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
