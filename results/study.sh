#!/usr/bin/env bash
# The study of the three presets (results/README.md states its findings). Reruns all of it:
#   results/study.sh            (from the repository root or anywhere; see results/README.md for
#                                how long it takes)
# Every job is seeded, so a rerun writes the same files (timings aside: decision-time.txt).
# Each job folder under results/study/ holds run.json (the manifest that reproduces it), its
# CSVs and report.html.
#   STUDY_THREADS=N   worker threads (default: all cores; results do not depend on it)
#   STUDY_ROOT=DIR    write DIR/study/... instead of results/study/... (paths inside the files
#                     are relative to DIR, so the files are the same wherever they go)
#   STUDY_ONLY=ci     only the few jobs CI replays to check the committed files byte for byte
#                     (tests/integration/study.rs), and no summary tables
#   STUDY_QUICK=1     1% of the games and no benchmark (a smoke test of the script)
#   AEROPLANE=PATH    the binary to run (default: a release build of this checkout)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
threads="${STUDY_THREADS:-0}"
only="${STUDY_ONLY:-}"
quick="${STUDY_QUICK:-}"

if [[ -n "${AEROPLANE:-}" ]]; then
    bin="$(cd "$(dirname "$AEROPLANE")" && pwd)/$(basename "$AEROPLANE")"
else
    cargo build --release --locked -q
    bin="$repo/${CARGO_TARGET_DIR:-target}/release/aeroplane"
fi
# Everything below runs in the folder that holds study/, with relative paths.
base="${STUDY_ROOT:-$repo/results}"
mkdir -p "$base/study"
cd "$base"
root=study
job() { "$bin" "$@" --threads "$threads" --quiet --force --report >/dev/null; }
# In CI mode only the jobs named here run (their arguments are those of the full study).
wanted() { [[ -z "$only" ]] || [[ " appfreegame-2p-greedy classic-4p-greedy appfreegame/overshoot " == *" $1 "* ]]; }

presets=(appfreegame classic chinese)
start=$(date +%s)

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
summary() { [[ -z "$only" ]]; }

scale() { if [[ -n "$quick" ]]; then echo $(($1 / 100 > 2 ? $1 / 100 : 2)); else echo "$1"; fi; }

