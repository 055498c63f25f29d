#!/usr/bin/env bash
# Submits an aeroplane job to Slurm as SHARDS array tasks (shard.sbatch) plus a merge job that
# starts when every task has succeeded (merge.sbatch, --dependency=afterok), and prints the two
# job ids, "ARRAY_ID MERGE_ID", on stdout.
#
#   scripts/slurm/submit.sh [OPTIONS] OUT_ROOT SHARDS COMMAND [ARGS...]
#   scripts/slurm/submit.sh -t 2:00:00 -c 4 results/big 1000 run --games 100000000 --bots greedy,random --rotate-seats
#
# COMMAND [ARGS...] is the job as you would run it (run, run --sprt, sweep, league) without
# --out and --shard. Shard K goes to OUT_ROOT/shard-K, the merged job to OUT_ROOT/merged, its
# report to OUT_ROOT/report.txt, logs to OUT_ROOT/logs. Options (sbatch's SBATCH_* environment
# variables, e.g. SBATCH_ACCOUNT, apply too):
#   -p PARTITION   the partition of both jobs
#   -t TIME        time limit of each task and of the merge (tasks stop cleanly 120 s before
#                  it and requeue themselves to resume)
#   -c CPUS        CPUs (aeroplane threads) per task [1]
#   -j MAX         run at most MAX tasks at once (--array=...%MAX)
#   -o OPTS        more sbatch options for both jobs, e.g. -o "--qos=long --mem=1G"
# The binary: $AEROPLANE, else aeroplane on PATH; the tasks run that same file.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
common=()
cpus=1
throttle=""
while getopts "p:t:c:j:o:h" opt; do
    case $opt in
        p) common+=("--partition=$OPTARG") ;;
        t) common+=("--time=$OPTARG") ;;
        c) cpus=$OPTARG ;;
        j) throttle="%$OPTARG" ;;
        o)
            read -r -a extra <<<"$OPTARG"
            common+=("${extra[@]}")
            ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ "$#" -ge 3 ] || usage
root=$1
shards=$2
shift 2
case $shards in
    '' | *[!0-9]*) echo "SHARDS must be a number, not \`$shards\`" >&2 && exit 2 ;;
esac
if [ "$shards" -lt 1 ]; then
    echo "SHARDS must be at least 1" >&2
    exit 2
fi
for a in "$@"; do
    case $a in
        --out | --out=* | --shard | --shard=*)
            echo "give the job without $a: submit.sh sets --out OUT_ROOT/shard-K and --shard K/$shards" >&2
            exit 2
            ;;
    esac
done

bin=${AEROPLANE:-$(command -v aeroplane || true)}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "no aeroplane binary: install it (cargo install --path .) or set AEROPLANE=/path/to/aeroplane" >&2
    exit 2
fi
bin=$(readlink -f "$bin")
mkdir -p "$root/logs"
root=$(cd "$root" && pwd)

array=$(sbatch --parsable "${common[@]}" \
    --array="0-$((shards - 1))$throttle" \
    --cpus-per-task="$cpus" \
    --output="$root/logs/%x-%A_%a.out" \
    --export="ALL,AEROPLANE=$bin" \
    "$here/shard.sbatch" "$root" "$shards" "$@")
array=${array%%;*}
merge=$(sbatch --parsable "${common[@]}" \
    --dependency="afterok:$array" \
    --output="$root/logs/%x-%j.out" \
    --export="ALL,AEROPLANE=$bin" \
    "$here/merge.sbatch" "$root" "$shards")
merge=${merge%%;*}
echo "array job $array: $shards shards of \`aeroplane $*\` into $root/shard-K (logs: $root/logs)" >&2
echo "merge job $merge: after every task of $array succeeds, into $root/merged and $root/report.txt" >&2
echo "$array $merge"
