#!/usr/bin/env bash
# Trains the shipped nets of the `td` bot (bots/nets/*.safetensors) byte for byte again, with
# the wall and CPU time and the load of each training in results/td/train.csv.
#   results/td/train.sh            (from anywhere; some 30 minutes on the shared 2-core VM)
#   results/td/train.sh NAME...    (only those nets, e.g. appfreegame-2planes)
# Every training is seeded and its net does not depend on the thread count
# (TD_THREADS=N, default all cores): `git diff bots/nets` after a rerun is empty.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=results/td
threads="${TD_THREADS:-0}"
cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/aeroplane"
mkdir -p bots/nets "$root/runs"

# name, then the training's arguments.
nets=(
    "appfreegame-2planes --rules appfreegame --planes 2 --games 2000000"
    "classic-2planes --rules classic --planes 2 --games 2000000"
    "chinese-2planes --rules chinese --planes 2 --games 2000000"
    "appfreegame-2p --rules appfreegame --players 2 --games 1000000"
    "classic-2p --rules classic --players 2 --games 1000000"
    "chinese-2p --rules chinese --players 2 --games 1000000"
    "appfreegame-4p --rules appfreegame --players 4 --games 300000"
    "classic-4p --rules classic --players 4 --games 300000"
    "chinese-4p --rules chinese --players 4 --games 300000"
)
common=(--seed 1 --hidden 64 --lambda 0.7 --alpha 0.004 --alpha-end 0.0005 --batch 16 --eval-deals 200 --opponent greedy)

csv=$root/train.csv
[[ -f "$csv" ]] || echo "net,games,wall_seconds,cpu_seconds,threads,load_before,checksum" >"$csv"
for entry in "${nets[@]}"; do
    read -r name args <<<"$entry"
    if [[ $# -gt 0 && ! " $* " =~ " $name " ]]; then
        continue
    fi
    dir=$root/runs/$name
    echo "train: $name" >&2
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S" -o "$root/.time" "$bin" train $args "${common[@]}" \
        --threads "$threads" --out "$dir" --force -q >/dev/null
    read -r wall user sys <<<"$(cat "$root/.time")"
    cp "$dir/net.safetensors" "bots/nets/td-$name.safetensors"
    games=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['games_played'])" "$dir/train.json")
    sum=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results']['checksum'])" "$dir/train.json")
    cpu=$(python3 -c "print(round($user + $sys, 2))")
    grep -v "^$name," "$csv" >"$csv.tmp" || true
    mv "$csv.tmp" "$csv"
    echo "$name,$games,$wall,$cpu,$threads,$load,$sum" >>"$csv"
done
rm -f "$root/.time"