# 1. First-player advantage and game length: identical bots in every seat, so seat differences
#    are the seats' alone. 100,000 games per (preset, players) for random and greedy players,
#    30,000 for expectimax (a stronger player; a game costs some 200 times greedy's).
echo "first player: 3 presets x 2, 3, 4 players x random, greedy, expectimax" >&2
out=$root/first-player.csv
summary && echo "preset,players,bot,games,seat0_win,seat0_lo95,seat0_hi95,seat0_edge_points,chi2_p,turns_mean,turns_sd,turns_p5,turns_median,turns_p95,captures_per_game" >"$out"
for p in "${presets[@]}"; do
    for n in 2 3 4; do
        for b in random greedy expectimax; do
            games=$(scale 100000)
            [[ $b == expectimax ]] && games=$(scale 30000)
            wanted "$p-${n}p-$b" || continue
            bots=$(printf "$b,%.0s" $(seq "$n"))
            dir=$root/first-player/$p-${n}p-$b
            job run --rules "$p" --bots "${bots%,}" --games "$games" --seed 1 --out "$dir"
            summary || continue
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
#    identical players on shared seeds: greedy with 40,000 games per variant, expectimax with
#    4,000 (its figures have intervals about three times as wide).
echo "options: 3 presets x 9 options x greedy, expectimax" >&2
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
summary && echo "preset,bot,option,value,is_preset_value,games,seat0_win,seat0_lo95,seat0_hi95,max_seat_edge,chi2_p,chi2_p_holm,turns_mean,turns_median,turns_p95,captures_per_game" >"$out"
for b in greedy expectimax; do
    games=$(scale 40000)
    [[ $b == expectimax ]] && games=$(scale 4000)
    for p in "${presets[@]}"; do
        for o in "${options[@]}"; do
            # The greedy sweeps keep their folder names of earlier versions of this study.
            dir=$root/options/$p/$o
            [[ $b == expectimax ]] && dir=$root/options-expectimax/$p/$o
            wanted "$p/$o" && [[ $b == greedy ]] || [[ -z "$only" ]] || continue
            job sweep --rules "$p" --bots "$b,$b,$b,$b" --vary "$o=${values[$o]}" \
                --games "$games" --seed 2 --out "$dir"
            summary || continue
            own=$("$bin" rules "$p" | grep "^$o = " | sed 's/^[^=]*= //; s/[" ]//g')
            cols "$dir/sweep.csv" variant games seat0_win seat0_lo95 seat0_hi95 max_seat_edge chi2_p chi2_p_holm turns_mean turns_median turns_p95 captures_per_game |
                while IFS=$'\t' read -r variant rest; do
                    v=${variant#*=}
                    is=$([[ "$v" == "$own" ]] && echo yes || echo no)
                    [[ "$v" == *,* ]] && v="\"$v\""
                    echo "$p,$b,$o,$v,$is,${rest//$'\t'/,}"
                done >>"$out"
        done
    done
done

# 2b. Confirmation on fresh seeds: each preset against the single change that looked fairest
#     in step 2 (picked by reading options.csv; written out here so a rerun plays the same),
#     paired (--compare): does seat 0's win rate really move? Greedy 100,000 games, expectimax
#     20,000 (the change its own sweeps found fairest-looking).
if summary; then
    echo "confirm: 3 presets x their fairest-looking change, greedy and expectimax" >&2
    confirm() { job sweep --rules "$1" --bots "$2,$2,$2,$2" --vary "$3" --compare 1,2 \
        --games "$4" --seed 4 --out "$root/$5/$1"; }
    g=$(scale 100000)
    confirm appfreegame greedy 'launch_rolls=[6];[2,4,6]' "$g" confirm
    confirm classic greedy 'specials=jump_then_flight,one' "$g" confirm
    confirm chinese greedy 'launch_rolls=[6];[2,4,6]' "$g" confirm
    e=$(scale 20000)
    confirm appfreegame expectimax 'launch_rolls=[6];[5,6]' "$e" confirm-expectimax
    confirm classic expectimax 'specials=jump_then_flight,one' "$e" confirm-expectimax
    confirm chinese expectimax 'specials=both,one' "$e" confirm-expectimax
fi

# 3. The bot ladder: leagues per preset, 2 players (pool with mcts) and 4 players (mcts left
#    out: a 4-player mcts game costs ~0.3 s of CPU), seats rotated, Plackett-Luce ratings with
#    bootstrap intervals over deals. Then direct matches that the leagues are too small to
#    settle: expectimax-deep (3 plies) against expectimax (2 plies).
if summary; then
    echo "ladder: 3 presets x 2 and 4 players; expectimax-deep against expectimax" >&2
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
    out=$root/deep.csv
    echo "preset,players,games,pairs,score,score_lo95,score_hi95,elo,elo_lo95,elo_hi95,los,deep_win,deep_lo95,deep_hi95" >"$out"
    for p in "${presets[@]}"; do
        dir=$root/deep/$p-2p
        job run --rules "$p" --bots expectimax-deep,expectimax --rotate-seats --games "$(scale 1500)" --seed 5 --out "$dir"
        m=$(cols "$dir/match.csv" pairs score score_lo95 score_hi95 elo elo_lo95 elo_hi95 los | tr '\t' ,)
        w=$(cols "$dir/summary.csv" win_rate win_lo95 win_hi95 | head -1 | tr '\t' ,)
        echo "$p,2,$(cols "$dir/summary.csv" games | head -1),$m,$w" >>"$out"
        dir=$root/deep/$p-4p
        job run --rules "$p" --bots expectimax-deep,expectimax,expectimax,expectimax --rotate-seats \
            --games "$(scale 500)" --seed 5 --out "$dir"
        w=$(cols "$dir/summary.csv" win_rate win_lo95 win_hi95 | head -1 | tr '\t' ,)
        echo "$p,4,$(cols "$dir/summary.csv" games | head -1),,,,,,,,,$w" >>"$out"
    done
fi

# 4. What a stronger bot costs per decision: criterion's decision-time benchmark (medians on
#    fixed appfreegame midgame positions), shortened.
if summary && [[ -z "$quick" ]]; then
    echo "decision time: cargo bench --bench bots" >&2
    (cd "$repo" && cargo bench --locked -q --bench bots -- --warm-up-time 1 --measurement-time 2 --noplot 2>/dev/null) |
        awk '/^decision_/ { name = $1 } /time:/ { sub(/.*time: */, ""); print name, $0 }' >"$root/decision-time.txt"
fi

echo "study done in $(($(date +%s) - start)) s; see $base/$root/ and results/README.md" >&2
