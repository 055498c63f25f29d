#!/usr/bin/env bash
# Perfect play in the small variants (results/solve/README.md states the findings). Reruns all:
#   results/solve/study.sh        (from anywhere; about an hour on the shared 2-core VM)
# 1. solves the three presets with 1 and 2 planes per seat (two players), timed, with peak
#    memory; 2. plays perfect play against itself, 1,000,000 games per variant, against the exact
#    value; 3. grades the bots against perfect play on the two-plane variants; 4. runs an SPRT of
#    every bot against perfect play (H1: the bot is 20 Elo stronger).
# Every job is seeded: a rerun writes the same tables and CSVs (timings aside).
# STUDY_THREADS=N sets worker threads (default: all cores; results do not depend on it).
# STUDY_QUICK=1 plays 1% of the games (a smoke test of the script).
# STUDY_ONLY=solve|selfplay|grade|sprt runs that step alone (the later ones on the tables that
# step 1 wrote), e.g. to draw the grades again after a change to their intervals.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=results/solve
threads="${STUDY_THREADS:-0}"
quick="${STUDY_QUICK:-}"
only="${STUDY_ONLY:-}"
step() { [[ -z "$only" || "$only" == "$1" ]]; }
scale() { if [[ -n "$quick" ]]; then echo $(($1 / 100 > 2 ? $1 / 100 : 2)); else echo "$1"; fi; }

cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
presets=(appfreegame classic chinese)
mkdir -p "$root"

# CSV helper: prints the named columns of a CSV file's rows, tab-separated.
cols() {
    local file=$1
    shift
    awk -F, -v want="$*" '
        NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) idx[$i] = i; next }
        { line = ""; for (k = 1; k <= n; k++) line = line (k > 1 ? "\t" : "") $idx[w[k]]; print line }' "$file"
}
# A number from solve.json: json FILE KEY.PATH
json() { python3 -c "import json,sys; v=json.load(open(sys.argv[1])); [v := v[k] for k in sys.argv[2].split('.')]; print(v)" "$1" "$2"; }

# 1. Solve. The tables (table.bin, 18-92 MB) are not committed: this step writes them again.
if step solve; then
out=$root/values.csv
echo "preset,planes,positions,configurations,indexed,chance_nodes,decision_nodes,choice_nodes,sweeps,last_change,residual,check_residual,first_player_win,first_player_equity,seconds,peak_mib,load_average,table_bytes,table_checksum" >"$out"
for p in "${presets[@]}"; do
    for n in 1 2; do
        dir=$root/tables/$p-$n
        echo "solve: $p, $n plane(s)" >&2
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -f "%e %M" -o "$root/.time" "$bin" solve --rules "$p" --planes "$n" --out "$dir" --force -q >/dev/null
        read -r secs kib <"$root/.time"
        s=$dir/solve.json
        echo "$p,$n,$(json "$s" states.positions),$(json "$s" states.configurations),$(json "$s" states.indexed),$(json "$s" states.chance),$(json "$s" states.decision),$(json "$s" states.choice),$(json "$s" sweeps),$(json "$s" results.last_change),$(json "$s" results.residual),$(json "$s" results.check.largest_residual),$(json "$s" results.first_player_win_probability),$(json "$s" results.first_player_equity),$secs,$((kib / 1024)),$load,$(json "$s" results.table.bytes),$(json "$s" results.table.checksum)" >>"$out"
    done
done
rm -f "$root/.time"
fi

# 2. Perfect play against itself, seats not rotated: seat 0's win rate against the exact value.
if step selfplay; then
games_sp=$(scale 1000000)
out=$root/selfplay.csv
echo "preset,planes,games,exact_first_player_win,seat0_win_rate,seat0_lo95,seat0_hi95,inside_interval,unfinished" >"$out"
for p in "${presets[@]}"; do
    for n in 1 2; do
        t=$root/tables/$p-$n
        dir=$root/selfplay/$p-$n
        echo "self-play: $p, $n plane(s), $games_sp games" >&2
        "$bin" run --rules "$t/rules.toml" --bots "exact:table=$t,exact:table=$t" --games "$games_sp" \
            --seed 1 --threads "$threads" --out "$dir" --force --report -q >/dev/null
        exact=$(json "$t/solve.json" results.first_player_win_probability)
        IFS=$'\t' read -r g w lo hi < <(cols "$dir/seats.csv" games win_rate win_lo95 win_hi95 | head -1)
        inside=$(awk -v e="$exact" -v lo="$lo" -v hi="$hi" 'BEGIN { print (lo <= e && e <= hi) ? "yes" : "no" }')
        unf=$(cols "$dir/events.csv" event total | awk -F'\t' '$1 == "unfinished" { print $2 }')
        echo "$p,$n,$g,$exact,$w,$lo,$hi,$inside,$unf" >>"$out"
    done
done
fi

# 3. Grades against perfect play, two planes: every bot kind, expectimax at depths 1 to 6, mcts
#    (its profile: tuned weights, max backups) at growing iterations.
if step grade; then
deals_gr=$(scale 500)
bots="random,greedy,expectimax:depth=1,expectimax:depth=2,expectimax:depth=3,expectimax:depth=4,expectimax:depth=5,expectimax:depth=6,montecarlo,mcts:iterations=100,mcts:iterations=400,mcts:iterations=1600,mcts,mcts:iterations=6400"
out=$root/grades.csv
first=1
for p in "${presets[@]}"; do
    dir=$root/grade/$p-2
    echo "grade: $p, 2 planes, $deals_gr deals per bot" >&2
    "$bin" grade --table "$root/tables/$p-2" --bots "$bots" --games "$deals_gr" --seed 1 \
        --threads "$threads" --out "$dir" --force --report -q >/dev/null
    if [[ -n "$first" ]]; then
        echo "preset,$(head -1 "$dir/grade.csv")" >"$out"
        first=
    fi
    tail -n +2 "$dir/grade.csv" | sed "s/^/$p,/" >>"$out"
done
fi

# 4. Can any bot beat perfect play? An SPRT of each bot against exact, H0: no stronger, H1: 20 Elo
#    stronger, on the two-plane variants; at most 20,000 deals (40,000 games).
if step sprt; then
deals_sprt=$(scale 20000)
out=$root/sprt.csv
echo "preset,bot,result,games,llr,lower,upper,elo,elo_lo95,elo_hi95" >"$out"
for p in "${presets[@]}"; do
    t=$root/tables/$p-2
    for b in random greedy expectimax expectimax-deep montecarlo mcts; do
        dir=$root/sprt/$p-2-$b
        echo "sprt: $b against exact, $p, 2 planes" >&2
        "$bin" run --rules "$t/rules.toml" --bots "$b,exact:table=$t" --sprt elo0=0,elo1=20 \
            --games "$deals_sprt" --seed 1 --threads "$threads" --out "$dir" --force --report -q >/dev/null
        python3 - "$dir/summary.json" "$p" "$b" >>"$out" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["report"]
s = r["sprt"]
e = s.get("elo") or {}
print(",".join(str(x) for x in [sys.argv[2], sys.argv[3], s.get("verdict"), r["run"]["summary"]["games"],
      round(s["llr"], 4), round(s["lower"], 4), round(s["upper"], 4),
      round(e.get("elo", float("nan")), 1), round(e.get("low", float("nan")), 1), round(e.get("high", float("nan")), 1)]))
EOF
    done
done
fi
echo "done: $root" >&2
