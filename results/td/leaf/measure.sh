#!/usr/bin/env bash
# Issue 46 item 5, the td search's leaf perspective: before (main 722a564) and after, measured
# with release builds (results/td/leaf.md states the figures).
#   results/td/leaf/measure.sh [grade] [match]      (default: both)
# BEFORE=PATH: the release binary of 722a564 (default: built here from `git archive 722a564`);
# AFTER=PATH: this tree's (default: `cargo build --release`). TABLES=DIR holds the solved
# two-plane tables DIR/T-PRESET-2 (solved first if missing, about 5 minutes each).
# grade: `aeroplane grade` of td at ply 1 and 2 against each table, GRADE_DEALS deals (5,000),
#        seed 1, both binaries: grade-before.csv, grade-after.csv.
# match: the full game, the new td against the old one played by oldtd.rs (main 722a564's
#        aeroplane-ai over the line protocol), seats rotated, seed 46: at two players 20,000
#        deals at ply 1 and 5,000 at ply 2; at four players the new td against three old ones,
#        2,000 deals at ply 1 (DEALS_PLY1, DEALS_PLY2, DEALS_4P set them): matches.txt.
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD
work=${WORK:-$(mktemp -d)}
tables=${TABLES:-$work}
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(grade match)
want() { [[ " ${parts[*]} " == *" $1 "* ]]; }
after=${AFTER:-}
if [[ -z "$after" ]]; then
    cargo build --release --locked -q
    after=${CARGO_TARGET_DIR:-target}/release/aeroplane
fi
# The old crates (and, unless BEFORE is given, the old binary) from the commit before the fix.
mkdir -p "$work/old"
git archive 722a564 | tar -x -C "$work/old"
before=${BEFORE:-}
if [[ -z "$before" ]]; then
    (cd "$work/old" && CARGO_TARGET_DIR="$work/old-target" cargo build --release --locked -q)
    before=$work/old-target/release/aeroplane
fi
if want grade; then
    for which in before after; do
        bin=$before
        [[ $which == after ]] && bin=$after
        out=results/td/leaf/grade-$which.csv
        : >"$out"
        for p in classic chinese appfreegame; do
            t=$tables/T-$p-2
            [[ -f $t/table.bin ]] || "$after" solve --rules "$p" --planes 2 --out "$t" --force -q >/dev/null
            net=bots/nets/td-$p-2planes.safetensors
            "$bin" grade --table "$t" --bots "td:net=$net:ply=1,td:net=$net:ply=2" \
                --games "${GRADE_DEALS:-5000}" --seed 1 --out "$work/grade-$which-$p" --force -q >/dev/null
            [[ -s $out ]] || echo "preset,$(head -1 "$work/grade-$which-$p/grade.csv")" >"$out"
            tail -n +2 "$work/grade-$which-$p/grade.csv" | sed "s/^/$p,/" >>"$out"
        done
    done
fi
if want match; then
    # The old td over the line protocol: a crate of its own over the old aeroplane-ai.
    mkdir -p "$work/oldtd/src"
    cp results/td/leaf/oldtd.rs "$work/oldtd/src/main.rs"
    cp "$work/old/Cargo.lock" "$work/oldtd/"
    cat >"$work/oldtd/Cargo.toml" <<TOML
[package]
name = "oldtd"
version = "0.1.0"
edition = "2024"

[dependencies]
aeroplane-core = { path = "../old/core", features = ["serde"] }
aeroplane-ai = { path = "../old/ai" }
serde_json = "1"

[workspace]
TOML
    (cd "$work/oldtd" && CARGO_TARGET_DIR="$work/oldtd-target" cargo build --release -q)
    out=results/td/leaf/matches.txt
    : >"$out"
    for p in classic chinese appfreegame; do
        for n in 2 4; do
            for ply in 1 2; do
                deals=$([[ $ply == 1 ]] && echo "${DEALS_PLY1:-20000}" || echo "${DEALS_PLY2:-5000}")
                [[ $n == 4 ]] && { [[ $ply == 1 ]] || continue; deals=${DEALS_4P:-2000}; }
                prof=$work/old-$p-${n}p.toml
                printf 'kind = "external"\ncommand = ["%s"]\ntimeout_ms = 60000\n[params]\nrules = "%s"\nnet = "bots/nets/td-%s-%sp.safetensors"\nply = %s\n' \
                    "$work/oldtd-target/release/oldtd" "$p" "$p" "$n" "$ply" >"$prof"
                new=td:net=bots/nets/td-$p-${n}p.safetensors:ply=$ply
                bots=$new,$prof
                [[ $n == 4 ]] && bots=$new,$prof,$prof,$prof
                echo "== $p, $n players, ply $ply, $deals deals" >>"$out"
                "$after" run --rules "$p" --bots "$bots" --games "$deals" --rotate-seats --seed 46 \
                    --out "$work/match-$p-$n-$ply" --force 2>&1 | grep -E '^ +[0-9] |Elo|Ptnml' >>"$out"
            done
        done
    done
fi
echo "done: results/td/leaf (work files in $work)" >&2
