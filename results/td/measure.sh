#!/usr/bin/env bash
# The measured strength and cost of the shipped td nets (results/td/README.md states them):
#   results/td/measure.sh [grade] [cost] [cost-self] [match2] [sprt4] [fixed2] [fixed4] [match4] [league] [speed]
#   (default: all)
# grade: `aeroplane grade` of td at ply 0, 1, 2 on the solved two-plane variants, on the deals of
#        results/solve/grades.csv (500 deals, seed 1; the tables are solved first if missing);
# cost:  `aeroplane bench --bots` of td at ply 0, 1, 2 and expectimax depth 2 (CPU per game);
# cost-self: CPU per game of td at ply 0 and of expectimax depth 2 each in every seat (the proxy
#        of a balance study), `aeroplane bench --bots B,B[,B,B]` run in alternating pairs
#        (TD_SELF_PAIRS, 5; TD_SELF_GAMES, 10,000), CPU of `/usr/bin/time` (the bench's warm-up run
#        and its measured run: twice the games), their ratio and the load: costs-self.txt; with
#        valgrind, each lineup's instructions for 300 games (the same command) after them;
# match2, match4: an SPRT (elo0=0, elo1=10, seats rotated) of td against expectimax-deep and mcts at two
#        players, and four-player runs of td against three copies of each, per preset;
# sprt4: the four-player SPRT (elo0=0, elo1=10) of td against three copies of each, per preset;
# fixed2, fixed4: fixed-sample matches of td (ply 1) against the same opponents as match2 and
#        sprt4, for strength figures free of the SPRT's stopping bias: fresh dice (seed
#        TD_FIXED_SEED, 2026; the SPRTs used seed 1), seats rotated, TD_FIXED_PAIRS deals (2,000;
#        TD_FIXED_PAIRS_MCTS for mcts, 2,000 at two players, TD_FIXED_DEALS_4P_MCTS, 200, at four;
#        TD_FIXED_DEALS_4P, 1,000, against expectimax-deep). Two players: a plain `run
#        --rotate-seats` (a deal's pair of games the unit), its match.csv's Elo (pentanomial,
#        normal interval): fixed2.csv. Four players: the same group score as sprt4 (each deal
#        played with td in every seat) from `run --sprt elo0=0,elo1=0.001` with --max-games the
#        deals: a test that cannot stop (its log-likelihood ratio moves by about 1e-4 of the
#        way to a bound per deal), so it plays every deal and its Elo is a fixed-sample
#        estimate: fixed4.csv (the script checks that no verdict was reached);
# league: `aeroplane league` of random, greedy, expectimax, expectimax-deep, montecarlo, mcts and td
#        at ply 0, 1, 2 per preset and player count (TD_LEAGUE_DEALS_2P, _4P deals per table),
#        with each bot's CPU per decision beside it (self-play, `/usr/bin/time`; the decisions
#        counted in a decision log of the same games): results/td/league-<preset>-<n>p.csv;
# speed: self-play training throughput (games per CPU second, wall) on 1 and 2 threads.
# Every job is seeded: a rerun gives the same tables (timings aside).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=results/td
threads="${TD_THREADS:-0}"
[[ -n "${TD_NO_BUILD:-}" ]] || cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(grade cost cost-self match2 sprt4 fixed2 fixed4 match4 league speed)
want() { [[ " ${parts[*]} " == *" $1 "* ]]; }
read -r -a presets <<<"${TD_PRESETS:-appfreegame classic chinese}"

if want grade; then
    out=$root/grades.csv
    first=1
    for p in "${presets[@]}"; do
        t=results/solve/tables/$p-2
        if [[ ! -f $t/table.bin ]]; then
            "$bin" solve --rules "$p" --planes 2 --out "$t" --force -q >/dev/null
        fi
        net=bots/nets/td-$p-2planes.safetensors
        dir=$root/grade/$p-2
        echo "grade: td on $p, 2 planes" >&2
        "$bin" grade --table "$t" --bots "td:net=$net,td:net=$net:ply=1,td:net=$net:ply=2" \
            --games 500 --seed 1 --threads "$threads" --out "$dir" --force --report -q >/dev/null
        if [[ -n "$first" ]]; then
            echo "preset,$(head -1 "$dir/grade.csv")" >"$out"
            first=
        fi
        tail -n +2 "$dir/grade.csv" | sed "s/^/$p,/" >>"$out"
    done
