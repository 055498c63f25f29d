#!/usr/bin/env bash
# Tuning expectimax:depth=1's evaluation by SPSA (results/README.md, "Tuning expectimax").
# Reruns all of it:
#   results/tune.sh            (from the repository root or anywhere; a few minutes on 2 cores)
# Every job is seeded, so a rerun writes the same files, byte for byte: results/tune/<name>/
# holds each job's run.json, history.csv, tuned.toml, sprt.json, summary.json and report.html,
# results/tune/<name>.txt what it printed; the tuned profiles are copied to bots/tuned/ (named
# by path, or by name with --bots-dir bots/tuned).
# TUNE_THREADS=N sets worker threads (default: all cores; results do not depend on it).
# TUNE_QUICK=1 runs 2% of the iterations and short checks (a smoke test of the script; it
# writes to results/tune-quick/ and leaves bots/tuned/ alone).
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${TUNE_THREADS:-0}"
quick="${TUNE_QUICK:-}"
root=results/tune
if [[ -n "$quick" ]]; then root=results/tune-quick; fi

cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
mkdir -p "$root"
scale() { if [[ -n "$quick" ]]; then echo $(($1 / 50 > 2 ? $1 / 50 : 2)); else echo "$1"; fi; }

# The evaluation is a weighted sum, so scaling every weight changes no decision: progress stays
# 1 (the unit: a cell of progress) and the five others are tuned. `win` only matters once a
# seat has finished, where it dwarfs everything else at any value in its range.
params=(--param home=0..30 --param hangar=0..60 --param lane=0..20 --param exposure=0..4
    --param mover=0..1)
tune() {
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s)
    "$bin" tune --bot expectimax:depth=1 "${params[@]}" "$@" --threads "$threads" --quiet \
        --force --report --out "$root/$name" >"$root/$name.txt"
    t1=$(date +%s)
    echo "$name: $((t1 - t0)) s" >&2
}

# 1. classic, two players, self-play: 2,000 iterations x 256 game pairs = 1,024,000 games.
tune classic-2p --rules classic --players 2 --iterations "$(scale 2000)" \
    --pairs-per-iteration 256 --seed 1
# 2. appfreegame, four players, self-play (+ - + - and - + - +): 1,000 x 256 deals x 2 games.
tune appfreegame-4p --rules appfreegame --players 4 --iterations "$(scale 1000)" \
    --pairs-per-iteration 256 --seed 1

# The same four-player tune from another seed (no confirmation): where it ends says how flat
# the objective is.
tune appfreegame-4p-seed2 --rules appfreegame --players 4 --iterations "$(scale 1000)" \
    --pairs-per-iteration 256 --seed 2 --no-confirm
# The gradient at the hand-set weights: --step 0 holds the start, so the mean of the
# iterations' gradient estimates (with its standard error) measures the slope there.
tune gradient-classic-2p --rules classic --players 2 --iterations "$(scale 400)" \
    --pairs-per-iteration 256 --seed 3 --step 0 --no-confirm
tune gradient-appfreegame-4p --rules appfreegame --players 4 --iterations "$(scale 400)" \
    --pairs-per-iteration 256 --seed 3 --step 0 --no-confirm

profiles=bots/tuned
if [[ -n "$quick" ]]; then profiles=$root/profiles; fi
mkdir -p "$profiles"
a=$profiles/expectimax-d1-classic.toml
b=$profiles/expectimax-d1-appfreegame-4p.toml
cp "$root/classic-2p/tuned.toml" "$a"
cp "$root/appfreegame-4p/tuned.toml" "$b"

# 3. How much stronger, measured on a fixed number of fresh deals (an SPRT's estimate at its
#    stop is biased away from zero): each tuned profile against the start, seats rotated.
run() {
    local name=$1
    shift
    "$bin" run "$@" --threads "$threads" --quiet --force --report --out "$root/$name" \
        >"$root/$name.txt"
    echo "$name: done" >&2
}
start=expectimax:depth=1
run strength-classic-2p --rules classic --bots "$a,$start" --rotate-seats \
    --games "$(scale 100000)" --seed 11
run strength-appfreegame-4p --rules appfreegame --bots "$b,$start,$b,$start" --rotate-seats \
    --games "$(scale 40000)" --seed 11

# 4. Do the best weights differ between the variants? Each variant's tuned profile against the
#    other's, in that variant, on fresh seeds (seats rotated; the deal is the unit).
run cross-classic-2p --rules classic --bots "$a,$b" --rotate-seats --games "$(scale 50000)" --seed 7
run cross-appfreegame-4p --rules appfreegame --bots "$b,$a,$b,$a" --rotate-seats \
    --games "$(scale 20000)" --seed 7

# 5. A grid check around the hand-set weights: each weight moved alone by the first perturbation
#    (10% of its range) either way, against the start, on fresh deals. A start that no single
#    move beats is a local optimum on this grid; it also shows which finite differences are
#    lopsided (one side much worse than the other), which biases the SPSA gradient.
grid() {
    local name=$1 rules=$2 players=$3 deals=$4
    shift 4
    local out=$root/grid-$name.csv
    echo "parameter,value,deals,games,win_rate,win_lo95,win_hi95,fair_share" >"$out"
    for pv in "$@"; do
        local v=$start:$pv bots dir
        if [[ $players == 2 ]]; then bots="$v,$start"; else bots="$v,$start,$v,$start"; fi
        dir=$root/grid-$name/${pv/=/-}
        "$bin" run --rules "$rules" --bots "$bots" --rotate-seats --games "$deals" --seed 31 \
            --threads "$threads" --quiet --force --out "$dir" >/dev/null
        # summary.csv: bot,name,games,wins,win_rate,win_lo95,win_hi95,...; row 2 is the variant.
        echo "${pv%%=*},${pv#*=},$deals,$(awk -F, 'NR == 2 { print $3 "," $5 "," $6 "," $7 }' \
            "$dir/summary.csv"),$(awk -v n="$players" 'BEGIN { printf "%.4f", 1 / n }')" >>"$out"
    done
    echo "grid-$name: done" >&2
}
moves=(home=3 home=9 hangar=14 hangar=26 lane=2 lane=6 exposure=0.6 exposure=1.4 mover=0.4
    mover=0.6)
grid classic-2p classic 2 "$(scale 20000)" "${moves[@]}"
grid appfreegame-4p appfreegame 4 "$(scale 8000)" "${moves[@]}"
