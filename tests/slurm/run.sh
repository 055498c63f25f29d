#!/usr/bin/env bash
# scripts/slurm on a real Slurm: installs Slurm and MUNGE from Debian's packages (if missing),
# starts a one-node cluster on this machine (munged, slurmctld, slurmd; no systemd needed),
# submits a run and a sweep as 4-task job arrays with their dependent merges through
# scripts/slurm/submit.sh, stops one running task with `scancel --signal=USR1` (it stops
# cleanly, requeues itself and resumes), and checks that both merged results are byte for byte
# what one local uninterrupted run writes (every file, and stdout but the folder name in its
# last line). The daemons it started are stopped on exit; running it again starts afresh.
#
#   bash tests/slurm/run.sh                 # builds the release binary (cargo build --release --locked)
#   AEROPLANE=path/to/aeroplane bash tests/slurm/run.sh
#
# Work folder: $AEROPLANE_SLURM_TEST_DIR (default /tmp/aeroplane-slurm-test), replaced each run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)
began=$(date +%s)
work=${AEROPLANE_SLURM_TEST_DIR:-/tmp/aeroplane-slurm-test}
passed=0

say() { echo "slurm-test [$(($(date +%s) - began))s]: $*"; }
fail() {
    echo "slurm-test: FAIL: $*" >&2
    for f in "$work"/slurm-*/logs/*.out "$work"/daemons/*.log; do
        [ -f "$f" ] || continue
        echo "----- $f (last lines)" >&2
        tail -n 25 "$f" >&2
    done
    echo "slurm: $passed passed, 1 failed"
    exit 1
}
ok() {
    passed=$((passed + 1))
    say "ok: $*"
}
# Runs "$@" until it succeeds, every 0.2 s, for at most $1 seconds.
await() {
    local limit=$1
    shift
    local until=$(($(date +%s) + limit))
    until "$@"; do
        [ "$(date +%s)" -lt "$until" ] || return 1
        sleep 0.2
    done
}

# --- the daemons of an earlier run, if it was killed before its cleanup ----------------------
# Each line of $work/daemons/pids is "NAME PID" of a daemon this script started.
stop_daemons() {
    local pids="$work/daemons/pids"
    [ -f "$pids" ] || return 0
    # Jobs first (while slurmctld is up), so that no task outlives the cluster.
    if [ -n "${SLURM_CONF:-}" ] && scontrol ping >/dev/null 2>&1; then
        scancel --quiet --user=root 2>/dev/null || true
        await 20 queue_empty || true
    fi
    local name pid
    tac "$pids" | while read -r name pid; do
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
            kill "$pid" 2>/dev/null || true
            await 15 gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    rm -f "$pids"
}
gone() { [ ! -e "/proc/$1" ]; }
queue_empty() { [ -z "$(squeue --noheader 2>/dev/null)" ] && scontrol ping >/dev/null 2>&1; }
export SLURM_CONF="$work/etc/slurm.conf"
stop_daemons
trap 'stop_daemons' EXIT
trap 'exit 130' INT TERM
rm -rf "$work"
mkdir -p "$work/daemons" "$work/etc" "$work/state" "$work/spool"

# --- install ---------------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >"$work/daemons/apt.log" 2>&1
    apt-get install -y -qq slurm-wlm munge >>"$work/daemons/apt.log" 2>&1 ||
        fail "apt-get install slurm-wlm munge (see $work/daemons/apt.log)"
fi

# --- the binary ------------------------------------------------------------------------------
if [ -n "${AEROPLANE:-}" ]; then
    bin=$(readlink -f "$AEROPLANE")
else
    say "cargo build --release --locked"
    cargo build --release --locked --quiet
    bin=$repo/target/release/aeroplane
fi
[ -x "$bin" ] || fail "no binary at $bin"
export AEROPLANE=$bin

# --- MUNGE -----------------------------------------------------------------------------------
munge_works() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }
if munge_works; then
    say "munged is already running: using it"
else
    if [ ! -s /etc/munge/munge.key ]; then
        mkdir -p /etc/munge
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile=/etc/munge/munge.key
        else
            create-munge-key -f
        fi
    fi
    chown munge:munge /etc/munge /etc/munge/munge.key
    chmod 0700 /etc/munge
    chmod 0400 /etc/munge/munge.key
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge
    chmod 0755 /run/munge
    rm -f /run/munge/munged.pid
    runuser -u munge -- munged --force
    await 10 test -s /run/munge/munged.pid || fail "munged did not start"
    echo "munged $(cat /run/munge/munged.pid)" >>"$work/daemons/pids"
    await 10 munge_works || fail "munged does not answer"
fi

# --- Slurm: one node, on the loopback address ------------------------------------------------
host=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=aeroplane-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
# cred_expire is also how long a requeued job waits before it may start again (default 120 s).
AuthInfo=cred_expire=10
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
# Look at pending jobs every 2 s (default 60 s), so that a requeued task starts soon.
SchedulerParameters=sched_interval=2,bf_interval=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/daemons/slurmctld.pid
SlurmdPidFile=$work/daemons/slurmd.pid
SlurmctldLogFile=$work/daemons/slurmctld.log
SlurmdLogFile=$work/daemons/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -c >"$work/daemons/slurmctld.out" 2>&1 &
echo "slurmctld $!" >>"$work/daemons/pids"
await 30 scontrol ping >/dev/null 2>&1 || fail "slurmctld did not start"
slurmd -D >"$work/daemons/slurmd.out" 2>&1 &
echo "slurmd $!" >>"$work/daemons/pids"
node_idle() { [ "$(sinfo --noheader --responding --states=idle --format=%D 2>/dev/null)" = 1 ]; }
await 30 node_idle || fail "the node did not come up: $(sinfo 2>&1)"
ok "a one-node cluster is up ($(sbatch --version): munged, slurmctld, slurmd; $(nproc) CPUs)"

# --- the jobs, and their local reference runs ------------------------------------------------
# The run is long enough (4 shards of ~3 s on one core, in 47 units each) for a task to be
# signalled midway.
run_args=(run --bots "montecarlo,random" --games 3000 --rotate-seats --per-game --seed 11 --chunk-size 16)
sweep_args=(sweep --vary "overshoot=illegal,bounce" --vary "launch_rolls=[6];[5,6]" --bots "greedy,random"
    --games 3000 --rotate-seats --seed 5 --compare "1,2")
"$bin" "${run_args[@]}" --out "$work/local-run" --quiet >"$work/local-run.txt"
"$bin" "${sweep_args[@]}" --out "$work/local-sweep" --quiet >"$work/local-sweep.txt"
say "local reference runs done"

read -r run_array run_merge < <(scripts/slurm/submit.sh -t 10 "$work/slurm-run" 4 "${run_args[@]}")
read -r sweep_array sweep_merge < <(scripts/slurm/submit.sh -t 10 "$work/slurm-sweep" 4 "${sweep_args[@]}")
if [ -z "$run_merge" ] || [ -z "$sweep_merge" ]; then fail "submit.sh printed no job ids"; fi
ok "submitted: run array $run_array + merge $run_merge, sweep array $sweep_array + merge $sweep_merge"

# --- stop one running task cleanly with a real signal: scancel --signal=USR1 ------------------
victim=1
ckpt="$work/slurm-run/shard-$victim/checkpoint"
units_done() { [ -f "$ckpt" ] && [ "$(wc -l <"$ckpt")" -ge 3 ]; }
await 120 units_done || fail "task ${run_array}_$victim did not start playing"
# The task's srun step (.0): a job-level `scancel --signal=USR1 JOB_K` delivers the signal too,
# but while other tasks of the array are pending Slurm 22.05 answers "Job can not be altered
# now" and scancel keeps retrying for a while, signalling the requeued task again.
scancel --signal=USR1 "${run_array}_$victim.0" 2>"$work/scancel.err" || true
vlog="$work/slurm-run/logs/aeroplane-${run_array}_$victim.out"
requeued() { grep -q "requeueing the task" "$vlog" 2>/dev/null; }
await 60 requeued || fail "task ${run_array}_$victim did not stop and requeue after scancel --signal=USR1: $(cat "$work/scancel.err")"
stopped=$(grep -o "interrupted after [0-9,]* of [0-9,]* games" "$vlog" | head -n 1)
[ -n "$stopped" ] || fail "no 'interrupted after' line in $vlog"
ok "scancel --signal=USR1 stopped task ${run_array}_$victim cleanly ($stopped) and it requeued itself"

# --- wait for everything ---------------------------------------------------------------------
await 240 queue_empty || fail "jobs still queued after 240 s: $(squeue 2>&1)"
say "queue empty"

grep -q "(restart 1) .* status interrupted" "$vlog" || fail "the requeued task did not find its shard interrupted"
grep -q "+ .* resume $work/slurm-run/shard-$victim " "$vlog" || fail "the requeued task did not resume its shard"
grep -q '"status": "complete"' "$work/slurm-run/shard-$victim/run.json" || fail "shard $victim is not complete"
[ "$(grep -c "stopped cleanly" "$vlog")" = 1 ] || fail "task ${run_array}_$victim stopped more than once"
ok "the requeued task resumed its shard to the end"

# --- the merged results are those of the local run -------------------------------------------
same_results() {
    local name=$1 local_dir=$2 merged=$3 local_out=$4 report=$5
    [ -f "$report" ] || fail "$name: no merge report $report"
    [ -f "$merged/run.json" ] || fail "$name: no merged folder $merged"
    local a b f
    a=$(cd "$local_dir" && find . -type f | sort)
    b=$(cd "$merged" && find . -type f | sort)
    [ "$a" = "$b" ] || fail "$name: the merged folder has other files: $(diff <(echo "$a") <(echo "$b") | tr '\n' ' ')"
    while read -r f; do
        cmp "$local_dir/$f" "$merged/$f" || fail "$name: $f differs"
    done <<<"$a"
    cmp <(sed '$d' "$local_out") <(sed '$d' "$report") || fail "$name: stdout differs"
    [ "$(tail -n 1 "$local_out" | sed "s|$local_dir|DIR|")" = "$(tail -n 1 "$report" | sed "s|$merged|DIR|")" ] ||
        fail "$name: stdout's last line differs beyond the folder: $(tail -n 1 "$local_out") / $(tail -n 1 "$report")"
    ok "$name: merged on Slurm = local run ($(echo "$a" | wc -l) files: $(echo "$a" | sed 's|^\./||' | tr '\n' ' '); stdout)"
}
same_results run "$work/local-run" "$work/slurm-run/merged" "$work/local-run.txt" "$work/slurm-run/report.txt"
same_results sweep "$work/local-sweep" "$work/slurm-sweep/merged" "$work/local-sweep.txt" "$work/slurm-sweep/report.txt"

# --- the batch shell forwards a signal (how --signal=B:USR1@120 reaches aeroplane) ----------
# Shard 3 through the script outside Slurm: USR1 to the shell stops aeroplane cleanly (no
# requeue outside an array job), the script run again resumes it, and it merges with the
# Slurm shards 0-2 into the same results again.
fwd=$work/forward
SLURM_ARRAY_TASK_ID=3 AEROPLANE_SLURM_SRUN=0 bash scripts/slurm/shard.sbatch "$fwd" 4 "${run_args[@]}" >"$work/forward.log" 2>&1 &
shell=$!
ckpt="$fwd/shard-3/checkpoint"
await 60 units_done || fail "the script did not start shard 3: $(cat "$work/forward.log")"
kill -USR1 "$shell"
rc=0
wait "$shell" || rc=$?
[ "$rc" = 130 ] || fail "the script stopped by USR1 exited with $rc, not 130: $(cat "$work/forward.log")"
grep -q '"status": "interrupted"' "$fwd/shard-3/run.json" || fail "shard 3 is not interrupted after USR1"
SLURM_ARRAY_TASK_ID=3 AEROPLANE_SLURM_SRUN=0 bash scripts/slurm/shard.sbatch "$fwd" 4 "${run_args[@]}" >>"$work/forward.log" 2>&1 ||
    fail "the script did not resume shard 3: $(cat "$work/forward.log")"
grep -q "resume $fwd/shard-3" "$work/forward.log" || fail "the script run again did not resume shard 3"
"$bin" merge "$fwd/merged" "$work"/slurm-run/shard-{0,1,2} "$fwd/shard-3" >"$fwd/report.txt"
same_results "run (shard 3 stopped through the shell, resumed)" "$work/local-run" "$fwd/merged" "$work/local-run.txt" "$fwd/report.txt"

# --- a task run again leaves its complete shard alone ----------------------------------------
again=$(SLURM_ARRAY_TASK_ID=2 AEROPLANE_SLURM_SRUN=0 bash scripts/slurm/shard.sbatch "$work/slurm-run" 4 "${run_args[@]}")
grep -q "already complete" <<<"$again" || fail "a re-run task did not see its shard complete: $again"
ok "a task run again finds its shard complete and does nothing"

say "done in $(($(date +%s) - began)) s"
echo "slurm: $passed passed, 0 failed"