fi

if want cost; then
    out=$root/costs.txt
    [[ -n "${TD_COST_APPEND:-}" ]] || : >"$out"
    for p in "${presets[@]}"; do
        for n in ${TD_COST_PLAYERS:-2 4}; do
            others=$(printf ',greedy%.0s' $(seq 2 $n))
            for b in "td-$p-${n}p" "td-$p-${n}p:ply=1" "td-$p-${n}p:ply=2" "expectimax:depth=2" "greedy"; do
                games=2000
                [[ $b == *ply=2* ]] && games=200
                [[ $n == 4 && $b == *ply=* ]] && games=$((games / 4))
                echo "cost: $b on $p, $n players" >&2
                echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
                "$bin" bench --rules "$p" --bots "$b$others" --games "$games" --threads 1 --runs 3 | tail -1 >>"$out"
            done
        done
    done
fi

if want cost-self; then
    out=$root/costs-self.txt
    pairs="${TD_SELF_PAIRS:-5}"
    games="${TD_SELF_GAMES:-10000}"
    echo "# preset players load td_cpu_s expectimax_cpu_s ratio: /usr/bin/time of aeroplane bench --rules P --bots B,B[,B,B] --games $games --threads 1 --runs 1 (warm-up and measured run: $((2 * games)) games), td-P-Np then expectimax:depth=2 in every seat" >"$out"
    cpu() { { /usr/bin/time -f "%U %S" "$bin" bench "$@" >/dev/null; } 2>&1 | tail -1 | awk '{printf "%.2f", $1 + $2}'; }
    for p in "${presets[@]}"; do
        for n in 2 4; do
            td=$(printf "td-$p-${n}p,%.0s" $(seq 1 $n))
            ex=$(printf "expectimax:depth=2,%.0s" $(seq 1 $n))
            for _ in $(seq 1 "$pairs"); do
                echo "cost-self: $p, $n players" >&2
                load=$(cut -d' ' -f1 /proc/loadavg)
                a=$(cpu --rules "$p" --bots "${td%,}" --games "$games" --threads 1 --runs 1)
                b=$(cpu --rules "$p" --bots "${ex%,}" --games "$games" --threads 1 --runs 1)
                echo "$p $n $load $a $b $(python3 -c "print(f'{$a / $b:.3f}')")" >>"$out"
            done
        done
    done
    if command -v valgrind >/dev/null; then
        echo "# preset players lineup instructions: valgrind --tool=callgrind aeroplane bench --rules P --bots LINEUP --games 300 --threads 1 --runs 1 (whole process)" >>"$out"
        for p in "${presets[@]}"; do
            for n in 2 4; do
                for b in "td-$p-${n}p" "expectimax:depth=2"; do
                    lineup=$(printf "$b,%.0s" $(seq 1 $n))
                    c=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" bench --rules "$p" \
                        --bots "${lineup%,}" --games 300 --threads 1 --runs 1 2>&1 | grep 'refs' | awk '{print $NF}' | tr -d ,)
                    echo "$p $n ${lineup%,} $c" >>"$out"
                done
            done
        done
    fi
fi

if want match2; then
    out=$root/matches.csv
    echo "preset,players,td,opponent,games,score,elo,elo_lo95,elo_hi95,llr,verdict" >"$out"
    for p in "${presets[@]}"; do
        for o in expectimax-deep mcts; do
            td=td-$p-2p:ply=1
            dir=$root/match/$p-2p-$o
            echo "sprt: $td against $o, $p" >&2
            "$bin" run --rules "$p" --bots "$td,$o" --sprt elo0=0,elo1=10 --max-games 20000 \
                --seed 1 --threads "$threads" --out "$dir" --force -q >/dev/null || true
            python3 - "$dir" "$p" "$td" "$o" >>"$out" <<'PY'
