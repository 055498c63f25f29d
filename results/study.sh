#!/usr/bin/env bash
# The study of the three presets (results/README.md states its findings). Reruns all of it:
#   results/study.sh            (from the repository root or anywhere; ~6-10 minutes on 2 cores)
# Every job is seeded, so a rerun writes the same CSVs (timings aside). Each job folder under
# results/study/ holds run.json (the manifest that reproduces it), its CSVs and report.html.
# STUDY_THREADS=N sets worker threads (default: all cores; results do not depend on it).
# STUDY_QUICK=1 plays 1% of the games and skips the benchmark (a smoke test of the script).
set -euo pipefail
cd "$(dirname "$0")/.."
root=results/study
threads="${STUDY_THREADS:-0}"

cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
job() { "$bin" "$@" --threads "$threads" --quiet --force --report >/dev/null; }

presets=(appfreegame classic chinese)
start=$(date +%s)
mkdir -p "$root"

# CSV helper: prints the named columns of a CSV file's rows, tab-separated (portable awk; a
# quoted field may hold commas).
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

# 1. First-player advantage and game length: identical bots in every seat, so seat differences
#    are the seats' alone. 100,000 games per (preset, players, bot).
quick="${STUDY_QUICK:-}"
scale() { if [[ -n "$quick" ]]; then echo $(($1 / 100 > 2 ? $1 / 100 : 2)); else echo "$1"; fi; }
games_fp=$(scale 100000)
echo "first player: 3 presets x 2, 3, 4 players x random, greedy ($games_fp games each)" >&2
out=$root/first-player.csv
echo "preset,players,bot,games,seat0_win,seat0_lo95,seat0_hi95,seat0_edge_points,chi2_p,turns_mean,turns_sd,turns_p5,turns_median,turns_p95,captures_per_game" >"$out"
for p in "${presets[@]}"; do
    for n in 2 3 4; do
        for b in random greedy; do
            bots=$(printf "$b,%.0s" $(seq "$n"))
            dir=$root/first-player/$p-${n}p-$b
            job run --rules "$p" --bots "${bots%,}" --games "$games_fp" --seed 1 --out "$dir"
            IFS=$'\t' read -r g w lo hi pv < <(cols "$dir/seats.csv" games win_rate win_lo95 win_hi95 p_all_equal | head -1)
            turns=$(cols "$dir/length_stats.csv" measure mean sd p5 median p95 | grep '^turns' | cut -f2- | tr '\t' ,)
            caps=$(cols "$dir/events.csv" event per_game | grep '^captures' | cut -f2)
            edge=$(awk -v w="$w" -v n="$n" 'BEGIN { printf "%.2f", 100 * (w - 1 / n) }')
            echo "$p,$n,$b,$g,$w,$lo,$hi,$edge,$pv,$turns,$caps" >>"$out"
        done
    done
done

# 2. Which single option change makes each preset fairest (and what drives length): for each
#    preset, one sweep per option over its values (the preset's own value included), four
#    greedy players, 40,000 games per variant on shared seeds.
games_sw=$(scale 40000)
echo "options: 3 presets x 9 options ($games_sw games per variant)" >&2
declare -A values=(
    [launch_rolls]='[6];[5,6];[2,4,6]'
    [home_lane_cells]='4,5,6'
    [overshoot]='illegal,bounce'
    [specials]='one,jump_then_flight,both'
    [flight_optional]='false,true'
    [flight_captures_crossed]='false,true'
    [three_sixes]='none,last_moved,all_moved'
    [stacking]='none,move_together'
    [end]='first_finisher,full_ranking'
)
options=(launch_rolls home_lane_cells overshoot specials flight_optional flight_captures_crossed three_sixes stacking end)
out=$root/options.csv
echo "preset,option,value,is_preset_value,games,seat0_win,seat0_lo95,seat0_hi95,max_seat_edge,chi2_p,turns_mean,turns_median,turns_p95,captures_per_game" >"$out"
for p in "${presets[@]}"; do
    for o in "${options[@]}"; do
        dir=$root/options/$p/$o
        job sweep --rules "$p" --bots greedy,greedy,greedy,greedy --vary "$o=${values[$o]}" \
            --games "$games_sw" --seed 2 --out "$dir"
        own=$("$bin" rules "$p" | grep "^$o = " | sed 's/^[^=]*= //; s/[" ]//g')
        cols "$dir/sweep.csv" variant games seat0_win seat0_lo95 seat0_hi95 max_seat_edge chi2_p turns_mean turns_median turns_p95 captures_per_game |
            while IFS=$'\t' read -r variant rest; do
                v=${variant#*=}
                is=$([[ "$v" == "$own" ]] && echo yes || echo no)
                [[ "$v" == *,* ]] && v="\"$v\""
                echo "$p,$o,$v,$is,${rest//$'\t'/,}"
            done >>"$out"
    done
done

# 2b. Confirmation on fresh seeds: each preset against the single change that looked fairest in
#     step 2 (picked from its options.csv), 100,000 games each, paired (--compare): does seat 0's
#     win rate really move?
games_cf=$(scale 100000)
echo "confirm: 3 presets x their fairest-looking change ($games_cf games each, paired)" >&2
confirm() { job sweep --rules "$1" --bots greedy,greedy,greedy,greedy --vary "$2" --compare "$3" \
    --games "$games_cf" --seed 4 --out "$root/confirm/$1"; }
confirm appfreegame 'launch_rolls=[6];[2,4,6]' 1,2
confirm classic 'specials=jump_then_flight,one' 1,2
confirm chinese 'launch_rolls=[6];[2,4,6]' 1,2

# 3. The bot ladder: leagues per preset, 2 players (pool with mcts) and 4 players (mcts left
#    out: a 4-player mcts game costs ~0.3 s of CPU), seats rotated, Plackett-Luce ratings with
#    bootstrap intervals.
echo "ladder: 3 presets x 2 and 4 players" >&2
for p in "${presets[@]}"; do
    job league --rules "$p" --players 2 --bots random,greedy,expectimax,expectimax-deep,montecarlo,mcts \
        --games "$(scale 100)" --seed 3 --bootstrap 200 --out "$root/ladder/$p-2p"
    job league --rules "$p" --players 4 --bots random,greedy,expectimax,expectimax-deep,montecarlo \
        --games "$(scale 60)" --seed 3 --bootstrap 200 --out "$root/ladder/$p-4p"
done
out=$root/ladder.csv
echo "preset,players,rank,bot,rating,rating_lo95,rating_hi95,games,win_rate" >"$out"
for d in "$root"/ladder/*; do
    name=$(basename "$d")
    players=${name##*-}
    cols "$d/league.csv" rank bot rating rating_lo95 rating_hi95 games win_rate | tr '\t' , |
        sed "s/^/${name%-*},${players%p},/" >>"$out"
done

# 4. What a stronger bot costs per decision: criterion's decision-time benchmark (medians on
#    fixed appfreegame midgame positions), shortened.
echo "decision time: cargo bench --bench bots" >&2
if [[ -z "$quick" ]]; then
    cargo bench --locked -q --bench bots -- --warm-up-time 1 --measurement-time 2 --noplot 2>/dev/null |
        awk '/^decision_/ { name = $1 } /time:/ { sub(/.*time: */, ""); print name, $0 }' >"$root/decision-time.txt"
fi

echo "study done in $(($(date +%s) - start)) s; see $root/ and results/README.md" >&2
