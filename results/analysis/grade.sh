#!/usr/bin/env bash
# Is a td net a good enough reference to grade bots where no exact table exists?
# (results/analysis/README.md states the findings.) On the three solved two-plane variants,
# every bot of the ladder is graded against the net's 2-ply search (td-PRESET-2planes,
# `aeroplane grade --net ... --ply 2`), and the figures are put beside the exact grades of
# results/solve/grades.csv and results/td/grades.csv (same bots, other deals and opponent).
# Then the full game: the bots graded against the 2-player nets at ply 2.
#   results/analysis/grade.sh        (from anywhere)
#   PLIES="0 1" ONLY=solved results/analysis/grade.sh   (step 1 against the net's 0- and 1-ply
#                                    search: net-vs-exact-plyN.csv, solved/PRESET-2-plyN/)
# Every job is seeded: a rerun writes the same files.
# STUDY_THREADS=N sets worker threads (default: all cores; results do not depend on it).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=results/analysis
threads="${STUDY_THREADS:-0}"
# AEROPLANE_BIN=PATH runs a release binary built already (no build here).
bin="${AEROPLANE_BIN:-}"
if [[ -z "$bin" ]]; then
    cargo build --release --locked -q
    bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
fi
presets=(appfreegame classic chinese)
deals="${GRADE_DEALS:-500}"
ladder="random,greedy,expectimax:depth=1,expectimax:depth=2,expectimax:depth=3,expectimax:depth=4,montecarlo,mcts:iterations=100,mcts:iterations=400,mcts:iterations=1600"

# CSV helper: the named columns of a CSV file's rows, tab-separated (no quoted commas here).
cols() {
    local file=$1
    shift
    awk -F, -v want="$*" '
        NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) idx[$i] = i; next }
        { line = ""; for (k = 1; k <= n; k++) line = line (k > 1 ? "\t" : "") $idx[w[k]]; print line }' "$file"
}

# 1. The net-based grade on the solved variants, beside the exact grade (ONLY=full skips it;
#    PLIES lists the net's search depths, 2 by default, the depth `grade --net` uses).
if [[ "${ONLY:-}" != full ]]; then
for ply in ${PLIES:-2}; do
suffix=$([[ $ply == 2 ]] || echo "-ply$ply")
out=$root/net-vs-exact$suffix.csv
echo "preset,bot,exact_loss_mp,exact_lo95,exact_hi95,exact_error_rate,exact_rating,net_loss_mp,net_lo95,net_hi95,net_error_rate,net_rating,exact_rank,net_rank" >"$out"
for p in "${presets[@]}"; do
    net=bots/nets/td-$p-2planes.safetensors
    td="td:net=$net"
    dir=$root/solved/$p-2$suffix
    echo "net grade: $p, 2 planes, ply $ply, $deals deals per bot" >&2
    "$bin" grade --net "$net" --ply "$ply" --rules "results/solve/tables/$p-2/rules.toml" \
        --bots "$ladder,$td,$td:ply=1" --games "$deals" --seed 1 --threads "$threads" \
        --out "$dir" --force --report -q >/dev/null
    # The exact figures of the same bots (the solve study's and the td study's grades).
    tmp=$(mktemp)
    for b in ${ladder//,/ } "$td" "$td:ply=1"; do
        e=$( { cols results/solve/grades.csv preset name loss_mp_per_decision loss_mp_per_decision_lo95 loss_mp_per_decision_hi95 error_rate
               cols results/td/grades.csv preset name loss_mp_per_decision loss_mp_per_decision_lo95 loss_mp_per_decision_hi95 error_rate; } |
            awk -F'\t' -v p="$p" -v b="$b" '$1 == p && $2 == b { print $3 "\t" $4 "\t" $5 "\t" $6; exit }')
        n=$(cols "$dir/grade.csv" name loss_mp_per_decision loss_mp_per_decision_lo95 loss_mp_per_decision_hi95 error_rate rating |
            awk -F'\t' -v b="$b" '$1 == b { print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6; exit }')
        IFS=$'\t' read -r el elo ehi eer <<<"$e"
        IFS=$'\t' read -r nl nlo nhi ner nr <<<"$n"
        # The exact grade's rating label (the scale of src/grade/rating.rs).
        er=$(awk -v x="$el" 'BEGIN { split("1 2.5 5 12 22 35", b, " "); split("supernatural,world class,expert,advanced,intermediate,beginner", n, ","); for (i = 1; i <= 6; i++) if (x <= b[i]) { print n[i]; exit } print "awful" }')
        echo "$p,$b,$el,$elo,$ehi,$eer,$er,$nl,$nlo,$nhi,$ner,$nr" >>"$tmp"
    done
    # Ranks by loss per decision (1 = least), exact and net.
    sort -t, -k3,3g "$tmp" | awk -F, '{ print $0 "," NR }' | sort -t, -k8,8g | awk -F, '{ print $0 "," NR }' |
        sort -t, -k13,13n >>"$out"
    rm -f "$tmp"
done
done
fi

[[ "${ONLY:-}" == solved ]] && { echo "done: $root" >&2; exit 0; }

# 2. The full game (four planes, two players): a shorter ladder (a full game costs the deeper
#    searches several times a two-plane game) graded against the 2-player nets at ply 2.
full_deals="${FULL_DEALS:-150}"
full_ladder="random,greedy,expectimax:depth=1,expectimax:depth=2,montecarlo,mcts:iterations=400"
out=$root/full-game.csv
first=1
for p in "${presets[@]}"; do
    net=bots/nets/td-$p-2p.safetensors
    td="td:net=$net"
    dir=$root/full/$p-2p
    echo "net grade: $p, full game, $full_deals deals per bot" >&2
    "$bin" grade --net "$net" --ply 2 --bots "$full_ladder,$td,$td:ply=1" --games "$full_deals" --seed 1 \
        --threads "$threads" --out "$dir" --force --report -q >/dev/null
    if [[ -n "$first" ]]; then
        sed -n 1p "$dir/grade.csv" | sed 's/^/preset,/' >"$out"
        first=
    fi
    sed 1d "$dir/grade.csv" | sed "s/^/$p,/" >>"$out"
done
echo "done: $root" >&2