import json, sys
d, p, td, o = sys.argv[1:]
r = json.load(open(f"{d}/summary.json"))["report"]
s = r["sprt"]
e = s["elo"]
print(f"{p},2,{td},{o},{2 * s['groups']},{s['score']:.4f},{e['elo']:.1f},{e['low']:.1f},{e['high']:.1f},{s['llr']:.3f},{s['verdict']}")
PY
        done
    done
fi

if want sprt4; then
    # Four players: an SPRT (elo0=0, elo1=10) of td (ply 1) in one seat against three copies of
    # the opponent, each deal played once with td in every seat (a deal group, the unit); the
    # score is td's share of the pairwise "finished ahead" comparisons (docs/commands/sprt.md).
    out=$root/sprts-4p.csv
    echo "preset,players,td,opponent,games,score,elo,elo_lo95,elo_hi95,llr,verdict" >"$out"
    for p in "${presets[@]}"; do
        for o in ${TD_OPPONENTS_4P:-expectimax-deep mcts}; do
            td=td-$p-4p:ply=1
            dir=$root/sprt4/$p-4p-$o
            echo "sprt: $td against 3 x $o, $p" >&2
            "$bin" run --rules "$p" --bots "$td,$o,$o,$o" --sprt elo0=0,elo1=10 --max-games 20000 \
                --seed 1 --threads "$threads" --out "$dir" --force -q >/dev/null || true
            python3 - "$dir" "$p" "$td" "$o" >>"$out" <<'PY'
import json, sys
d, p, td, o = sys.argv[1:]
r = json.load(open(f"{d}/summary.json"))["report"]
s = r["sprt"]
e = s["elo"]
print(f"{p},4,{td},{o},{4 * s['groups']},{s['score']:.4f},{e['elo']:.1f},{e['low']:.1f},{e['high']:.1f},{s['llr']:.3f},{s['verdict']}")
PY
        done
    done
fi

if want fixed2; then
    out=$root/fixed2.csv
    [[ -f "$out" && -n "${TD_FIXED_APPEND:-}" ]] || echo "preset,players,td,opponent,seed,pairs,games,score,score_lo95,score_hi95,elo,elo_lo95,elo_hi95,cpu_s,load" >"$out"
    for p in "${presets[@]}"; do
        for o in ${TD_OPPONENTS_2P:-expectimax-deep mcts}; do
            td=td-$p-2p:ply=1
            seed=${TD_FIXED_SEED:-2026}
            pairs=${TD_FIXED_PAIRS:-2000}
            [[ $o == mcts ]] && pairs=${TD_FIXED_PAIRS_MCTS:-2000}
            dir=$root/fixed/$p-2p-$o
            echo "fixed: $td against $o, $p, $pairs pairs" >&2
            load=$(cut -d' ' -f1 /proc/loadavg)
            t=$( { /usr/bin/time -f "%U %S" "$bin" run --rules "$p" --bots "$td,$o" --rotate-seats \
                --games "$pairs" --seed "$seed" --threads "$threads" --out "$dir" --force -q >/dev/null; } 2>&1 | tail -1)
            python3 - "$dir" "$p" "$td" "$o" "$seed" "$t" "$load" >>"$out" <<'PY'
import csv, sys
d, p, td, o, seed, t, load = sys.argv[1:]
r = next(csv.DictReader(open(f"{d}/match.csv")))
cpu = sum(map(float, t.split()))
print(f"{p},2,{td},{o},{seed},{r['pairs']},{2 * int(r['pairs'])},{float(r['score']):.4f},{float(r['score_lo95']):.4f},"
      f"{float(r['score_hi95']):.4f},{float(r['elo']):.1f},{float(r['elo_lo95']):.1f},{float(r['elo_hi95']):.1f},{cpu:.1f},{load}")
PY
        done
    done
fi

