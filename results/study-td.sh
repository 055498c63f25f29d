#!/usr/bin/env bash
# The balance questions of the study (results/study.sh, results/README.md) asked again with the
# learned player in every seat: the shipped td nets at ply 0 (bots/td-PRESET-Np.toml).
# results/study-td/README.md states the findings beside the greedy and expectimax answers.
#   results/study-td.sh          (from anywhere)
# 1. first-player advantage per preset with 2 and 4 players (no 3-player nets are shipped);
# 2. the option sweeps with four td players: the preset's 4-player net with any_rules=true
#    (the nets are trained on the preset's own rules: a variant is played by a net that never
#    saw it; home_lane_cells changes the net's inputs and cannot be played at all);
# 3. the fairest-looking change of the td sweeps (picked here, by the smallest largest seat
#    edge among the changes) replayed on fresh dice, paired with the preset's own rules.
# Every job is seeded, so a rerun writes the same files.
#   STUDY_THREADS=N   worker threads (default: all cores; results do not depend on it)
#   STUDY_QUICK=1     1% of the games (a smoke test of the script)
#   STUDY_STEP=3      step 3 alone (from the committed options.csv)
#   AEROPLANE=PATH    the binary to run (default: a release build of this checkout)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
threads="${STUDY_THREADS:-0}"
quick="${STUDY_QUICK:-}"
if [[ -n "${AEROPLANE:-}" ]]; then
    bin="$(cd "$(dirname "$AEROPLANE")" && pwd)/$(basename "$AEROPLANE")"
else
    cargo build --release --locked -q
    bin="$repo/${CARGO_TARGET_DIR:-target}/release/aeroplane"
fi
cd "$repo/results"
root=study-td
mkdir -p "$root"
job() { "$bin" "$@" --threads "$threads" --quiet --force --report >/dev/null; }
scale() { if [[ -n "$quick" ]]; then echo $(($1 / 100 > 2 ? $1 / 100 : 2)); else echo "$1"; fi; }
presets=(appfreegame classic chinese)
start=$(date +%s)

# The named columns of a CSV file's rows, tab-separated (a quoted field may hold commas).
cols() {
    local file=$1
    shift
    awk -v want="$*" '
        function parse(line,   i, c, q, f) {
            nf = 0; f = ""; q = 0
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (c == "\"") { q = !q } else if (c == "," && !q) { field[++nf] = f; f = "" } else { f = f c }
            }
            field[++nf] = f
        }
        NR == 1 { n = split(want, w, " "); parse($0); for (i = 1; i <= nf; i++) idx[field[i]] = i; next }
        { parse($0); line = ""; for (k = 1; k <= n; k++) line = line (k > 1 ? "\t" : "") field[idx[w[k]]]; print line }' "$file"
}

# STUDY_STEP=3 runs step 3 alone (from the committed options.csv).
step="${STUDY_STEP:-}"

# 1. First-player advantage: the same td player in every seat, seed 1 (as the study's).
if [[ -z "$step" ]]; then
games_2p=$(scale 100000)
games_4p=$(scale 100000)
echo "first player: 3 presets x 2 and 4 players, td ply 0" >&2
out=$root/first-player.csv
echo "preset,players,bot,games,seat0_win,seat0_lo95,seat0_hi95,seat0_edge_points,chi2_p,turns_mean,turns_sd,turns_p5,turns_median,turns_p95,captures_per_game" >"$out"
for p in "${presets[@]}"; do
    for n in 2 4; do
        b=td-$p-${n}p
        games=$games_2p
        [[ $n == 4 ]] && games=$games_4p
        bots=$(printf "$b,%.0s" $(seq "$n"))
        dir=$root/first-player/$p-${n}p
        job run --rules "$p" --bots "${bots%,}" --games "$games" --seed 1 --out "$dir"
        IFS=$'\t' read -r g w lo hi pv < <(cols "$dir/seats.csv" games win_rate win_lo95 win_hi95 p_all_equal | head -1)
        turns=$(cols "$dir/length_stats.csv" measure mean sd p5 median p95 | grep '^turns' | cut -f2- | tr '\t' ,)
        caps=$(cols "$dir/events.csv" event per_game | grep '^captures' | cut -f2)
        edge=$(awk -v w="$w" -v n="$n" 'BEGIN { printf "%.2f", 100 * (w - 1 / n) }')
        echo "$p,$n,$b,$g,$w,$lo,$hi,$edge,$pv,$turns,$caps" >>"$out"
    done
