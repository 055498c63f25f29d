#!/usr/bin/env bash
# The table of `aeroplane train`'s default learning rates (docs/commands/train.md, issue 46
# item 1): for each preset and player count, the net trained with the defaults' rates
# (--alpha 0.004 --alpha-end 0.0005) and with the old default (0.02 throughout), scored against
# greedy at ply 0 (200 deals, each once per seat of the net, seats rotated) at five points of
# the training; 50,000 and 300,000 games. The guard is off (--no-guard) so that the rates alone
# are measured. Writes results/td/defaults/defaults.csv (one line per training).
#   results/td/defaults/run.sh                 (some 40 CPU-minutes)
#   results/td/defaults/run.sh new 50000       (one setting and length only)
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
root=results/td/defaults
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A rates=([new]="--alpha 0.004 --alpha-end 0.0005" [old]="--alpha 0.02 --alpha-end 0.02")
settings=("${1:-new old}")
lengths=("${2:-50000 300000}")
csv=$root/defaults.csv
[[ -f "$csv" ]] || echo "setting,games,rules,players,score_1,score_2,score_3,score_4,score_5,cpu_seconds" >"$csv"
for setting in ${settings[*]}; do
  for games in ${lengths[*]}; do
    for players in 2 3 4; do
      for rules in classic chinese appfreegame; do
        [[ $setting == old && $games == 300000 ]] && continue
        d=$work/$setting-$games-$rules-$players
        # shellcheck disable=SC2086
        /usr/bin/time -f "%U %S" -o "$d.time" "$bin" train --rules "$rules" --players "$players" \
          --games "$games" --seed 5 --eval-deals 200 --eval-every $((games / 5)) ${rates[$setting]} \
          --no-guard --out "$d" -q >/dev/null
        scores=$(tail -n +2 "$d/history.csv" | cut -d, -f5 | paste -sd,)
        read -r user sys <"$d.time"
        grep -v "^$setting,$games,$rules,$players," "$csv" >"$csv.tmp" || true
        mv "$csv.tmp" "$csv"
        echo "$setting,$games,$rules,$players,$scores,$(python3 -c "print(round($user + $sys, 2))")" >>"$csv"
      done
    done
  done
done