if want fixed4; then
    out=$root/fixed4.csv
    [[ -f "$out" && -n "${TD_FIXED_APPEND:-}" ]] || echo "preset,players,td,opponent,seed,deals,games,score,elo,elo_lo95,elo_hi95,llr,verdict,cpu_s,load" >"$out"
    for p in "${presets[@]}"; do
        for o in ${TD_OPPONENTS_4P:-expectimax-deep mcts}; do
            td=td-$p-4p:ply=1
            seed=${TD_FIXED_SEED:-2026}
            deals=${TD_FIXED_DEALS_4P:-1000}
            [[ $o == mcts ]] && deals=${TD_FIXED_DEALS_4P_MCTS:-200}
            dir=$root/fixed/$p-4p-$o
            echo "fixed: $td against 3 x $o, $p, $deals deals" >&2
            load=$(cut -d' ' -f1 /proc/loadavg)
            t=$( { /usr/bin/time -f "%U %S" "$bin" run --rules "$p" --bots "$td,$o,$o,$o" \
                --sprt elo0=0,elo1=0.001 --max-games "$deals" --seed "$seed" --threads "$threads" \
                --out "$dir" --force -q >/dev/null || true; } 2>&1 | tail -1)
            python3 - "$dir" "$p" "$td" "$o" "$seed" "$deals" "$t" "$load" >>"$out" <<'PY'
import json, sys
d, p, td, o, seed, deals, t, load = sys.argv[1:]
s = json.load(open(f"{d}/summary.json"))["report"]["sprt"]
assert s["groups"] == int(deals), f"{d}: {s['groups']} of {deals} deals played"
assert s["verdict"] not in ("accept_h0", "accept_h1"), f"{d}: the test stopped: {s['verdict']}"
e = s["elo"]
cpu = sum(map(float, t.split()))
print(f"{p},4,{td},{o},{seed},{deals},{4 * s['groups']},{s['score']:.4f},{e['elo']:.1f},{e['low']:.1f},{e['high']:.1f},{s['llr']:.4f},{s['verdict']},{cpu:.1f},{load}")
PY
        done
    done
fi

if want match4; then
    # Four players: td (ply 1) in one seat against three copies of the opponent, seats rotated
    # (each deal played once per seat of td); the win rate of an equal bot is 25%.
    out4=$root/matches-4p.csv
    [[ -f "$out4" && -n "${TD_APPEND_4P:-}" ]] || echo "preset,players,td,opponent,deals,games,td_win_rate,win_lo95,win_hi95,interval_method" >"$out4"
    for p in "${presets[@]}"; do
        for o in ${TD_OPPONENTS_4P:-expectimax-deep mcts}; do
            td=td-$p-4p:ply=1
            deals=${TD_DEALS_4P:-500}
            [[ $o == mcts ]] && deals=${TD_DEALS_4P_MCTS:-200}
            dir=$root/match/$p-4p-$o
            echo "run: $td against 3 x $o, $p, $deals deals" >&2
            "$bin" run --rules "$p" --bots "$td,$o,$o,$o" --rotate-seats --games "$deals" \
                --seed 1 --threads "$threads" --out "$dir" --force -q >/dev/null
            line=$(sed -n 2p "$dir/summary.csv")
            IFS=, read -r _ _ games _ rate lo hi _ _ _ _ _ _ _ method <<<"$line"
            echo "$p,4,$td,$o,$deals,$games,$rate,$lo,$hi,$method" >>"$out4"
        done
    done
fi