done

fi

# 2. One sweep per option, four td players, shared seeds (seed 2, as the study's).
if [[ -z "$step" ]]; then
games_sw=$(scale 20000)
echo "options: 3 presets x 8 options, td ply 0 (any_rules=true)" >&2
declare -A values=(
    [launch_rolls]='[6];[5,6];[2,4,6]'
    [overshoot]='illegal,bounce'
    [specials]='one,jump_then_flight,both'
    [flight_optional]='false,true'
    [flight_captures_crossed]='false,true'
    [three_sixes]='none,last_moved,all_moved'
    [stacking]='none,move_together'
    [end]='first_finisher,full_ranking'
)
options=(launch_rolls overshoot specials flight_optional flight_captures_crossed three_sixes stacking end)
out=$root/options.csv
echo "preset,bot,option,value,is_preset_value,games,seat0_win,seat0_lo95,seat0_hi95,max_seat_edge,chi2_p,chi2_p_holm,turns_mean,turns_median,turns_p95,captures_per_game" >"$out"
for p in "${presets[@]}"; do
    b="td-$p-4p:any_rules=true"
    for o in "${options[@]}"; do
        dir=$root/options/$p/$o
        job sweep --rules "$p" --bots "$b,$b,$b,$b" --vary "$o=${values[$o]}" \
            --games "$games_sw" --seed 2 --out "$dir"
        own=$("$bin" rules "$p" | grep "^$o = " | sed 's/^[^=]*= //; s/[" ]//g')
        cols "$dir/sweep.csv" variant games seat0_win seat0_lo95 seat0_hi95 max_seat_edge chi2_p chi2_p_holm turns_mean turns_median turns_p95 captures_per_game |
            while IFS=$'\t' read -r variant rest; do
                v=${variant#*=}
                is=$([[ "$v" == "$own" ]] && echo yes || echo no)
                [[ "$v" == *,* ]] && v="\"$v\""
                echo "$p,td-$p-4p,$o,$v,$is,${rest//$'\t'/,}"
            done >>"$out"
    done
done

fi

# 3. The fairest-looking change per preset (smallest largest seat edge among the changes;
#    ties: the first in options.csv) on fresh dice (seed 4), paired with the preset's rules.
#    A change that leaves every game's winner as it was (the seat figures of the preset's own
#    rules in its sweep, e.g. `end`: the first to finish wins either way) is no change to
#    fairness and is not picked.
games_cf=$(scale 50000)
echo "confirm: 3 presets x the td sweeps' fairest-looking change" >&2
out=$root/confirm.csv
echo "preset,change,games,seat0_own,seat0_changed,diff,diff_lo95,diff_hi95,p" >"$out"
for p in "${presets[@]}"; do
    IFS=$'\t' read -r o v < <(cols "$root/options.csv" preset option value is_preset_value seat0_win max_seat_edge chi2_p |
        awk -F'\t' -v p="$p" '$1 != p { next }
            { row[NR] = $0; if ($4 == "yes") own[$2] = $5 "\t" $6 "\t" $7 }
            END { for (i = 1; i <= NR; i++) { if (!(i in row)) continue; split(row[i], f, "\t")
                      if (f[4] != "no" || f[5] "\t" f[6] "\t" f[7] == own[f[2]]) continue
                      if (best == "" || f[6] + 0 < best + 0) { best = f[6]; pick = f[2] "\t" f[3] } }
                  print pick }')
    own=$("$bin" rules "$p" | grep "^$o = " | sed 's/^[^=]*= //; s/[" ]//g')
    b="td-$p-4p:any_rules=true"
    dir=$root/confirm/$p
    sep=","
    [[ $o == launch_rolls ]] && sep=";"
    job sweep --rules "$p" --bots "$b,$b,$b,$b" --vary "$o=$own$sep$v" --compare 1,2 \
        --games "$games_cf" --seed 4 --out "$dir"
    IFS=$'\t' read -r ma mb d lo hi pv n < <(cols "$dir/compare.csv" metric mean_a mean_b diff diff_lo95 diff_hi95 p deals | grep '^seat0_win' | cut -f2-)
    echo "$p,\"$o=$own -> $v\",$n,$ma,$mb,$d,$lo,$hi,$pv" >>"$out"
done
echo "study-td done in $(($(date +%s) - start)) s; see results/$root/" >&2