if want league; then
    for p in "${presets[@]}"; do
        for n in ${TD_LEAGUE_PLAYERS:-2 4}; do
            td=td-$p-${n}p
            pool="random,greedy,expectimax,expectimax-deep,montecarlo,mcts,$td,$td:ply=1,$td:ply=2"
            deals=${TD_LEAGUE_DEALS_2P:-100}
            [[ $n == 4 ]] && deals=${TD_LEAGUE_DEALS_4P:-20}
            dir=$root/league/$p-${n}p
            if [[ -z "${TD_LEAGUE_CPU_ONLY:-}" ]]; then
                echo "league: $p, $n players, $deals deals per table" >&2
                "$bin" league --rules "$p" --players "$n" --bots "$pool" --games "$deals" --seed 1 \
                    --threads "$threads" --out "$dir" --force -q >/dev/null
            fi
            echo "cpu per decision: $p, $n players" >&2
            # CPU per decision: each bot in every seat of a few self-play games, one thread.
            cpu=$dir/cpu.csv
            echo "bot,games,decisions,cpu_s,cpu_us_per_decision,load" >"$cpu"
            IFS=, read -r -a bots <<<"$pool"
            for b in "${bots[@]}"; do
                # Games for some 0.2 to 2 s of CPU each (the timer counts 10 ms steps).
                case $b in
                    random | greedy) g=20000 ;;
                    "$td") g=6000 ;;
                    expectimax) g=3000 ;;
                    "$td:ply=1") g=600 ;;
                    expectimax-deep | montecarlo) g=150 ;;
                    "$td:ply=2") g=60 ;;
                    *) g=6 ;;
                esac
                [[ $n == 4 && $g -gt 6 ]] && g=$((g / 3))
                line=$(printf "$b%.0s," $(seq 1 $n))
                line=${line%,}
                tmp=$(mktemp -d)
                "$bin" run --rules "$p" --bots "$line" --games "$g" --seed 7 --threads 1 --out "$tmp/log" \
                    --log-games d.jsonl -q >/dev/null
                # A decision is a line of the log that is an array (docs/LOG.md).
                decisions=$(grep -c '^\[' "$tmp/log/d.jsonl" || true)
                load=$(cut -d' ' -f1 /proc/loadavg)
                t=$( { /usr/bin/time -f "%U %S" "$bin" run --rules "$p" --bots "$line" --games "$g" --seed 7 \
                    --threads 1 --out "$tmp/run" --no-per-game -q >/dev/null; } 2>&1 | tail -1)
                rm -rf "$tmp"
                python3 - "$b" "$g" "$decisions" "$t" "$load" >>"$cpu" <<'PY'
import sys
b, g, d, t, load = sys.argv[1:]
u, s = map(float, t.split())
d = int(d)
print(f"{b},{g},{d},{u + s:.2f},{1e6 * (u + s) / max(d, 1):.3g},{load}")
PY
            done
            python3 - "$dir/league.csv" "$cpu" "$p" "$n" >"$root/league-$p-${n}p.csv" <<'PY'
import csv, sys
league, cpu, p, n = sys.argv[1:]
c = {r["bot"]: r for r in csv.DictReader(open(cpu))}
rows = list(csv.DictReader(open(league)))
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["preset", "players"] + list(rows[0].keys()) + ["cpu_us_per_decision"])
for r in rows:
    out.writerow([p, n] + list(r.values()) + [c[r["bot"]]["cpu_us_per_decision"]])
PY
        done
    done
fi

if want speed; then
    out=$root/train-speed.csv
    echo "preset,players,threads,games,wall_s,cpu_s,games_per_s,games_per_cpu_s,load" >"$out"
    for p in "${presets[@]}"; do
        for n in 2 4; do
            g=20000
            [[ $n == 4 ]] && g=5000
            for t in 1 2; do
                tmp=$(mktemp -d)
                load=$(cut -d' ' -f1 /proc/loadavg)
                r=$( { /usr/bin/time -f "%e %U %S" "$bin" train --rules "$p" --players "$n" --games "$g" \
                    --threads "$t" --eval-deals 0 --out "$tmp/t" -q >/dev/null; } 2>&1 | tail -1)
                rm -rf "$tmp"
                read -r wall u s <<<"$r"
                python3 -c "import sys; w,u,s=map(float,sys.argv[1:4]); g=int(sys.argv[4]); print(f'$p,$n,$t,{g},{w:.2f},{u+s:.2f},{g/w:.0f},{g/(u+s):.0f},$load')" "$wall" "$u" "$s" "$g" >>"$out"
            done
        done
    done
fi
